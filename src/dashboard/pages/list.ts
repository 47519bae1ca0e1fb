import type { ComponentChildren, VNode } from 'preact';
import { Button, html, Notice, SearchForm, Select, TextField } from '../../ui/index.ts';
import { PAYMENT_STATUS_BADGES } from '../wording.ts';

// What every list of the dashboard shares: its filters (a GET form, so a filtered list has an
// address to keep and share) and its pages (newest first, as the API: a cursor to the next page).

/** The filters a list was asked for, as they go back into its links and its form. */
export type Filters = Record<string, string>;

/** What an empty list says: nothing matches the filters applied, or there is nothing yet. */
export function emptyList(filters: Filters, things: string): string {
  return Object.values(filters).some((value) => value !== '') ? `No ${things} match.` : `No ${things} yet.`;
}

/** `path` with the filters and, for a later page, the cursor. */
export function listHref(path: string, filters: Filters, startingAfter?: string): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
  if (startingAfter !== undefined) query.set('starting_after', startingAfter);
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The way on from a page of a list: to the next (when there is one) and back to the first. */
export function Pager({ path, filters, nextCursor, later }: { path: string; filters: Filters; nextCursor: string | null; later: boolean }): VNode | null {
  if (nextCursor === null && !later) return null;
  return html`<nav class="pager" aria-label="Pages">
    ${later && html`<a href=${listHref(path, filters)}>First page</a>`}
    ${nextCursor !== null && html`<a href=${listHref(path, filters, nextCursor)} rel="next">Next page</a>`}
  </nav>`;
}

/**
 * A list's filter form; `fields` are its controls, the button applies them, the link clears them.
 * Folded while no filter is applied, so the list comes first; open (and saying so) when one is.
 */
export function FilterForm({ path, label, filters, refused, children }: { path: string; label: string; filters: Filters; refused?: string | undefined; children: ComponentChildren }): VNode {
  const applied = Object.values(filters).filter((value) => value !== '').length;
  return html`<details class="filters" open=${applied > 0}>
    <summary>${applied === 0 ? 'Filters' : `Filters (${applied} applied)`}</summary>
    ${refused && Notice({ tone: 'error', children: html`<p>${refused} Nothing is listed until it is fixed.</p>` })}
    ${SearchForm({ action: path, label, children: [
      children,
      Button({ children: 'Filter' }),
      applied > 0 ? html`<p><a href=${path}>Clear filters</a></p>` : null,
    ] })}
  </details>`;
}

/** A status filter: any, or one of `statuses` (payment statuses, by their names). */
export function StatusFilter({ statuses, value }: { statuses: readonly (keyof typeof PAYMENT_STATUS_BADGES)[]; value: string }): VNode {
  return Select({ name: 'status', label: 'Status', value, options: [{ value: '', label: 'Any' }, ...statuses.map((status) => ({ value: status, label: PAYMENT_STATUS_BADGES[status][0] }))] });
}

/** From and to dates (inclusive, in UTC) for a list's creation time. */
export function DateFilters({ filters }: { filters: Filters }): VNode[] {
  return [
    // Text, not a date control: one tab stop each, the same in every browser; the format is in the hint.
    TextField({ name: 'from', label: 'Created from', hint: 'A day such as 2026-03-01.', value: filters.from ?? '', maxLength: 10 }),
    TextField({ name: 'to', label: 'Created to', hint: 'Up to and including this day.', value: filters.to ?? '', maxLength: 10 }),
  ];
}
