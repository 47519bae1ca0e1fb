import { sql } from 'kysely';
import { DAY, type Clock } from '../core/clock.ts';
import { BATCH, inBatches } from '../db/batches.ts';
import type { Db } from '../db/database.ts';

/** Finished deliveries, and everything of a removed endpoint, stay in the log this long (spec 8). */
export const DELIVERY_LOG_RETENTION_MS = 30 * DAY;

/** Deletes a batch of the deliveries `which` selects, with their attempts, in one statement. */
async function deleteDeliveries(db: Db, which: ReturnType<typeof sql<string>>): Promise<number> {
  const result = await sql<{ deleted: number }>`
    WITH gone AS (
      DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE ${which} LIMIT ${BATCH}) RETURNING id
    ), attempts AS (
      DELETE FROM webhook_delivery_attempts a USING gone WHERE a.delivery_id = gone.id
    )
    SELECT count(*)::int AS deleted FROM gone`.execute(db);
  return result.rows[0]?.deleted ?? 0;
}

/**
 * The delivery log's retention (spec 6.3, 8): finished deliveries (with their attempts) past 30
 * days, removed endpoints' history past 30 days, replays past 30 days, and a rolled secret's
 * previous secret once it stops signing.
 */
export async function forgetDeliveryHistory(ctx: { db: Db; clock: Clock }): Promise<number> {
  const now = ctx.clock.now().getTime();
  const logCutoff = new Date(now - DELIVERY_LOG_RETENTION_MS);
  const finished = await inBatches(() => deleteDeliveries(ctx.db, sql`finished_at <= ${logCutoff}`));
  const ofRemoved = await inBatches(() => deleteDeliveries(ctx.db,
    sql`endpoint_id IN (SELECT id FROM webhook_endpoints WHERE deleted_at <= ${logCutoff})`));
  // Replays, with the deliveries they list, once the log they acted on is gone.
  const replays = await ctx.db.deleteFrom('webhook_replays').where('created_at', '<=', logCutoff).executeTakeFirst();
  const secrets = await ctx.db
    .updateTable('webhook_endpoints')
    .set({ previous_secret_encrypted: null, previous_secret_expires_at: null })
    .where('previous_secret_expires_at', '<=', new Date(now))
    .executeTakeFirst();
  return finished + ofRemoved + Number(replays.numDeletedRows) + Number(secrets.numUpdatedRows);
}
