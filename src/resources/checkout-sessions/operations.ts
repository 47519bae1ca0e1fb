import { defineOperation } from '../../verbs/operation.ts';
import { createCheckoutSession, sessionReplays, sessionSpend } from './create.ts';
import { retrieveCheckoutSession } from './retrieve.ts';
import { CheckoutSessionIdInput, CheckoutSessionOut, CreateCheckoutSessionInput, StartCheckoutSessionInput, StartedCheckoutSessionOut } from './schemas.ts';
import { startCheckoutSession } from './start.ts';

export const checkoutSessionOperations = [
  defineOperation({
    name: 'create_checkout_session',
    title: 'Create checkout session',
    description: 'Create a checkout session: one attempt at paying, for a store order (send `order` with the store\'s order id, items and totals) ' +
      'or a plain amount. A second session for the same store order attaches to the same order. Amounts are decimal strings such as "42.50". ' +
      'Send an Idempotency-Key (idempotency_key) unique per order attempt so a retry returns the same session. The session expires after 24 hours. ' +
      'Created in the credential\'s mode (Test or Live). Returns the checkout_session with its url, order_id and status "open".',
    tag: 'Checkout sessions',
    scope: 'checkouts:write',
    input: CreateCheckoutSessionInput,
    output: CheckoutSessionOut,
    http: {
      method: 'POST', path: '/checkout_sessions', status: 201, headers: { 'Idempotency-Key': 'idempotency_key' },
      alsoAnswers: { 200: 'An idempotent replay: the same Idempotency-Key and body as an earlier request answer the same session as it is now.' },
    },
    conflicts: ['idempotency_conflict', 'checkout_inactive', 'no_payout_wallet', 'commerce_paused'],
    // As derived: not idempotent, since only a call that sends the optional Idempotency-Key is.
    spends: sessionSpend,
    replays: sessionReplays,
    run: createCheckoutSession,
  }),
  defineOperation({
    name: 'retrieve_checkout_session',
    title: 'Get checkout session',
    description: 'Get a checkout session by its pay_ id, with its current status (past expires_at and unpaid reads as "expired").',
    tag: 'Checkout sessions',
    scope: 'payments:read',
    input: CheckoutSessionIdInput,
    output: CheckoutSessionOut,
    http: { method: 'GET', path: '/checkout_sessions/:id', status: 200 },
    run: retrieveCheckoutSession,
  }),
  defineOperation({
    name: 'start_checkout_session',
    title: 'Start checkout session',
    description: 'Start paying a session (or payment link) with the buyer\'s email and details: finds or creates the customer, locks the fee and the ' +
      'order\'s USD value (in Live, a price in EUR, GBP, CAD or AUD needs a recent exchange rate: exchange_rate_unavailable otherwise), assigns a deposit address in Live mode, and emits payment.started. Returns the session with card_providers, ' +
      'the card providers that can take this buyer (best first), whether crypto is possible and the coins the buyer may send. In Live mode a start nothing could ' +
      'pay is refused before anything is written: no network watched by a healthy payment processor (payments_unavailable), a routing fixed to a card ' +
      'provider without keys here (provider_unavailable), or a coin asked for that is not watched (coin_unavailable). ' +
      'Counts toward 12 starts per minute per account in each mode (Test and Live apart).',
    tag: 'Checkout sessions',
    scope: 'checkouts:write',
    input: StartCheckoutSessionInput,
    output: StartedCheckoutSessionOut,
    http: { method: 'POST', path: '/checkout_sessions/:id/start', status: 200 },
    conflicts: ['invalid_state', 'no_payout_wallet', 'commerce_paused', 'exchange_rate_unavailable', 'payments_unavailable', 'provider_unavailable', 'coin_unavailable'],
    // As derived: not idempotent, since a start again with buyer details writes them and sends
    // payment.started again; not destructive, since a later start can change the buyer back.
    sessionStart: true,
    run: startCheckoutSession,
  }),
];
