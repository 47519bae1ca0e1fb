import { sql, type RawBuilder } from 'kysely';
import { fromKysely } from 'pg-boss';
import type { PgBoss } from 'pg-boss';
import { insertJobs } from 'pg-boss/dist/plans.js';
import type { Db } from '../db/database.ts';

// The pg-boss queues, and sending to them inside the caller's transaction, so a job exists
// exactly when the change that asked for it committed.
export const QUEUES = {
  /** One job per delivery attempt of a webhook event (sent by the webhook worker). */
  delivery: 'webhook-delivery',
  /** Every minute: expire unpaid payments whose time is up, with payment.expired. */
  expiry: 'expire-payments',
  /** Every hour: forget what is kept only for a while (Idempotency-Keys after 24 hours). */
  retention: 'retention',
  /** Every five minutes: re-queue deliveries whose job was lost. */
  sweep: 'webhook-sweep',
  /** A replay of an endpoint's failed deliveries, a batch per job (each job queues the next). */
  replay: 'webhook-replay',
  /** One job per outbox mail: sent over SMTP, retried by pg-boss with backoff. */
  mail: 'mail',
  /** Every hour, and as the workers start: fetch the exchange rate feed (FX_RATES_URL). */
  fxRates: 'fx-rates',
} as const;

/**
 * A mail's job is retried by pg-boss on failure: after about 1, 2, 4, 8, 16 and 32 minutes
 * (exponential backoff from 60 seconds, with jitter), so the seventh attempt is the last.
 */
export const MAIL_RETRIES = { retryLimit: 6, retryDelay: 60, retryBackoff: true, retryDelayMax: 3600 } as const;

/** A mail job: which outbox row to send. */
export interface MailJobData {
  mailId: string;
}

/** A replay job: which replay to go on with. */
export interface ReplayJobData {
  replayId: number;
}

/** A delivery job: which attempt (1 to 7) of which delivery it makes. */
export interface DeliveryJobData {
  deliveryId: string;
  attempt: number;
}

/**
 * The channel a statement that queues first attempts notifies (payloadless, so PostgreSQL sends
 * one per transaction), and an idle delivery worker listens on, to fetch at once instead of at
 * its next poll.
 */
export const DELIVERY_CHANNEL = 'webhook_delivery_jobs';

export interface JobSender {
  /**
   * A data-modifying statement for a WITH query: queues the first attempt of each delivery whose
   * `id` and `endpoint_id` the query's CTE `source` returns, so the jobs commit with the statement
   * that wrote the deliveries (one round trip, no transaction needed).
   */
  firstAttemptsOf(source: string): RawBuilder<Record<string, never>>;
  /**
   * An expression for the same query's select list: notifies DELIVERY_CHANNEL when the CTE
   * `source` returned a row, so idle workers wake when the statement's transaction commits.
   */
  wakeWorkersFor(source: string): RawBuilder<number>;
  /** Queues a later attempt of a delivery to endpoint `endpointId`, to start at `startAfter`, in the transaction `db` belongs to. */
  enqueueAttempt(db: Db, job: DeliveryJobData, endpointId: string, startAfter: Date): Promise<void>;
  /** Queues a replay's next batch, in the transaction `db` belongs to. */
  enqueueReplay(db: Db, job: ReplayJobData): Promise<void>;
  /** As firstAttemptsOf, for the mail queue: a job for each outbox row whose id the CTE `source` returns. */
  mailJobsOf(source: string): RawBuilder<Record<string, never>>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * pg-boss's own insert statement for a queue (the one boss.insert runs), taking its jobs from a
 * CTE instead of a parameter: `$1` is the JSON array of jobs to insert. `job` makes a job's
 * fields (`'data', …` and any of boss.insert's other fields, such as `'groupId', …`) from the
 * CTE's row.
 */
function insertFromStatement(schema: string, table: string, queue: string, job: (source: string) => string): (source: string) => string {
  const statement = insertJobs(schema, { table, name: queue, returnId: false, notify: false });
  const parameter = '$1::text::json';
  // A pg-boss whose statement no longer has exactly this one parameter is not one this was written for.
  if (statement.split(parameter).length !== 2 || /\$[2-9]/.test(statement)) {
    throw new Error('pg-boss insert statement changed shape: update insertFromStatement for this pg-boss version.');
  }
  return (source) => {
    if (!IDENTIFIER.test(source)) throw new Error(`Not a CTE name: ${source}`);
    return statement.replace(parameter, `(SELECT coalesce(json_agg(json_build_object(${job(source)})), '[]'::json) FROM ${source})`);
  };
}

/**
 * The delivery queue's insert from a CTE: each job's data is a DeliveryJobData, the first attempt
 * of the delivery; its pg-boss group is the endpoint, which the worker's per-endpoint cap counts.
 */
export function deliveryInsertStatement(schema: string, table: string): (source: string) => string {
  return insertFromStatement(schema, table, QUEUES.delivery,
    (source) => `'data', json_build_object('deliveryId', ${source}.id, 'attempt', 1), 'groupId', ${source}.endpoint_id`);
}

/** The mail queue's insert from a CTE: each job's data is a MailJobData. */
export function mailInsertStatement(schema: string, table: string): (source: string) => string {
  return insertFromStatement(schema, table, QUEUES.mail, (source) => `'data', json_build_object('mailId', ${source}.id)`);
}

export function jobSender(boss: PgBoss, tables: { delivery: string; mail: string }, schema: string): JobSender {
  const insertFrom = deliveryInsertStatement(schema, tables.delivery);
  const insertMailFrom = mailInsertStatement(schema, tables.mail);
  return {
    // Parenthesised: Kysely puts a raw CTE body after AS as it is.
    firstAttemptsOf: (source) => sql.raw<Record<string, never>>(`(${insertFrom(source)})`),
    mailJobsOf: (source) => sql.raw<Record<string, never>>(`(${insertMailFrom(source)})`),
    // One NOTIFY at most (LIMIT 1), and PostgreSQL folds a transaction's identical ones into one.
    wakeWorkersFor: (source) => {
      if (!IDENTIFIER.test(source)) throw new Error(`Not a CTE name: ${source}`);
      return sql.raw<number>(`(SELECT count(*) FROM (SELECT pg_notify('${DELIVERY_CHANNEL}', '') FROM ${source} LIMIT 1) AS woken)::int`);
    },
    async enqueueAttempt(db, job, endpointId, startAfter) {
      await boss.insert(QUEUES.delivery, [{ data: job, startAfter: startAfter.toISOString(), group: { id: endpointId } }], { db: fromKysely(db) });
    },
    async enqueueReplay(db, job) {
      await boss.insert(QUEUES.replay, [{ data: job }], { db: fromKysely(db) });
    },
  };
}
