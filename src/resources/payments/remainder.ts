import type { Principal } from '../../auth/principal.ts';
import { recordActivity } from '../../audit/activity.ts';
import { DAY } from '../../core/clock.ts';
import { ApiError } from '../../core/errors.ts';
import { formatAmount, MIN_AMOUNT_MINOR } from '../../core/money.ts';
import type { Db } from '../../db/database.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { defineAction } from '../../verbs/action.ts';
import { deriveOrder } from '../orders/derive.ts';
import { idInput } from '../shared/ids.ts';
import { readStatus } from '../shared/payment-status.ts';
import { newPayment, paymentValues } from './insert.ts';
import { applyMove } from './machine.ts';
import { getPayment } from './queries.ts';
import { toPaymentOut, type PaymentOut, type PaymentWithCustomer } from './schemas.ts';

// The rest of an underpayment (issue 23, docs/remainders.md): from a held payment too little
// arrived at, the merchant asks the buyer for the difference, a new payment on the same order
// that the buyer pays like the first. Once it is paid the order is paid (spec 2.7, 3 rule 7:
// the order follows all its payments), with amount_paid what arrived on both, its total.

/** A remainder is a session the merchant made: it lives as long as one from the API (spec 3: 24 hours). */
const REMAINDER_LIFETIME_MS = DAY;

/** Whether a payment is a held underpayment: acceptable, and part of its amount arrived. */
export function isHeldUnderpayment(payment: Pick<PaymentRow, 'status' | 'hold_acceptable' | 'received_minor' | 'amount_minor'>): boolean {
  const received = payment.received_minor ?? 0;
  return payment.status === 'held' && payment.hold_acceptable && received > 0 && received < payment.amount_minor;
}

/** The latest remainder asked for `paymentId` (of the caller's business and mode), as it reads now; undefined when none was. */
export async function findRemainder(db: Db, principal: Principal, paymentId: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll()
    .where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode).where('remainder_of', '=', paymentId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** A remainder that still counts: being paid, or paid (an expired or failed one may be asked again). */
export function stillCounts(remainder: PaymentRow, now: Date): boolean {
  return ['open', 'pending', 'paid'].includes(readStatus(remainder, now));
}

/** Refuses to accept a held payment whose rest was asked for and still counts (accepting it would count the money twice). */
export async function assertNoRemainder(db: Db, principal: Principal, payment: PaymentRow, now: Date): Promise<void> {
  const remainder = await findRemainder(db, principal, payment.id);
  if (remainder && stillCounts(remainder, now)) {
    throw new ApiError('invalid_state', `The rest of payment ${payment.id} was asked for (${remainder.id}, ${readStatus(remainder, now)}); it cannot also be accepted as paid.`);
  }
}

/** What the dashboard shows of a payment's rest (read with its timeline). */
export interface PaymentRest {
  /** What arrived of a held payment, in the payment's currency (two decimals), as its buyer was told; null for other payments. */
  received: string | null;
  /** A held underpayment's missing amount, in the payment's currency (two decimals); null for other payments. */
  missing: string | null;
  /** Whether the rest can be asked for now (the action decides anyway). */
  askable: boolean;
  /** The latest remainder asked for this payment, as it reads now; null when none was. */
  remainder: PaymentOut | null;
  /** For a remainder: the held payment whose rest it is. */
  of: string | null;
}

export async function readRest(db: Db, principal: Principal, payment: PaymentWithCustomer, baseUrl: string, now: Date): Promise<PaymentRest> {
  const remainder = await findRemainder(db, principal, payment.id);
  const underpaid = isHeldUnderpayment(payment);
  return {
    received: payment.status === 'held' && payment.received_minor !== null ? formatAmount(payment.received_minor) : null,
    missing: underpaid ? formatAmount(payment.amount_minor - (payment.received_minor ?? 0)) : null,
    askable: underpaid && !(remainder && stillCounts(remainder, now)),
    remainder: remainder ? toPaymentOut({ ...remainder, customer_id: payment.customer_id }, baseUrl, now) : null,
    of: payment.remainder_of,
  };
}

export interface RemainderOut {
  /** The payment for the rest: its `url` is the page the buyer pays it on. */
  remainder: PaymentOut;
  /** False when an open remainder already existed and is returned instead. */
  created: boolean;
}

/**
 * Asks the buyer of a held underpayment for the rest: a new open payment on the same order for
 * its total minus what arrived, or the open one asked before (asking twice makes one). Refused
 * when the payment is not a held underpayment, its order is paid, or the rest is below the
 * smallest amount (spec 8).
 */
export const askForRemainder = defineAction({
  name: 'ask_for_remainder',
  title: 'Ask the buyer of a held underpayment for the rest',
  // Who can accept a held payment can ask for the rest instead.
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: idInput('pay'),
  async run(ctx, input): Promise<RemainderOut> {
    const { principal } = ctx;
    const now = ctx.clock.now();
    const { id, created } = await ctx.db.transaction().execute(async (trx) => {
      const payment = await getPayment(trx, principal, input.id);
      // Askers of one payment take turns (locks go payment first, then order).
      await trx.selectFrom('payments').select('id').where('id', '=', payment.id).forUpdate().execute();
      if (!isHeldUnderpayment(payment)) {
        throw new ApiError('invalid_state', `Payment ${payment.id} is ${readStatus(payment, now)}${payment.status === 'held' ? ', but not an underpayment' : ''}: only a held payment that part of the amount arrived at has a rest to ask for.`);
      }
      if (payment.order_id === null) throw new ApiError('invalid_state', `Payment ${payment.id} has no order to ask the rest of.`);
      const previous = await findRemainder(trx, principal, payment.id);
      if (previous && stillCounts(previous, now)) {
        if (previous.status === 'paid') throw new ApiError('invalid_state', `The rest of payment ${payment.id} was paid already (${previous.id}).`);
        return { id: previous.id, created: false };
      }
      // One asked before whose time ran out is expired now (payment.expired), before a new one.
      if (previous && readStatus(previous, now) === 'expired' && previous.status !== 'expired') await applyMove(trx, ctx, previous.id, 'expire');
      const order = await trx.selectFrom('orders').selectAll().where('id', '=', payment.order_id).forUpdate().executeTakeFirstOrThrow();
      const payments = await trx.selectFrom('payments').selectAll().where('order_id', '=', order.id).execute();
      const facts = deriveOrder(payments, now);
      if (facts.status === 'paid') throw new ApiError('invalid_state', `Order ${order.id} is paid already; there is no rest to ask for.`);
      const rest = order.total_minor - facts.amountPaidMinor;
      if (rest < MIN_AMOUNT_MINOR) {
        throw new ApiError('invalid_state', `The rest, ${formatAmount(Math.max(rest, 0))} ${order.currency}, is below the smallest payment (${formatAmount(MIN_AMOUNT_MINOR)}); accept the payment as paid instead.`);
      }
      const remainder = newPayment(principal, {
        // A further attempt at the order, made by the merchant: a session (source api), for the checkout it bought.
        source: 'api',
        checkout_id: payment.checkout_id,
        order_id: order.id,
        amount_minor: rest,
        currency: order.currency,
        description: payment.description,
        reference: payment.reference,
        metadata: payment.metadata,
        customer_email: payment.customer_email,
        success_url: payment.success_url,
        routing: payment.routing,
        plan_label: payment.plan_label,
        fee_bps: principal.business.fee_bps,
        expires_at: new Date(now.getTime() + REMAINDER_LIFETIME_MS),
        remainder_of: payment.id,
      }, now);
      await trx.insertInto('payments').values(paymentValues(remainder)).execute();
      await recordActivity(trx, principal, 'payment.remainder_requested', payment.id, { remainder_id: remainder.id, amount: formatAmount(rest), currency: order.currency }, now);
      return { id: remainder.id, created: true };
    });
    return { remainder: toPaymentOut(await getPayment(ctx.db, principal, id), ctx.config.baseUrl, ctx.clock.now()), created };
  },
});
