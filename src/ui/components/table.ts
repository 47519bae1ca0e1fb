import { h, type ComponentChildren, type VNode } from 'preact';
import { html } from '../render.ts';

/** A table is named by a visible caption or, where the heading above names it, an aria-label. */
export type TableName = { caption: string; label?: never } | { label: string; caption?: never };

export type TableProps = TableName & {
  columns: readonly string[];
  /** One entry per row, one cell per column. */
  rows: readonly (readonly ComponentChildren[])[];
  /** What an empty table says, e.g. "No keys yet." */
  empty: string;
};

/**
 * A data table with column headers. On a phone each row is a card, each cell under its column's
 * name (`data-label`); where it is still too wide it scrolls in its own focusable box.
 */
export function Table({ caption, label, columns, rows, empty }: TableProps): VNode {
  return html`<div class="table-scroll" role="region" tabindex="0" aria-label=${caption ?? label}>
    <table aria-label=${caption === undefined ? label : undefined}>
      ${caption !== undefined && html`<caption>${caption}</caption>`}
      <thead><tr>${columns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead>
      <tbody>
        ${rows.length === 0
          ? html`<tr><td class="empty" colspan=${columns.length}>${empty}</td></tr>`
          // Rows are most of a long list's elements: made with h() directly, no template to walk.
          : rows.map((cells) => h('tr', null, cells.map((cell, index) => h('td', { 'data-label': columns[index] }, cell))))}
      </tbody>
    </table>
  </div>`;
}
