import { sql } from 'kysely';
import { perTurnByKey } from '../core/per-turn.ts';
import type { Db } from '../db/database.ts';

// Recording successful automatic attempts, the common case of a delivery, many in one
// statement: those that finish in the same turn of the event loop (a busy worker's replies come
// in together) share one round trip. Each is applied only if its attempt was not recorded
// already (attempt numbers), and logged in any case, since it was sent: as one at a time did.
// The update runs first and the log reads what it returns: after an erasure that held the
// delivery commits, its erasures count says the endpoint's answer may echo the details (deliveries.ts).

/** A successful automatic attempt, as the log and the delivery keep it. */
export interface Success {
  delivery_id: string;
  endpoint_id: string;
  number: number;
  url: string;
  sent_at: Date;
  duration_ms: number;
  status_code: number | null;
  response_excerpt: string | null;
  /** When the delivery finished (recorded). */
  finished_at: Date;
  /** The delivery's erasures as loaded before the send. */
  erasures: number;
}

const COLUMNS = 'delivery_id text, endpoint_id text, number int, url text, sent_at timestamptz, duration_ms int, status_code int, response_excerpt text, finished_at timestamptz, erasures int';

function writeSuccesses(db: Db, successes: readonly Success[]) {
  return db
    // One JSON parameter, so the statement's text (and its prepared plan) is the same for any count.
    .with('sent', () => sql<Success>`(SELECT * FROM jsonb_to_recordset(${JSON.stringify(successes)}::jsonb) AS sent(${sql.raw(COLUMNS)}))`)
    .with('recorded', (qc) => qc.updateTable('webhook_deliveries as d')
      .from('sent')
      .set((eb) => ({
        status: 'succeeded',
        attempts: eb.ref('sent.number'),
        last_attempt_at: eb.ref('sent.sent_at'),
        last_status: eb.ref('sent.status_code'),
        last_error: null,
        next_attempt_at: null,
        finished_at: eb.ref('sent.finished_at'),
      }))
      .whereRef('d.id', '=', 'sent.delivery_id')
      .where('d.status', '=', 'pending')
      .where('d.attempts', '=', sql<number>`sent.number - 1`)
      .returning(['d.id', 'd.erasures']))
    .insertInto('webhook_delivery_attempts')
    .columns(['delivery_id', 'endpoint_id', 'trigger', 'number', 'url', 'sent_at', 'duration_ms', 'succeeded', 'status_code', 'error', 'response_excerpt'])
    .expression((eb) => eb.selectFrom('sent')
      .leftJoin('recorded', 'recorded.id', 'sent.delivery_id')
      .select([
        'sent.delivery_id', 'sent.endpoint_id', sql.lit('automatic').as('trigger'), 'sent.number', 'sent.url', 'sent.sent_at',
        'sent.duration_ms', sql.lit(true).as('succeeded'), 'sent.status_code', sql.lit(null).as('error'),
        // A success already recorded (a job run twice) updates nothing: then its row, locked so
        // it too waits for an erasure (evaluated only then: coalesce stops at the first value).
        sql<string | null>`CASE WHEN coalesce(recorded.erasures,
          (SELECT erasures FROM webhook_deliveries WHERE id = sent.delivery_id FOR SHARE)) = sent.erasures THEN sent.response_excerpt END`.as('response_excerpt'),
      ]))
    .execute();
}

/** Records a successful automatic attempt, batched with the others of this turn. */
export const recordSuccess: (db: Db, success: Success) => Promise<void> = perTurnByKey(async (db: Db, batch: readonly Success[]) => {
  await writeSuccesses(db, batch);
  return batch.map(() => undefined);
});
