import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.ts';

// int8 columns hold minor units and counts, far below 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function openDatabase(connectionString: string, poolSize: number): DatabaseHandle {
  const pool = new pg.Pool({ connectionString, max: poolSize, application_name: 'payment-service' });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}

/** Unique-violation check for a given constraint or index name. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: string; constraint?: string };
  return e.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
