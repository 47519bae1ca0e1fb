import { sql } from 'kysely';
import { DAY } from '../core/clock.ts';
import type { AppContext } from '../core/context.ts';
import type { Db } from '../db/database.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../resources/checkout-sessions/idempotency.ts';
import { forgetExpiredSessions } from '../dashboard/sessions.ts';
import { CLIENT_UNUSED_EXPIRY_MS } from '../oauth/clients.ts';

/** Finished deliveries, and everything of a removed endpoint, stay in the log this long (spec 8). */
export const DELIVERY_LOG_RETENTION_MS = 30 * DAY;
// Rows deleted per statement: each batch is its own short transaction.
const BATCH = 5_000;

/** Runs a deleting statement until it deletes less than a batch; returns the total. */
async function inBatches(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await run();
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

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
 * Deletes what is remembered only for a while: Idempotency-Keys past their 24 hours, finished
 * deliveries (with their attempts) past 30 days, removed endpoints' history past 30 days, a
 * rolled secret's previous secret once it stops signing, and ended dashboard sessions. Each kind
 * in its own statements, in batches, so one kind's backlog never holds up another.
 */
export async function forgetExpired(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  const now = ctx.clock.now().getTime();
  const logCutoff = new Date(now - DELIVERY_LOG_RETENTION_MS);
  const keys = await inBatches(async () => Number((await sql`
    DELETE FROM idempotency_keys WHERE (business_id, livemode, key) IN (
      SELECT business_id, livemode, key FROM idempotency_keys WHERE created_at <= ${new Date(now - IDEMPOTENCY_WINDOW_MS)} LIMIT ${BATCH})`.execute(ctx.db)).numAffectedRows ?? 0n));
  const finished = await inBatches(() => deleteDeliveries(ctx.db, sql`finished_at <= ${logCutoff}`));
  const ofRemoved = await inBatches(() => deleteDeliveries(ctx.db,
    sql`endpoint_id IN (SELECT id FROM webhook_endpoints WHERE deleted_at <= ${logCutoff})`));
  const secrets = await ctx.db
    .updateTable('webhook_endpoints')
    .set({ previous_secret_encrypted: null, previous_secret_expires_at: null })
    .where('previous_secret_expires_at', '<=', new Date(now))
    .executeTakeFirst();
  const sessions = await forgetExpiredSessions(ctx);
  const oauth = await forgetOAuthLeftovers(ctx);
  return keys + finished + ofRemoved + Number(secrets.numUpdatedRows) + sessions + oauth;
}

/**
 * The authorization server's leftovers: requests and codes past their life, refresh tokens past
 * theirs, and clients (registered or known by a metadata document) nobody used for 90 days, with
 * nothing connected through them.
 */
async function forgetOAuthLeftovers(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  const now = ctx.clock.now();
  const dayAgo = new Date(now.getTime() - DAY);
  const requests = await ctx.db.deleteFrom('oauth_requests').where('expires_at', '<=', dayAgo).executeTakeFirst();
  const codes = await ctx.db.deleteFrom('oauth_codes').where('expires_at', '<=', dayAgo).executeTakeFirst();
  const refresh = await ctx.db.deleteFrom('oauth_refresh_tokens').where('expires_at', '<=', dayAgo).executeTakeFirst();
  const clients = await ctx.db.deleteFrom('oauth_clients')
    .where('last_used_at', '<=', new Date(now.getTime() - CLIENT_UNUSED_EXPIRY_MS))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('agent_connections as c').select('c.id')
      .whereRef('c.client_id', '=', 'oauth_clients.client_id').where('c.disconnected_at', 'is', null))))
    .executeTakeFirst();
  return [requests, codes, refresh, clients].reduce((sum, result) => sum + Number(result.numDeletedRows), 0);
}
