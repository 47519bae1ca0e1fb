import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Database } from './schema.ts';

// Rows a statement returns as JSON (so one round trip can carry several tables, in one column
// each) lose what JSON has no type for: timestamps come back as text, and numeric columns as
// JSON numbers that would lose digits. Each table read this way declares those columns once
// here; the SQL that writes the JSON and the reviver that reads it both follow the declaration.

type Columns<T> = Selectable<T>;

/** The columns of a table type that read as Date (or Date | null). */
type DateColumn<T> = { [K in keyof Columns<T>]-?: NonNullable<Columns<T>[K]> extends Date ? K : never }[keyof Columns<T>];

export interface JsonColumns<T> {
  /** Every Date column, as the keys of a record: a table type gaining one not listed fails the type check. */
  dates: { readonly [K in DateColumn<T>]: true };
  /**
   * The numeric columns, written as text so no digit is lost. Their types are strings like any
   * text column's, so test/db/rows-as-json.test.ts checks this list against the database.
   */
  numerics: ReadonlyArray<keyof Columns<T> & string>;
}

export const JSON_COLUMNS = {
  payments: {
    dates: { created_at: true, updated_at: true, expires_at: true, started_at: true, provider_reached_at: true, paid_at: true, canceled_at: true },
    numerics: ['value_coin', 'merchant_received', 'forwarded_net'],
  },
  orders: {
    dates: { created_at: true, updated_at: true, paid_at: true, fulfilled_at: true },
    numerics: [],
  },
  customers: {
    dates: { created_at: true, details_at: true },
    numerics: [],
  },
} as const satisfies { [T in keyof Database]?: JsonColumns<Database[T]> };

export type JsonTable = keyof typeof JSON_COLUMNS;

declare const tableOf: unique symbol;
/** A row of `T` as rowAsJson wrote it; only rowFromJson reads one. */
export interface RowJson<T extends JsonTable> {
  readonly [tableOf]: T;
}

/**
 * The row of `table` that `alias` names in the query (a table, alias or CTE with the table's
 * columns), as one JSON value: row_to_json, which writes text directly (to_jsonb || … costs
 * more on the start's read), in an array with the numeric columns as text after it.
 */
export function rowAsJson<T extends JsonTable>(table: T, alias: string): RawBuilder<RowJson<T>> {
  const numerics: readonly string[] = JSON_COLUMNS[table].numerics;
  const row = sql`row_to_json(${sql.table(alias)})`;
  if (numerics.length === 0) return row as RawBuilder<RowJson<T>>;
  return sql`json_build_array(${row}, ${sql.join(numerics.map((column) => sql`${sql.ref(`${alias}.${column}`)}::text`))})`;
}

const dateColumns = Object.fromEntries(Object.entries(JSON_COLUMNS).map(([table, columns]) => [table, Object.keys(columns.dates)])) as Record<JsonTable, string[]>;

/** The row that rowAsJson wrote, as Kysely's selectAll reads it: timestamps as Dates again, numerics exact. */
export function rowFromJson<T extends JsonTable>(table: T, json: RowJson<T>): Selectable<Database[T]> {
  const numerics: readonly string[] = JSON_COLUMNS[table].numerics;
  const [columns, ...texts] = (numerics.length === 0 ? [json] : json) as unknown as [Record<string, unknown>, ...unknown[]];
  const row = { ...columns };
  numerics.forEach((column, index) => { row[column] = texts[index]; });
  for (const column of dateColumns[table]) {
    const value = row[column];
    if (typeof value === 'string') row[column] = new Date(value);
  }
  return row as Selectable<Database[T]>;
}
