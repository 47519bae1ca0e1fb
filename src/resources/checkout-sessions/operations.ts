import { defineOperation } from '../../verbs/operation.ts';
import { createCheckoutSession, sessionReplays, sessionSpend } from './create.ts';
import { retrieveCheckoutSession } from './retrieve.ts';
import { CheckoutSessionIdInput, CheckoutSessionOut, CreateCheckoutSessionInput, StartCheckoutSessionInput, StartedCheckoutSessionOut } from './schemas.ts';
import { startCheckoutSession } from './start.ts';
import { X402_HOW, x402Note } from '../shared/payer-urls.ts';

export const checkoutSessionOperations = [
  defineOperation({
    name: 'create_checkout_session',
    title: 'Create checkout session',
    description: 'Create a checkout session, one attempt at paying (24 hours), for a store order (`order`: id, items, totals; a second session ' +
      'joins the order) or an amount ("42.50"). A retry with the same Idempotency-Key (idempotency_key) returns the same session. ' +
      'Returns it open, with url and order_id. ' + X402_HOW,
    useWhen: 'your store\'s checkout hands a buyer over to pay for an order.',
    writes: 'creates a checkout session and its order',
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
    agentNote: x402Note,
  }),
  defineOperation({
    name: 'retrieve_checkout_session',
    title: 'Get checkout session',
    description: 'Get a checkout session by its pay_ id, with its current status (past expires_at and unpaid reads as "expired").',
    useWhen: 'you hold a session\'s id and need its status or url; to wait until it is paid, wait_for_payment.',
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
    description: 'Start paying a session (or payment link) with the buyer\'s email and details, and emit payment.started. Returns the session with ' +
      'card_providers (best first), whether crypto is possible and the coins the buyer may send. In Live, a start nothing could pay is refused ' +
      'before anything is written (409 says why).',
    useWhen: 'you take the buyer\'s details yourself, then show them how to pay.',
    writes: 'fixes the session\'s buyer, customer, fee, USD value and (in Live) deposit address',
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
