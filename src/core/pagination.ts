import { z } from 'zod';
import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { ApiError } from './errors.ts';
import { coded } from './validation.ts';

// Keyset pagination on (created, id), newest first (spec 4.1 lists, 8 page size).
export const MAX_PAGE = 100;

export const listParams = {
  limit: z.coerce
    .number(coded('invalid_limit', 'limit must be a whole number from 1 to 100.'))
    .int(coded('invalid_limit', 'limit must be a whole number from 1 to 100.'))
    .min(1, coded('invalid_limit', 'limit must be a whole number from 1 to 100.'))
    .max(MAX_PAGE, coded('invalid_limit', 'limit must be a whole number from 1 to 100.'))
    .default(20)
    .meta({ description: 'Page size, 1 to 100 (default 20).' }),
  starting_after: z
    .string(coded('invalid_cursor', 'starting_after must be an id from the previous page’s next_cursor.'))
    .max(100, coded('invalid_cursor', 'starting_after is not an id of this list.'))
    .optional()
    .meta({ description: 'The next_cursor of the previous page.' }),
};

function unixSecondsFilter(name: string, description: string) {
  const error = coded('invalid_filter', `${name} must be a Unix time in seconds.`);
  // Up to the year 9999, the last instant PostgreSQL and JavaScript dates agree on.
  return z.coerce.number(error).int(error).min(0, error).max(253_402_300_799, error).optional().meta({ description });
}

export const createdRange = {
  created_gte: unixSecondsFilter('created_gte', 'Only objects created at or after this Unix time (seconds).'),
  created_lte: unixSecondsFilter('created_lte', 'Only objects created at or before this Unix time (seconds).'),
};

/** A list envelope of `item`s; `plural` names them ("payment links"). */
export function pageOf<T extends z.ZodType>(item: T, plural: string) {
  return z.object({
    data: z.array(item).describe('The objects of this page, newest first.'),
    has_more: z.boolean().describe('Whether more objects follow this page.'),
    next_cursor: z.string().nullable().describe('The id to pass as starting_after for the next page; null on the last page.'),
  }).describe(`A page of ${plural}, newest first.`);
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface Position {
  created_at: Date;
  id: string;
}

/** Rows strictly after the cursor in (created_at desc, id desc) order. */
export function after(position: Position, alias?: string): Expression<SqlBool> {
  const created = sql.ref(alias ? `${alias}.created_at` : 'created_at');
  const id = sql.ref(alias ? `${alias}.id` : 'id');
  return sql<SqlBool>`(${created}, ${id}) < (${position.created_at}, ${position.id})`;
}

/** Builds a page from limit + 1 fetched rows. */
export function toPage<R extends { id: string }, T>(rows: R[], limit: number, present: (row: R) => T): Page<T> {
  const has_more = rows.length > limit;
  const kept = has_more ? rows.slice(0, limit) : rows;
  return {
    data: kept.map(present),
    has_more,
    next_cursor: has_more ? (kept.at(-1)?.id ?? null) : null,
  };
}

/** Bounds of an inclusive range in whole seconds over millisecond timestamps. */
export function createdBounds(range: { created_gte?: number | undefined; created_lte?: number | undefined }) {
  return {
    from: range.created_gte === undefined ? undefined : new Date(range.created_gte * 1000),
    before: range.created_lte === undefined ? undefined : new Date((range.created_lte + 1) * 1000),
  };
}

/**
 * One page of rows, newest first: after the cursor row when starting_after is given (which must
 * be an object of the same list, found by `findCursor`), limit + 1 rows so toPage knows has_more.
 */
export async function pageRows<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  input: { limit: number; starting_after?: string | undefined },
  findCursor: (id: string) => Promise<Position | undefined>,
  what: string,
  alias?: string,
): Promise<O[]> {
  let page = query;
  if (input.starting_after !== undefined) {
    const cursor = await findCursor(input.starting_after);
    if (!cursor) throw new ApiError('invalid_cursor', `starting_after is not ${what} of this account in this mode.`, 'starting_after');
    page = page.where(after(cursor, alias));
  }
  const column = (name: string) => sql.ref(alias ? `${alias}.${name}` : name);
  return page.orderBy(column('created_at'), 'desc').orderBy(column('id'), 'desc').limit(input.limit + 1).execute();
}
