import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { Db } from './database.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

// Plain SQL files in migrations/, applied in name order by Kysely's migrator, which locks
// against concurrent runs (server and CLI) and runs each file in a transaction.
async function sqlMigrations(dir: string): Promise<Record<string, Migration>> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const migrations: Record<string, Migration> = {};
  for (const file of files) {
    const text = await readFile(path.join(dir, file), 'utf8');
    migrations[file.replace(/\.sql$/, '')] = { up: (db) => sql.raw(text).execute(db).then(() => undefined) };
  }
  return migrations;
}

export async function migrate(db: Db, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => sqlMigrations(dir) } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
