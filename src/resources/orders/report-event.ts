import { actorOf } from '../../audit/activity.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { sql } from 'kysely';
import { ApiError } from '../../core/errors.ts';
import { formatAmount } from '../../core/money.ts';
import { assertWritable } from '../shared/business-rules.ts';
import { deriveOrder } from './derive.ts';
import { getOrder, getOrderRow } from './queries.ts';
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
  if (input.type !== 'refunded' && input.amount !== undefined) {
    throw new ApiError('invalid_amount', 'amount goes only with type "refunded".', 'amount');
  }
  // The order is locked while refunds are checked against what was paid, so two refunds at once
  // cannot both fit in the same money.
  await ctx.db.transaction().execute(async (trx) => {
    const order = await getOrderRow(trx, principal, input.id, { narrow: (query) => query.forUpdate() });
    let amount: number | null = null;
    if (input.type === 'refunded') {
      const payments = await trx.selectFrom('payments').selectAll().where('order_id', '=', order.id).execute();
      const paid = deriveOrder(payments, now).amountPaidMinor;
      const previous = await trx.selectFrom('order_timeline').select(sql<number>`coalesce(sum(amount_minor), 0)::bigint`.as('total'))
        .where('order_id', '=', order.id).where('type', '=', 'refunded').executeTakeFirstOrThrow();
      const refunded = Number(previous.total);
      amount = input.amount ?? paid - refunded;
      if (amount <= 0 || refunded + amount > paid) {
        throw new ApiError('invalid_amount', `amount cannot exceed what was paid: ${formatAmount(paid)} ${order.currency}, ` +
          `of which ${formatAmount(refunded)} is already refunded.`, 'amount');
      }
    }
    await trx.insertInto('order_timeline').values({
      order_id: order.id, type: input.type, amount_minor: amount, reason: input.reason ?? null, actor: actorOf(principal), created_at: now,
    }).execute();
    await trx.updateTable('orders').set({ updated_at: now }).where('id', '=', order.id).execute();
  });
  return toOrderOut(await getOrder(ctx.db, principal, input.id), now, principal);
}
