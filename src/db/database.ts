import pg from 'pg';
import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Database } from './schema.ts';

// int8 columns hold minor units and counts, far below 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

// Every distinct query text becomes a named statement: PostgreSQL parses and plans it once per
// connection instead of on every call. The texts come from our own query builders, so they are
// few; a text with several statements (a migration) cannot be prepared, so migrations run on a
// handle opened without this.
function statementName(text: string, names: Map<string, string>): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `q_${createHash('sha1').update(text).digest('hex')}`;
    names.set(text, name);
  }
  return name;
}

function preparingPool(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  // One wrapper per connection, kept as long as the connection: Kysely keeps its own connection
  // object per client it is given, so a new wrapper on every checkout would make it build a new
  // one for every query.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = {
          query: (text: string, values: readonly unknown[]) =>
            client.query({ name: statementName(text, names), text, values: [...values] }),
          release: () => client.release(),
        } as unknown as PostgresPoolClient;
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
    options: pool.options,
  };
}

/** settings: session settings every connection starts with (sent in its startup packet). */
export function openDatabase(connectionString: string, poolSize: number, options: { prepare?: boolean; settings?: Record<string, string> } = {}): DatabaseHandle {
  const startup = Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`).join(' ');
  const pool = new pg.Pool({ connectionString, max: poolSize, application_name: 'payment-service', ...(startup ? { options: startup } : {}) });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: options.prepare ? preparingPool(pool) : pool }) });
  return { db, pool, close: () => db.destroy() };
}

/** Unique-violation check for a given constraint or index name. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: string; constraint?: string };
  return e.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
