import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { Db } from '../src/db/database.ts';
import type { Database } from '../src/db/schema.ts';

// A database handle for the background-job measurements: the same kind of pool the service
// uses, with every statement and every transaction timed on its connection. A row lock is held
// until its transaction ends (and a statement's locks until it ends), so the longest
// transaction, or the longest statement outside one, is the longest any lock was held.

export interface Holds {
  statements: number;
  transactions: number;
  /** The longest single statement, in ms, and the start of its text. */
  longestStatementMs: number;
  longestStatement: string;
  /** The longest transaction (begin to commit or rollback), in ms. */
  longestTransactionMs: number;
}

export interface TimedDb {
  db: Db;
  /** What was timed since the last reset. */
  holds(): Holds;
  reset(): void;
  close(): Promise<void>;
}

const empty = (): Holds => ({ statements: 0, transactions: 0, longestStatementMs: 0, longestStatement: '', longestTransactionMs: 0 });

export function openTimedDb(connectionString: string, poolSize: number): TimedDb {
  const pool = new pg.Pool({ connectionString, max: poolSize, application_name: 'bench-jobs' });
  pool.on('error', () => undefined);
  let holds = empty();
  const timed: PostgresPool = {
    async connect() {
      const client = await pool.connect();
      let transactionStart: number | undefined;
      return {
        async query(text: string, values: readonly unknown[]) {
          const verb = text.trim().toLowerCase();
          if (verb === 'begin' || verb.startsWith('start transaction')) transactionStart = performance.now();
          const start = performance.now();
          try {
            return await client.query(text, [...values]);
          } finally {
            const end = performance.now();
            holds.statements += 1;
            if (end - start > holds.longestStatementMs) {
              holds.longestStatementMs = end - start;
              holds.longestStatement = text.replace(/\s+/g, ' ').slice(0, 80);
            }
            if ((verb === 'commit' || verb === 'rollback') && transactionStart !== undefined) {
              holds.transactions += 1;
              holds.longestTransactionMs = Math.max(holds.longestTransactionMs, end - transactionStart);
              transactionStart = undefined;
            }
          }
        },
        release: () => client.release(),
      } as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
    options: pool.options,
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: timed }) });
  return {
    db,
    holds: () => ({ ...holds }),
    reset() {
      holds = empty();
    },
    close: () => db.destroy(),
  };
}
