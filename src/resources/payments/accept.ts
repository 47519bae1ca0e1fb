import { recordActivity } from '../../audit/activity.ts';
import { ApiError } from '../../core/errors.ts';
import { defineAction } from '../../verbs/action.ts';
import { idInput } from '../shared/ids.ts';
import { applyMove } from './machine.ts';
import { getPayment } from './queries.ts';
import { assertNoRemainder } from './remainder.ts';
import { toPaymentOut } from './schemas.ts';

/**
 * The merchant accepts a held payment of the caller's business and mode as paid (spec 3), only
 * when its hold is acceptable: payment.paid follows; merchant_received stays null and no
 * payment.updated comes.
 */
export const acceptHeldPayment = defineAction({
  name: 'accept_held_payment',
  title: 'Accept a held payment as paid',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: idInput('pay'),
  async run(ctx, input) {
    const { principal } = ctx;
    await ctx.db.transaction().execute(async (trx) => {
      const payment = await getPayment(trx, principal, input.id);
      if (payment.status !== 'held') throw new ApiError('invalid_state', `Payment ${payment.id} is ${payment.status}, not held.`);
      if (!payment.hold_acceptable) throw new ApiError('hold_not_acceptable', `Payment ${payment.id} cannot be accepted: ${payment.hold_reason ?? 'its hold is not acceptable'}.`);
      await assertNoRemainder(trx, principal, payment, ctx.clock.now());
      const accepted = await applyMove(trx, ctx, payment.id, 'accept', { set: { paid_at: ctx.clock.now() } });
      if (!accepted) throw new ApiError('invalid_state', `Payment ${payment.id} changed meanwhile; try again.`);
      await recordActivity(trx, principal, 'payment.accepted', payment.id, { hold_reason: payment.hold_reason }, ctx.clock.now());
    });
    return toPaymentOut(await getPayment(ctx.db, principal, input.id), ctx.config.baseUrl, ctx.clock.now());
  },
});
