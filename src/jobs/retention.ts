import type { AppContext } from '../core/context.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../resources/checkout-sessions/idempotency.ts';

/** Deletes what is remembered only for a while: Idempotency-Keys past their 24 hours. */
export async function forgetExpired(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);
  const result = await ctx.db.deleteFrom('idempotency_keys').where('created_at', '<=', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
