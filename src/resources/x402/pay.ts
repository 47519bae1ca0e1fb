import { concat, keccak256 } from 'viem';
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { parseOrThrow } from '../../core/validation.ts';
import type { Db } from '../../db/database.ts';
import type { WakeReason } from '../../db/row-waits.ts';
import type { PaymentRow, X402AuthorizationsTable } from '../../db/schema.ts';
import type { AppContext } from '../../verbs/context.ts';
import { StartCheckoutSessionInput } from '../checkout-sessions/schemas.ts';
import { startCheckoutSession } from '../checkout-sessions/start.ts';
import { servedCoins } from '../networks/served.ts';
import { fromMicros } from '../orders/derive.ts';
import { applyArrival } from '../payments/arrival.ts';
import { getPayment } from '../payments/queries.ts';
import { toPaymentOut, type PaymentOut } from '../payments/schemas.ts';
import { buyerOf, readPayerView, type PayerView } from '../payer/view.ts';
import { readStatus } from '../shared/payment-status.ts';
import { coinOf, encodeHeader, paymentRequired, requirementsFor, X402_VERSION, type X402Requirement } from './offer.ts';
import { signatureOf, verifyPayment, X402Refusal, type VerifiedPayment, type X402Reason } from './payload.ts';

// Paying a payment link or checkout session over HTTP 402 (x402 version 2, issue 33,
// docs/x402.md): one address per payment, `/x402/pay/:id`. Without a payment header it starts the
// payment as a buyer's start does and answers 402 with what it accepts; with one it verifies the
// authorization against that offer, claims it once, and settles it (Test: the simulation, at once;
// Live, once built: the processor submits it, and the deposit pays the payment as any other).

/** What the route sends: a status, the protocol's headers, and a JSON body. */
export interface X402Answer {
  status: 200 | 202 | 402;
  headers: Record<string, string>;
  body: unknown;
}

/** The protocol's settlement answer (PAYMENT-RESPONSE). */
interface SettleResponse {
  success: boolean;
  errorReason?: string;
  transaction: string;
  network: string;
  payer?: string;
}

type Claim = Pick<X402AuthorizationsTable, 'id' | 'state' | 'reason' | 'tx_hash' | 'network' | 'payer' | 'signature'>;

/**
 * What the buyer may see of the payment: what the payer page shows. Not the merchant's own fields
 * (metadata, reference, fee, payout wallet, what the merchant received).
 */
const BUYER_FIELDS = [
  'id', 'object', 'livemode', 'status', 'amount', 'currency', 'description', 'memo', 'plan_label', 'customer_email', 'order_id', 'method',
  'provider_name', 'network', 'coin', 'value_coin', 'deposit_address', 'txid_in', 'hold_reason', 'url', 'success_url', 'created', 'started_at',
  'paid_at', 'expires_at',
] as const satisfies ReadonlyArray<keyof PaymentOut>;
export type BuyerPaymentOut = Pick<PaymentOut, (typeof BUYER_FIELDS)[number]>;

function buyerPayment(row: PaymentRow, app: AppContext): BuyerPaymentOut {
  const out = toPaymentOut({ ...row, customer_id: null }, app.config.baseUrl, app.clock.now());
  return Object.fromEntries(BUYER_FIELDS.map((field) => [field, out[field]])) as BuyerPaymentOut;
}

/** The error body the 402 carries beside its header: the API's error shape, in words. */
function refusalBody(reason: X402Reason | 'payment_required', message: string) {
  return { error: { code: reason, message } };
}

const settled = (claim: Pick<Claim, 'tx_hash' | 'network' | 'payer'>): SettleResponse => ({ success: true, transaction: claim.tx_hash ?? '', network: claim.network, payer: claim.payer });

const CLAIM_COLUMNS = ['id', 'state', 'reason', 'tx_hash', 'network', 'payer', 'signature'] as const;

/** The payment's x402 authorization on its way or done (the latest not refused), if any. */
function claimOf(db: Db, paymentId: string): Promise<Claim | undefined> {
  return db.selectFrom('x402_authorizations').select(CLAIM_COLUMNS)
    .where('payment_id', '=', paymentId).where('state', '<>', 'refused').executeTakeFirst();
}

export interface X402Request {
  /** PAYMENT-SIGNATURE, when the client sent one. */
  signature: string | undefined;
  /** Whether it sent a version 1 X-PAYMENT instead. */
  versionOne: boolean;
  /** `?email=`: the buyer's email for the receipt, when they give one. */
  email: string | undefined;
  /** Counts a start of the payment against the payer pages' budgets (pages/starts.ts), or throws. */
  admit: (payment: { businessId: string; livemode: boolean }) => void;
  /** Aborts when the caller goes away: a Live settlement stops waiting for it. */
  signal?: AbortSignal;
}

async function viewOf(app: AppContext, id: string): Promise<PayerView> {
  const view = await readPayerView(app.db, { id }, app.clock.now());
  if (!view) throw new ApiError('not_found', 'There is no payment at this address.');
  return view;
}

/** The payment's offer now: started first when it has not been (a buyer's start: limits, rules, the price locked). */
async function offerOf(app: AppContext, view: PayerView, request: X402Request): Promise<{ view: PayerView; accepts: X402Requirement[] }> {
  let current = view;
  if (view.status === 'open' && view.startedAt === null) {
    const input = parseOrThrow(StartCheckoutSessionInput, { id: view.id, ...(request.email === undefined ? {} : { email: request.email }) });
    request.admit({ businessId: view.business.id, livemode: view.livemode });
    await startCheckoutSession({ ...app, principal: buyerOf(view) }, input, { anonymous: true });
    current = await viewOf(app, view.id);
  }
  const accepts = await acceptsOf(app, current);
  if (accepts.length === 0) {
    throw new ApiError('payments_unavailable', 'This payment cannot be paid over x402 right now: no network that takes EIP-3009 USDC is watched by a healthy payment processor. Try again later.');
  }
  return { view: current, accepts };
}

/** What a started payment accepts now: an entry per network served whose USDC takes authorizations. */
async function acceptsOf(app: AppContext, view: PayerView): Promise<X402Requirement[]> {
  const served = view.livemode ? await servedCoins(app.db, app.clock.now(), app.config.processorStatusFreshSeconds) : [];
  return requirementsFor({ ...view, usdValueMinor: view.usdValueMinor ?? 0 }, served, app.config.networks);
}

/** A 402: what the payment accepts, with the reason the last try was refused when there was one. */
function required(app: AppContext, view: PayerView, accepts: X402Requirement[], refusal?: X402Refusal, payer?: string): X402Answer {
  const document = paymentRequired(app.config.baseUrl, { ...view, usdValueMinor: view.usdValueMinor ?? 0 }, accepts, refusal?.reason ?? 'PAYMENT-SIGNATURE header is required');
  const headers: Record<string, string> = { 'PAYMENT-REQUIRED': encodeHeader(document) };
  if (refusal) {
    const network = accepts[0]?.network ?? '';
    const response: SettleResponse = { success: false, errorReason: refusal.reason, transaction: '', network, ...(payer ? { payer } : {}) };
    headers['PAYMENT-RESPONSE'] = encodeHeader(response);
  }
  const body = refusal
    ? refusalBody(refusal.reason, `${refusal.message} Nothing was charged.`)
    : refusalBody('payment_required', `Pay ${view.usdValueMinor === null ? 'this payment' : `${fromMicros(BigInt(view.usdValueMinor) * 10_000n)} USDC`} over x402 (version ${X402_VERSION}): sign one of the PAYMENT-REQUIRED header's offers and send it again in PAYMENT-SIGNATURE. docs/x402.md says how.`);
  return { status: 402, headers, body };
}

/**
 * GET or POST /x402/pay/:id. Open: 402 with the offer. With PAYMENT-SIGNATURE: verified, claimed
 * once, settled; 200 with the buyer's payment once paid, 402 with the reason when refused. Paid or
 * held: 200 with the payment (and the settlement when x402 paid it); expired or failed: 409.
 */
export async function payOverX402(app: AppContext, id: string, request: X402Request): Promise<X402Answer> {
  const view = await viewOf(app, id);
  if (view.status === 'paid' || view.status === 'held') {
    const [row, claim] = await Promise.all([getPayment(app.db, buyerOf(view), view.id), claimOf(app.db, view.id)]);
    return { status: 200, headers: claim?.state === 'settled' ? { 'PAYMENT-RESPONSE': encodeHeader(settled(claim)) } : {}, body: buyerPayment(row, app) };
  }
  if (view.status !== 'open' && view.status !== 'pending') {
    throw new ApiError('invalid_state', `This payment cannot be paid: it is ${view.status}.`);
  }
  // An authorization on its way (Live): asking again, without a header or with the same one (a
  // client's retry, even near its window's end), waits for its settlement as the paid retry does.
  const inFlight = view.livemode ? await claimOf(app.db, view.id) : undefined;
  const same = inFlight !== undefined && (request.signature === undefined || signatureOf(request.signature) === inFlight.signature);
  if (inFlight && same && (inFlight.state === 'verified' || inFlight.state === 'submitted')) return awaitSettlement(app, view, inFlight.id, request.signal);
  const { view: offered, accepts } = await offerOf(app, view, request);
  if (request.signature === undefined) {
    return required(app, offered, accepts, request.versionOne ? new X402Refusal('invalid_x402_version') : undefined);
  }
  let verified: VerifiedPayment;
  try {
    verified = await verifyPayment(request.signature, accepts, app.clock.now(), !offered.livemode);
  } catch (error) {
    if (error instanceof X402Refusal) return required(app, offered, accepts, error);
    throw error;
  }
  try {
    return offered.livemode ? await settleLive(app, offered, accepts, verified, request.signal) : await settleTest(app, offered, verified);
  } catch (error) {
    if (error instanceof X402Refusal) return required(app, offered, accepts, error, verified.authorization.from);
    throw error;
  }
}

/**
 * Claims the authorization for the payment, once: refused when its nonce was used already (by
 * anyone's claim) or another authorization for the payment is on its way. Inside the
 * transaction that holds the payment's row, so concurrent retries take turns.
 */
async function claim(db: Db, payment: PaymentRow, verified: VerifiedPayment, state: 'verified' | 'settled', txHash: string | null, now: Date): Promise<string> {
  const { requirement, authorization, signature } = verified;
  const written = await db.insertInto('x402_authorizations').values({
    id: newId('x4a'), payment_id: payment.id, business_id: payment.business_id, livemode: payment.livemode,
    network: requirement.network, asset: requirement.asset.toLowerCase(), payer: authorization.from, pay_to: authorization.to,
    value: authorization.value, valid_after: authorization.validAfter, valid_before: authorization.validBefore, nonce: authorization.nonce,
    signature, state, reason: null, tx_hash: txHash, created_at: now, updated_at: now,
  }).onConflict((conflict) => conflict.doNothing()).returning('id').executeTakeFirst();
  if (written) return written.id;
  const used = await db.selectFrom('x402_authorizations').select(['id', 'payment_id', 'state', 'signature'])
    .where('network', '=', requirement.network).where('asset', '=', requirement.asset.toLowerCase())
    .where('payer', '=', authorization.from).where('nonce', '=', authorization.nonce).executeTakeFirst();
  // The same header again (a client's retry) while it is on its way: it waits for its own settlement.
  if (used && used.payment_id === payment.id && used.signature === signature && used.state !== 'refused') return used.id;
  throw new X402Refusal(used ? 'invalid_exact_evm_nonce_already_used' : 'invalid_transaction_state');
}

/**
 * Each transaction the processor's gas wallet had mined for a payment's authorizations cost it gas
 * (in the books as x402_gas): one carries the payment; after this many, it takes no more over
 * x402. A payer emptying the wallet, or canceling the authorization, between the check and the
 * block, again and again, would spend the processor's gas at will.
 */
const GAS_SPENT_PER_PAYMENT = 3;

async function gasSpentTooOften(db: Db, paymentId: string): Promise<boolean> {
  const { count } = await db.selectFrom('chain_movements').select((eb) => eb.fn.countAll<string>().as('count'))
    .where('payment_id', '=', paymentId).where('kind', '=', 'x402_gas').executeTakeFirstOrThrow();
  return Number(count) >= GAS_SPENT_PER_PAYMENT;
}

/** The payment's row, locked, while it can still take money. */
async function lockedPayment(db: Db, view: PayerView, now: Date): Promise<PaymentRow> {
  const row = await db.selectFrom('payments').selectAll().where('id', '=', view.id).forUpdate().executeTakeFirstOrThrow();
  const status = readStatus(row, now);
  if (status !== 'open' && status !== 'pending') throw new X402Refusal('invalid_transaction_state');
  return row;
}

/**
 * Test mode: the authorization is verified as a Live one (window, amount, recipient, signature),
 * claimed once, and the full amount arrives through the simulation, in one transaction. Its
 * transaction hash is made up from the authorization: it is on no chain.
 */
async function settleTest(app: AppContext, view: PayerView, verified: VerifiedPayment): Promise<X402Answer> {
  const now = app.clock.now();
  const { authorization, requirement } = verified;
  const txHash = keccak256(concat([requirement.asset, authorization.from, authorization.nonce]));
  const coin = coinOf(requirement, false, app.config.networks) ?? 'base_usdc';
  const row = await app.db.transaction().execute(async (trx) => {
    const payment = await lockedPayment(trx, view, now);
    await claim(trx, payment, verified, 'settled', txHash, now);
    const outcome = await applyArrival(trx, app, payment, {
      valueCoin: fromMicros(BigInt(authorization.value)), coin, network: 'base', txidIn: txHash, forwardedTo: payment.payout_wallet, provider: null, via: 'x402',
    });
    if (outcome.move === 'none') throw new X402Refusal('invalid_transaction_state');
    return outcome.payment;
  });
  const response: SettleResponse = { success: true, transaction: txHash, network: requirement.network, payer: authorization.from };
  return { status: 200, headers: { 'PAYMENT-RESPONSE': encodeHeader(response) }, body: buyerPayment(row, app) };
}

/**
 * Live: the authorization claimed once (`verified`) in the transaction that holds the payment's
 * row; the processor, woken by its commit, runs it on the chain and submits it from its gas
 * wallet, and the deposit pays the payment as any other. The request waits for that.
 */
async function settleLive(app: AppContext, view: PayerView, accepts: X402Requirement[], verified: VerifiedPayment, signal: AbortSignal | undefined): Promise<X402Answer> {
  const now = app.clock.now();
  if (coinOf(verified.requirement, true, app.config.networks) === undefined) throw new X402Refusal('invalid_network');
  const claimId = await app.db.transaction().execute(async (trx) => {
    const payment = await lockedPayment(trx, view, now);
    if (await gasSpentTooOften(trx, payment.id)) throw new X402Refusal('invalid_transaction_state');
    return claim(trx, payment, verified, 'verified', null, now);
  });
  return awaitSettlement(app, view, claimId, signal, accepts);
}

/**
 * Waits, up to X402_SETTLE_WAIT_SECONDS (by default 25 s, the payment wait's bound), for the
 * authorization's outcome: the payment paid (or held) by its deposit → 200 with the settlement;
 * refused by the chain → 402 with the reason (nothing moved); still on its way → 202 with the
 * protocol's settlement_pending and the transaction when there is one: asking this address again
 * waits again and answers 200 once paid.
 */
async function awaitSettlement(app: AppContext, view: PayerView, claimId: string, signal: AbortSignal | undefined, offered?: X402Requirement[]): Promise<X402Answer> {
  const deadline = performance.now() + app.config.x402SettleWaitSeconds * 1000;
  const principal = buyerOf(view);
  // 'closed': the service is shutting down: the buyer is answered at once, not kept.
  let woken: WakeReason | undefined;
  for (;;) {
    // Registered before the reads: a change committed between them and the wait still wakes it.
    const waiter = app.paymentWaits.subscribe(view.id, deadline - performance.now(), signal);
    try {
      const [row, claimed] = await Promise.all([
        getPayment(app.db, principal, view.id),
        app.db.selectFrom('x402_authorizations').select(CLAIM_COLUMNS).where('id', '=', claimId).executeTakeFirstOrThrow(),
      ]);
      const status = readStatus(row, app.clock.now());
      if (claimed.state === 'refused') {
        return required(app, view, offered ?? await acceptsOf(app, view), new X402Refusal((claimed.reason ?? 'unexpected_settle_error') as X402Reason), claimed.payer);
      }
      if (claimed.state === 'settled' && (status === 'paid' || status === 'held')) {
        return { status: 200, headers: { 'PAYMENT-RESPONSE': encodeHeader(settled(claimed)) }, body: buyerPayment(row, app) };
      }
      if (performance.now() >= deadline || signal?.aborted || woken === 'closed') {
        const pending: SettleResponse = { success: false, errorReason: 'settlement_pending', transaction: claimed.tx_hash ?? '', network: claimed.network, payer: claimed.payer };
        return { status: 202, headers: { 'PAYMENT-RESPONSE': encodeHeader(pending), 'Retry-After': '5' }, body: buyerPayment(row, app) };
      }
      woken = await waiter.woken;
    } finally {
      waiter.cancel();
    }
  }
}

