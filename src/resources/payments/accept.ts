import { RefusedError } from '../../core/errors.ts';
import type { AppContext } from '../../verbs/context.ts';
import { applyMove } from './machine.ts';

export class AcceptError extends RefusedError {}

/**
 * The merchant accepts a held payment as paid (dashboard; the CLI for now): only when its hold
 * is acceptable. payment.paid follows; merchant_received stays null and no payment.updated comes.
 */
export async function acceptHeldPayment(ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'jobs'>, paymentId: string) {
  return ctx.db.transaction().execute(async (trx) => {
    const payment = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).forUpdate().executeTakeFirst();
    if (!payment) throw new AcceptError(`No payment ${paymentId}.`);
    if (payment.status !== 'held') throw new AcceptError(`Payment ${paymentId} is ${payment.status}, not held.`);
    if (!payment.hold_acceptable) throw new AcceptError(`Payment ${paymentId} cannot be accepted: ${payment.hold_reason ?? 'its hold is not acceptable'}.`);
    const accepted = await applyMove(trx, ctx, paymentId, 'accept', { set: { paid_at: ctx.clock.now() } });
    if (!accepted) throw new AcceptError(`Payment ${paymentId} changed meanwhile; try again.`);
    return accepted;
  });
}
