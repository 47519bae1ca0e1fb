import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { DEFAULT_MIGRATION_TABLE, Migrator, type Migration } from 'kysely/migration';
import type { Db } from './database.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

// Plain SQL files in migrations/, applied in name order by Kysely's migrator, which locks
// against concurrent runs (server and CLI) and applies every pending file in one transaction: a
// failure leaves none of them applied. There are no down-migrations (docs/run-it.md, Upgrades).
/** The migrations this code brings: the files' names without `.sql`, in order. */
export async function migrationNames(dir: string = MIGRATIONS_DIR): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort().map((file) => file.slice(0, -'.sql'.length));
}

async function sqlMigrations(dir: string): Promise<Record<string, Migration>> {
  const migrations: Record<string, Migration> = {};
  for (const name of await migrationNames(dir)) {
    const text = await readFile(path.join(dir, `${name}.sql`), 'utf8');
    migrations[name] = { up: (db) => sql.raw(text).execute(db).then(() => undefined) };
  }
  return migrations;
}

/**
 * Which of `expected` the database has not applied: all of them on a database never migrated.
 * Migrations a newer release applied are not this code's concern.
 */
export async function pendingMigrations(db: Db, expected: readonly string[]): Promise<string[]> {
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    return expected.filter((name) => !applied.has(name));
  } catch (error) {
    // undefined_table: no migration has ever run here.
    if ((error as { code?: string }).code === '42P01') return [...expected];
    throw error;
  }
}

export async function migrate(db: Db, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => sqlMigrations(dir) } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
