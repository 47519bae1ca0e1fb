import { ApiError } from '../../core/errors.ts';
import { parseOrThrow } from '../../core/validation.ts';
import type { AppContext } from '../../verbs/context.ts';
import { SimulatePaymentInput, simulatePayment, type SimulatedOutcome } from '../payments/simulate.ts';
import { buyerOf, type PayerView } from './view.ts';

/** What a buyer can make happen to a Test payment without a key: what a provider or a wallet would do. */
export const BUYER_OUTCOMES = ['paid', 'underpaid', 'held_elsewhere', 'late', 'declined'] as const;
export type BuyerOutcome = (typeof BUYER_OUTCOMES)[number];

/**
 * Test mode only: plays out an outcome on the payer's own Test payment through the same
 * simulation as the API's (states, checks, events). `late` is money arriving after expiry:
 * the payment expires (when it has not yet), then is paid. `provider` names the Test card
 * provider the buyer chose.
 */
export async function simulateAsBuyer(app: AppContext, view: PayerView, outcome: BuyerOutcome, provider?: string): Promise<void> {
  if (view.livemode) throw new ApiError('test_mode_only', 'Only Test payments can be played out; Live payments move with real money.');
  const ctx = { ...app, principal: buyerOf(view) };
  const run = (name: SimulatedOutcome) => simulatePayment(ctx, parseOrThrow(SimulatePaymentInput, { id: view.id, outcome: name, ...(provider ? { provider } : {}) }));
  if (outcome === 'late') {
    // Time runs out first, unless it already has (the expiry job ran, or the link was canceled):
    // then the money simply arrives, and the machine writes any expiry still due before it.
    if (view.status !== 'expired') await run('expired');
    await run('paid');
    return;
  }
  await run(outcome);
}
