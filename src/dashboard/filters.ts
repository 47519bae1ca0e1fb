import { parseMoment } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import type { Page } from '../core/pagination.ts';
import { inPersonsWords } from './refusals.ts';
import type { Filters } from './pages/list.ts';

// A list page's query string, read as the API reads its own: each filter once, as text; the
// dashboard's date range (whole days, UTC) becomes the API's created_gte and created_lte.

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The named filters of a query (absent ones empty); a filter given twice or not as text is refused. */
export function filtersOf(query: unknown, names: readonly string[]): Filters {
  const given = (query ?? {}) as Record<string, unknown>;
  const filters: Filters = {};
  for (const name of names) {
    const value = given[name];
    if (value === undefined) filters[name] = '';
    else if (typeof value === 'string') filters[name] = value.trim();
    else throw new ApiError('invalid_filter', `${name} was given more than once.`, name);
  }
  return filters;
}

/** The cursor a later page was asked from, if any. */
export function cursorOf(query: unknown): string | undefined {
  const value = ((query ?? {}) as Record<string, unknown>).starting_after;
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new ApiError('invalid_cursor', 'starting_after was given more than once.', 'starting_after');
  return value;
}

function dayStart(text: string, field: string): number {
  const at = DAY.test(text) ? parseMoment(text) : null;
  if (at === null) {
    throw new ApiError('invalid_filter', `${field === 'from' ? 'Created from' : 'Created to'} must be a date such as 2026-11-24.`, field);
  }
  return at / 1000;
}

/** The API's creation range for the days `from` and `to` (both whole days, UTC). */
export function createdRangeOf(filters: Filters): { created_gte?: number; created_lte?: number } {
  const range: { created_gte?: number; created_lte?: number } = {};
  if (filters.from) range.created_gte = dayStart(filters.from, 'from');
  if (filters.to) range.created_lte = dayStart(filters.to, 'to') + 86_399;
  return range;
}

/** Only the filters given, for an operation's input. */
export function given(filters: Filters, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.filter((name) => filters[name]).map((name) => [name, filters[name]!]));
}

/**
 * A list read with the person's filters. A filter the API refuses (a date that is not one) is no
 * dead end: the list page comes back with what was typed and the refusal in words, nothing listed.
 */
export async function readFiltered<T>(read: () => Promise<Page<T>>): Promise<{ list: Page<T>; refused: string | undefined; status: number }> {
  try {
    return { list: await read(), refused: undefined, status: 200 };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return { list: { data: [], has_more: false, next_cursor: null }, refused: inPersonsWords(error), status: 400 };
  }
}
