import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CUSTOMER_DATA_COLUMNS, TABLES_WITHOUT_CUSTOMER_DATA } from '../../src/resources/customers/erasure-columns.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The erasure rewrites what erasure-columns.ts declares. Held to the migrated database here, so
// a table or a text column a migration adds cannot be forgotten: it fails until it is declared,
// scrubbed or kept on purpose.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

/** `table.column` of every text, varchar, char, json, jsonb and text-array column of the app's tables. */
async function textColumns(): Promise<Array<{ table: string; column: string }>> {
  const { rows } = await sql<{ table: string; column: string }>`
    SELECT c.table_name AS table, c.column_name AS column
    FROM information_schema.columns c
    JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND tb.table_type = 'BASE TABLE'
      AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
        OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar')))
    ORDER BY 1, 2`.execute(t.db);
  return rows;
}

it('declares every table of the app: holding customer data, or why not', async () => {
  // The processor's schema too, its tables named schema-qualified (processor.transfers).
  const { rows } = await sql<{ table: string }>`SELECT CASE WHEN table_schema = current_schema() THEN table_name
      ELSE table_schema || '.' || table_name END AS table
    FROM information_schema.tables
    WHERE table_schema IN (current_schema(), 'processor') AND table_type = 'BASE TABLE' ORDER BY 1`.execute(t.db);
  const declared = new Set([...Object.keys(CUSTOMER_DATA_COLUMNS), ...Object.keys(TABLES_WITHOUT_CUSTOMER_DATA)]);
  expect(rows.map((row) => row.table).filter((table) => !declared.has(table)), 'tables to declare in erasure-columns.ts').toEqual([]);
  expect([...declared].filter((table) => !rows.some((row) => row.table === table)), 'declared tables that do not exist').toEqual([]);
  expect(Object.keys(CUSTOMER_DATA_COLUMNS).filter((table) => table in TABLES_WITHOUT_CUSTOMER_DATA)).toEqual([]);
});

it('declares every text and json column of the tables that hold customer data, and only those', async () => {
  const columns = await textColumns();
  for (const [table, declared] of Object.entries(CUSTOMER_DATA_COLUMNS)) {
    const actual = columns.filter((column) => column.table === table).map((column) => column.column).sort();
    expect(actual, `${table}: every text or json column, declared in erasure-columns.ts`).toEqual(Object.keys(declared).sort());
  }
});
