import { recordActivity } from '../../audit/activity.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { notFound } from '../../core/errors.ts';
import { ownedBy } from '../../db/owned.ts';
import { removeEndpoints } from './remove.ts';

/**
 * Removes an endpoint: no more events, pending retries stopped, its secret erased, its history
 * kept for the dashboard (30 days).
 * Allowed even while the account is suspended or archived (spec 4.4).
 */
export async function deleteWebhookEndpoint(ctx: OperationContext, input: { id: string }): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
  const { principal } = ctx;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const removed = await removeEndpoints(trx, (eb) => eb.and([eb('id', '=', input.id), ownedBy('webhook_endpoints', principal)]), now);
    if (removed.length === 0) throw notFound('webhook endpoint', input.id);
    await recordActivity(trx, principal, 'webhook_endpoint.deleted', input.id, {}, now);
  });
  return { id: input.id, object: 'webhook_endpoint', deleted: true };
}
