import { actorOf } from '../../audit/activity.ts';
import type { OperationContext } from '../../core/context.ts';
import { ApiError } from '../../core/errors.ts';
import { formatAmount } from '../../core/money.ts';
import { assertWritable } from '../shared/business-rules.ts';
import { deriveOrder } from './derive.ts';
import { getOrder } from './queries.ts';
import { toOrderOut, type OrderOut, type ReportOrderEventInput } from './schemas.ts';

/**
 * Records a cancellation or refund the merchant made elsewhere on the order's timeline. It
 * changes no payment: money already paid stays paid (spec 3 rule 6); the timeline says what the
 * merchant did about it.
 */
export async function reportOrderEvent(ctx: OperationContext, input: ReportOrderEventInput): Promise<OrderOut> {
  const { principal } = ctx;
  assertWritable(principal);
  const now = ctx.clock.now();
  const parts = await getOrder(ctx.db, principal, input.id);
  const paid = deriveOrder(parts.payments, now).amountPaidMinor;
  if (input.type === 'refunded') {
    const refunded = parts.timeline.filter((entry) => entry.type === 'refunded').reduce((sum, entry) => sum + (entry.amount_minor ?? 0), 0);
    const amount = input.amount ?? paid - refunded;
    if (amount <= 0 || refunded + amount > paid) {
      throw new ApiError('invalid_amount', `Refunds cannot exceed what was paid: ${formatAmount(paid)} ${parts.order.currency}, ` +
        `of which ${formatAmount(refunded)} is already refunded.`, 'amount');
    }
    input = { ...input, amount };
  } else if (input.amount !== undefined) {
    throw new ApiError('invalid_amount', 'amount goes only with type "refunded".', 'amount');
  }
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('order_timeline').values({
      order_id: parts.order.id, type: input.type, amount_minor: input.amount ?? null, reason: input.reason ?? null,
      actor: actorOf(principal), created_at: now,
    }).execute();
    await trx.updateTable('orders').set({ updated_at: now }).where('id', '=', parts.order.id).execute();
  });
  return toOrderOut(await getOrder(ctx.db, principal, input.id), now);
}
