import { recordActivity } from '../../audit/activity.ts';
import type { OperationContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { ownedBy } from '../../db/owned.ts';
import { cancelPendingDeliveries } from '../../webhooks/deliveries.ts';

/**
 * Removes an endpoint: no more events, pending retries stopped, its secret erased, its history
 * kept for the dashboard (30 days).
 * Allowed even while the account is suspended or archived (spec 4.4).
 */
export async function deleteWebhookEndpoint(ctx: OperationContext, input: { id: string }): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
  const { principal } = ctx;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const removed = await trx
      .updateTable('webhook_endpoints')
      .set({ deleted_at: now, secret_encrypted: null, previous_secret_encrypted: null, previous_secret_expires_at: null })
      .where('id', '=', input.id)
      .where(ownedBy('webhook_endpoints', principal))
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!removed) throw notFound('webhook endpoint', input.id);
    await cancelPendingDeliveries(trx, [removed.id], now);
    await recordActivity(trx, principal, 'webhook_endpoint.deleted', input.id, {}, now);
  });
  return { id: input.id, object: 'webhook_endpoint', deleted: true };
}
