import type { OperationContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import { assertWritable } from '../shared/business-rules.ts';
import { getOrder, getOrderRow } from './queries.ts';
import { toOrderOut, type OrderOut, type UpdateOrderInput } from './schemas.ts';

/**
 * Sets an order's fulfilment (none, unfulfilled, fulfilled). Becoming fulfilled records when
 * (now unless fulfilled_at is sent); leaving fulfilled clears it.
 */
export async function updateOrder(ctx: OperationContext, input: UpdateOrderInput): Promise<OrderOut> {
  const { principal } = ctx;
  assertWritable(principal);
  if (input.fulfillment === undefined && input.fulfilled_at === undefined) {
    throw new ApiError('invalid_fulfillment', 'Send fulfillment, fulfilled_at or both.');
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const current = await getOrderRow(trx, principal, input.id, { narrow: (query) => query.forUpdate() });
    const fulfillment = input.fulfillment ?? current.fulfillment;
    if (fulfillment !== 'fulfilled' && input.fulfilled_at != null) {
      throw new ApiError('invalid_fulfillment', 'fulfilled_at goes only with fulfillment "fulfilled".', 'fulfilled_at');
    }
    const fulfilledAt = fulfillment !== 'fulfilled'
      ? null
      : input.fulfilled_at != null ? new Date(input.fulfilled_at * 1000) : input.fulfilled_at === null || current.fulfilled_at === null ? now : current.fulfilled_at;
    await trx.updateTable('orders').set({ fulfillment, fulfilled_at: fulfilledAt, updated_at: now }).where('id', '=', current.id).execute();
  });
  return toOrderOut(await getOrder(ctx.db, principal, input.id), now, principal);
}
