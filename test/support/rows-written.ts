import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';

// What a request wrote, table by table: every ordinary table of the database (partitions, not
// their parents) read before and after, rows matched by primary key. For tests that must see
// every table a write touches, including ones nobody thought to look at.

export type Row = Record<string, unknown>;

export interface TableChanges {
  inserted: Row[];
  /** Each changed row as it is now, with the columns that changed. */
  updated: Array<{ row: Row; changed: string[] }>;
  deleted: Row[];
}

interface Table {
  name: string;
  key: string[];
}

async function tablesOf(db: Db): Promise<Table[]> {
  const { rows } = await sql<{ name: string; key: string[] | null }>`
    SELECT format('%I.%I', n.nspname, c.relname) AS name,
      (SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = c.oid AND i.indisprimary) AS key
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
    ORDER BY 1`.execute(db);
  return rows.map((row) => ({ name: row.name, key: row.key ?? [] }));
}

type Snapshot = Map<string, Map<string, Row>>;

async function snapshot(db: Db, tables: readonly Table[]): Promise<Snapshot> {
  const all: Snapshot = new Map();
  for (const table of tables) {
    const { rows } = await sql<{ row: Row }>`SELECT to_jsonb(t) AS row FROM ${sql.raw(table.name)} t`.execute(db);
    // A table without a primary key: each row is its own key.
    const keyOf = (row: Row) => JSON.stringify(table.key.length > 0 ? table.key.map((column) => row[column]) : row);
    all.set(table.name, new Map(rows.map(({ row }) => [keyOf(row), row])));
  }
  return all;
}

/** Runs `act` and answers the rows it inserted, changed and deleted, by table (tables it left alone are absent). */
export async function rowsWritten(db: Db, act: () => Promise<void>): Promise<Record<string, TableChanges>> {
  const tables = await tablesOf(db);
  const before = await snapshot(db, tables);
  await act();
  const after = await snapshot(db, tables);
  const changes: Record<string, TableChanges> = {};
  for (const { name } of tables) {
    const [was, now] = [before.get(name)!, after.get(name)!];
    const table: TableChanges = { inserted: [], updated: [], deleted: [] };
    for (const [key, row] of now) {
      const old = was.get(key);
      if (old === undefined) table.inserted.push(row);
      else {
        const changed = Object.keys(row).filter((column) => JSON.stringify(row[column]) !== JSON.stringify(old[column]));
        if (changed.length > 0) table.updated.push({ row, changed });
      }
    }
    for (const [key, row] of was) if (!now.has(key)) table.deleted.push(row);
    if (table.inserted.length + table.updated.length + table.deleted.length > 0) changes[name] = table;
  }
  return changes;
}
