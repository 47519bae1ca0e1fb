import { z } from 'zod';
import { sql, type Expression, type SqlBool } from 'kysely';
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

export const createdRange = {
  created_gte: z.coerce
    .number(coded('invalid_filter', 'created_gte must be a Unix time in seconds.'))
    .int(coded('invalid_filter', 'created_gte must be a Unix time in seconds.'))
    .min(0, coded('invalid_filter', 'created_gte must be a Unix time in seconds.'))
    .optional()
    .meta({ description: 'Only objects created at or after this Unix time (seconds).' }),
  created_lte: z.coerce
    .number(coded('invalid_filter', 'created_lte must be a Unix time in seconds.'))
    .int(coded('invalid_filter', 'created_lte must be a Unix time in seconds.'))
    .min(0, coded('invalid_filter', 'created_lte must be a Unix time in seconds.'))
    .optional()
    .meta({ description: 'Only objects created at or before this Unix time (seconds).' }),
};

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  });
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
