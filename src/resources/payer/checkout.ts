import type { Principal } from '../../auth/principal.ts';
import { ApiError } from '../../core/errors.ts';
import { parseOrThrow } from '../../core/validation.ts';
import type { Db } from '../../db/database.ts';
import type { CheckoutRow } from '../../db/schema.ts';
import type { BusinessState } from '../../tenancy/businesses.ts';
import type { Brand } from '../brand/queries.ts';
import { businessStateOf } from '../../tenancy/businesses.ts';
import type { AppContext } from '../../verbs/context.ts';
import { Answer } from '../../verbs/operation.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import { createCheckoutSession } from '../checkout-sessions/create.ts';
import { CreateCheckoutSessionInput, StartCheckoutSessionInput } from '../checkout-sessions/schemas.ts';
import { startCheckoutSession } from '../checkout-sessions/start.ts';
import { coinsForStart } from '../checkout-sessions/live-ways.ts';
import { requireCollected } from './start.ts';
import { choosePlan } from '../checkouts/plans.ts';
import { requireUsableRate } from '../fx-rates/rates.ts';

/** What a pricing table's buyer picked: the plan's id and, with a switch, the option ("0" or "1"). */
export interface PlanChoice {
  plan?: unknown;
  option?: unknown;
}

// A checkout's hosted page (spec 2.2, 4.2): anyone with its address may buy; every buyer gets
// their own payment and order (source checkout). Its slug is the address, unique across the
// service, so the page finds the checkout and its business by it alone.

export interface CheckoutView {
  checkout: CheckoutRow;
  business: BusinessState;
  brand: Brand;
}

export async function readCheckoutView(db: Db, slug: string): Promise<CheckoutView | undefined> {
  const row = await db.selectFrom('checkouts as c').innerJoin('businesses as b', 'b.id', 'c.business_id')
    .leftJoin('business_logos as bl', 'bl.business_id', 'c.business_id')
    .selectAll('c')
    .select(['b.brand_color', 'bl.sha256 as logo_sha256'])
    .select(['b.name as business_name', 'b.status as business_status', 'b.commerce as business_commerce', 'b.disabled_integrations as business_disabled_integrations',
      'b.payout_wallet as business_payout_wallet', 'b.crypto_enabled as business_crypto_enabled', 'b.fee_bps as business_fee_bps'])
    .where('c.slug', '=', slug)
    .executeTakeFirst();
  if (!row) return undefined;
  const { business_name, business_status, business_commerce, business_disabled_integrations, business_payout_wallet, business_crypto_enabled, business_fee_bps, brand_color, logo_sha256, ...checkout } = row;
  return {
    checkout,
    brand: { color: brand_color, logo: logo_sha256 },
    business: businessStateOf({
      id: checkout.business_id, name: business_name, status: business_status, commerce: business_commerce, disabled_integrations: business_disabled_integrations,
      payout_wallet: business_payout_wallet, crypto_enabled: business_crypto_enabled, fee_bps: business_fee_bps,
    }),
  };
}

/** The buyer on a checkout's page: its business and mode, no scopes, holding only this checkout. */
function buyerOfCheckout(view: CheckoutView): Principal {
  return { businessId: view.business.id, livemode: view.checkout.livemode, scopes: new Set(), actor: { kind: 'buyer', holds: view.checkout.id }, business: view.business };
}

/**
 * Whether the checkout takes a new buyer now: it is not deleted, and its account may take
 * payments through checkouts (active, not paused, the integrations on, a payout wallet in Live).
 * The page says so before the buyer types anything, rather than refusing the form afterwards.
 */
export function takesBuyers(view: CheckoutView): boolean {
  if (!view.checkout.active) return false;
  try {
    assertCanTakePayments(buyerOfCheckout(view), 'checkouts');
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

/** Why a buyer could not pay the checkout now (Live: nothing served, or a provider without keys), or null. */
export async function checkoutRefusal(app: Pick<AppContext, 'db' | 'clock' | 'config'>, view: CheckoutView): Promise<ApiError | null> {
  try {
    await coinsForStart(app, view.checkout.livemode, view.checkout.routing);
    return null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return error;
    throw error;
  }
}

/** Whether its buyers may pay in stablecoin: the account allows crypto, and so does the checkout (as cryptoAllowed for its payments). */
export function checkoutTakesCrypto(view: CheckoutView): boolean {
  return view.business.crypto_enabled && view.checkout.crypto;
}

/**
 * A buyer buys the checkout: a session of its purchase (its price, routing, collect and success
 * address), started at once with what the buyer typed. The details are checked before anything
 * is written, so a mistyped address makes no payment; `admit` (the payer pages' starts a minute,
 * pages/starts.ts) is asked only then, and before anything is written: mistyped forms use none
 * of the starts, and a refused start makes no payment, order or customer. Returns the new
 * payment's id.
 */
export async function buyCheckout(app: AppContext, view: CheckoutView, details: Record<string, unknown>, admit: () => void, choice: PlanChoice = {}): Promise<string> {
  if (!view.checkout.active) throw new ApiError('checkout_inactive', 'This checkout no longer takes new buyers.');
  // A pricing table's buyer pays the price of the plan and option chosen, and the payment names them (planLabel).
  const plan = view.checkout.kind === 'pricing_table' ? choosePlan(view.checkout, choice.plan, choice.option) : undefined;
  // The start needs an email, and the purchase is written before the start: without one, every
  // post would leave a payment and an order nobody can pay.
  if (!details.email) throw new ApiError('invalid_email', 'Enter your email address.', 'email');
  requireCollected(view.checkout.collect, details);
  parseOrThrow(StartCheckoutSessionInput, { ...details, id: 'pay_new' });
  // A Live price without a recent rate would be refused by the start: refused before the purchase is written.
  await requireUsableRate(app, view.checkout.currency, view.checkout.livemode);
  // A Live purchase nothing could pay is refused before its payment is written (the start would refuse it after).
  await coinsForStart(app, view.checkout.livemode, view.checkout.routing);
  admit();
  const ctx = { ...app, principal: buyerOfCheckout(view) };
  const created = await createCheckoutSession(ctx, parseOrThrow(CreateCheckoutSessionInput, { checkout_id: view.checkout.id }), plan);
  const session = created instanceof Answer ? created.body : created;
  await startCheckoutSession(ctx, parseOrThrow(StartCheckoutSessionInput, { ...details, id: session.id }));
  return session.id;
}
