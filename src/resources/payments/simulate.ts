import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { OperationContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import { coded } from '../../core/validation.ts';
import { CARD_PROVIDER_IDS, findProvider } from '../providers/catalogue.ts';
import { fromMicros, toMicros } from '../orders/derive.ts';
import { applyArrival, type Arrival } from './arrival.ts';
import { applyMove, cannotMove } from './machine.ts';
import { getPayment } from './queries.ts';
import { assertNoRemainder } from './remainder.ts';
import { PaymentIdInput, toPaymentOut, type PaymentOut } from './schemas.ts';

// Test-mode simulations: each outcome drives the same state machine, checks and events as
// real money does, so every sequence of spec 6.2 can be produced through the API.

export const SIMULATED_OUTCOMES = {
  provider_reached: 'The buyer reaches a card provider: status pending (a payment link can no longer be canceled).',
  declined: 'The card provider declines the card: the payment stays as it is and no event is sent.',
  paid: 'The full amount arrives in USDC and passes every check: payment.paid (also after expiry or cancel: a late payment).',
  settled: 'The processor reports forwarding a paid payment: payment.updated with txid_out and merchant_received.',
  underpaid: 'Less than 90% arrives (80% unless amount_received is given): payment.held, acceptable.',
  held_elsewhere: 'The money was forwarded to a wallet that is not the merchant\'s: payment.held, not acceptable.',
  accepted: 'The merchant accepts an acceptable held payment (as in the dashboard): payment.paid, no payment.updated.',
  failed: 'Terminal failure: payment.failed.',
  expired: 'Time runs out now: payment.expired.',
} as const;
export type SimulatedOutcome = keyof typeof SIMULATED_OUTCOMES;

const outcomes = Object.keys(SIMULATED_OUTCOMES) as [SimulatedOutcome, ...SimulatedOutcome[]];

export const SimulatePaymentInput = PaymentIdInput.extend({
  outcome: z.enum(outcomes, coded('invalid_outcome', `outcome must be one of ${outcomes.join(', ')}.`))
    .describe(outcomes.map((name) => `${name}: ${SIMULATED_OUTCOMES[name]}`).join(' ')),
  provider: z.string(coded('invalid_outcome', 'provider must be a card provider id.'))
    .refine((id) => findProvider(id)?.card === true, coded('invalid_outcome', `provider must be one of ${CARD_PROVIDER_IDS.join(', ')}.`))
    .optional()
    .describe('For provider_reached, paid, underpaid: the card provider the buyer used (default: paid from the buyer\'s own wallet).'),
  amount_received: z.string(coded('invalid_outcome', 'amount_received must be a decimal string of USD, such as "40.00".'))
    .regex(/^\d{1,9}(\.\d{1,6})?$/, coded('invalid_outcome', 'amount_received must be a decimal string of USD, such as "40.00".'))
    .optional()
    .describe('For underpaid: how many USD arrived (default 80% of the order value).'),
});
export type SimulatePaymentInput = z.output<typeof SimulatePaymentInput>;

const fakeTx = () => `0x${randomBytes(32).toString('hex')}`;

/** Applies a simulated outcome to a Test payment (any kind: session, link, checkout purchase). */
export async function simulatePayment(ctx: OperationContext, input: SimulatePaymentInput): Promise<PaymentOut> {
  const { principal } = ctx;
  const now = ctx.clock.now();
  const provider = input.provider ? findProvider(input.provider) ?? null : null;

  await ctx.db.transaction().execute(async (trx) => {
    const payment = await getPayment(trx, principal, input.id);
    if (principal.livemode) throw new ApiError('test_mode_only', 'Simulations run only in Test mode; Live payments move only with real money.');
    const usdMicros = BigInt(payment.usd_value_minor ?? 0) * 10_000n;
    const arrival = (valueMicros: bigint, forwardedTo: string | null): Arrival => ({
      valueCoin: fromMicros(valueMicros), coin: 'polygon_usdc', network: 'polygon', txidIn: fakeTx(), forwardedTo,
      provider: provider ? { id: provider.id, name: provider.name } : null,
    });
    const arrive = async (value: Arrival) => {
      if (payment.usd_value_minor === null) {
        throw new ApiError('invalid_state', {
          rest: 'Start the payment first (POST /v1/checkout_sessions/:id/start): money can only arrive after a buyer started paying.',
          tool: `Start the payment first: call start_checkout_session with id "${payment.id}"; money can only arrive after a buyer started paying.`,
        });
      }
      const outcome = await applyArrival(trx, ctx, payment, value);
      if (outcome.move === 'none') throw new ApiError('invalid_state', outcome.reason);
    };
    const move = async (name: Parameters<typeof applyMove>[3], what: string, options?: Parameters<typeof applyMove>[4]) => {
      if (!(await applyMove(trx, ctx, payment.id, name, options))) throw cannotMove(payment, now, what);
    };
    switch (input.outcome) {
      case 'provider_reached':
        return move('reach_provider', 'reach a card provider', {
          set: { provider_reached_at: now, provider: provider?.id ?? 'moonpay', provider_name: provider?.name ?? 'MoonPay', method: 'card' },
        });
      case 'declined':
        if (!['open', 'pending'].includes(payment.status)) throw cannotMove(payment, now, 'be declined');
        return;
      case 'paid':
        return arrive(arrival(usdMicros, payment.payout_wallet));
      case 'underpaid':
        return arrive(arrival(input.amount_received ? toMicros(input.amount_received) : (usdMicros * 80n) / 100n, payment.payout_wallet));
      case 'held_elsewhere':
        return arrive(arrival(usdMicros, `0x${randomBytes(20).toString('hex')}`));
      case 'settled': {
        const value = payment.value_coin ? toMicros(payment.value_coin) : usdMicros;
        const fee = (value * BigInt(payment.fee_bps ?? 0)) / 10_000n;
        return move('settle', 'be settled (only a paid payment settles)', { set: { txid_out: fakeTx(), merchant_received: fromMicros(value - fee) } });
      }
      case 'accepted':
        if (!payment.hold_acceptable) throw new ApiError('invalid_state', 'Only a held payment whose hold is acceptable can be accepted.');
        await assertNoRemainder(trx, principal, payment, now);
        return move('accept', 'be accepted', { set: { paid_at: now } });
      case 'failed':
        return move('fail', 'fail');
      case 'expired':
        return move('expire', 'expire', { set: { expires_at: now } });
    }
  });
  return toPaymentOut(await getPayment(ctx.db, principal, input.id), ctx.config.baseUrl, ctx.clock.now());
}
