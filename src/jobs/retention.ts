import { DAY } from '../core/clock.ts';
import type { AppContext } from '../core/context.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../resources/checkout-sessions/idempotency.ts';

/** Finished deliveries, and everything of a removed endpoint, stay in the log this long (spec 8). */
export const DELIVERY_LOG_RETENTION_MS = 30 * DAY;

/**
 * Deletes what is remembered only for a while: Idempotency-Keys past their 24 hours, finished
 * deliveries (with their attempts) past 30 days, removed endpoints' history past 30 days, and a
 * rolled secret's previous secret once it stops signing. Returns how many rows went.
 */
export async function forgetExpired(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  const now = ctx.clock.now().getTime();
  const logCutoff = new Date(now - DELIVERY_LOG_RETENTION_MS);
  return ctx.db.transaction().execute(async (trx) => {
    const keys = await trx.deleteFrom('idempotency_keys').where('created_at', '<=', new Date(now - IDEMPOTENCY_WINDOW_MS)).executeTakeFirst();
    const removedEndpoints = trx.selectFrom('webhook_endpoints').select('id').where('deleted_at', '<=', logCutoff);
    const deliveries = await trx
      .deleteFrom('webhook_deliveries')
      .where((eb) => eb.or([eb('finished_at', '<=', logCutoff), eb('endpoint_id', 'in', removedEndpoints)]))
      .returning('id')
      .execute();
    const attempts = deliveries.length === 0 ? { numDeletedRows: 0n } : await trx
      .deleteFrom('webhook_delivery_attempts')
      .where('delivery_id', 'in', deliveries.map((row) => row.id))
      .executeTakeFirst();
    const secrets = await trx
      .updateTable('webhook_endpoints')
      .set({ previous_secret_encrypted: null, previous_secret_expires_at: null })
      .where('previous_secret_expires_at', '<=', new Date(now))
      .executeTakeFirst();
    return Number(keys.numDeletedRows) + deliveries.length + Number(attempts.numDeletedRows) + Number(secrets.numUpdatedRows);
  });
}
