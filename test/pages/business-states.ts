import type { PaymentLinkOut } from '../../src/resources/payment-links/schemas.ts';
import type { OrderOut } from '../../src/resources/orders/schemas.ts';
import type { TransferOut } from '../../src/resources/ledger/schemas.ts';
import type { PaymentOut } from '../../src/resources/payments/schemas.ts';
import type { PaymentTimeline } from '../../src/resources/payments/timeline.ts';
import { orderPage, ordersPage } from '../../src/dashboard/pages/orders.ts';
import { paymentAcceptPage, paymentPage } from '../../src/dashboard/pages/payment.ts';
import { paymentLinkCancelPage, paymentLinkNewPage, paymentLinkPage, paymentLinksPage } from '../../src/dashboard/pages/payment-links.ts';
import { paymentsPage } from '../../src/dashboard/pages/payments.ts';
import { customerErasePage, customerPage, customersPage } from '../../src/dashboard/pages/customers.ts';
import { settingsPage } from '../../src/dashboard/pages/settings.ts';
import { payoutWalletConfirmPage } from '../../src/dashboard/pages/payout-wallet.ts';
import { homePage } from '../../src/dashboard/pages/home.ts';
import { checkoutDeletePage, checkoutFormPage, checkoutPage, checkoutsPage, formOf } from '../../src/dashboard/pages/checkouts.ts';
import type { CheckoutOut } from '../../src/resources/checkouts/schemas.ts';
import type { ActivityEntry } from '../../src/audit/list.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/events/types.ts';
import type { CustomerOut } from '../../src/resources/customers/schemas.ts';
import { roaster, seconds, signedIn, VIEWER, type Fill, type PageState } from './state-kit.ts';

// The dashboard's business areas (payments, orders, payment links) in each state a person meets
// them, with the data of a coffee roaster; what a merchant, store, buyer or endpoint gave goes
// through `v` (see states.ts); ids and amounts the service makes do not.

function payment(v: Fill, more: Partial<PaymentOut> = {}): PaymentOut {
  return {
    id: 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ', object: 'payment', livemode: false, source: 'api', status: 'paid', amount: '53.70', currency: 'USD',
    description: v('Order #1042 at Kestrel Coffee Roasters'), reference: v('WC-1042'), metadata: null, customer_email: v('lena@example.de'),
    customer_id: 'cus_R4nW8kX5pQ9mL3tV7cB2zH6j', order_id: 'ord_T5vR2nXk8Lp4Wq7Mc9Bz3HjF', checkout_id: null, plan_label: null,
    provider: 'moonpay', provider_name: 'MoonPay', method: 'card', network: 'polygon', deposit_address: null, payout_wallet: '0x1111111111111111111111111111111111111111',
    fee_bps: 100, value_coin: '53.700000', coin: 'polygon_usdc', merchant_received: '53.163000', hold_reason: null, hold_acceptable: false,
    txid_in: null, txid_out: null, customer_name: v('Lena Vogt'), memo: null, tracking_url: null, success_url: null,
    url: 'https://pay.kestrelcoffee.example/pay/pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ', created: seconds('2026-03-04T09:12:00Z'), started_at: seconds('2026-03-04T09:13:00Z'),
    paid_at: seconds('2026-03-04T09:16:00Z'), expires_at: seconds('2026-03-05T09:12:00Z'), canceled_at: null, ...more,
  };
}

function payments(v: Fill): PaymentOut[] {
  return [
    payment(v),
    payment(v, { id: 'pay_N7pL3kWq9Xc2Vb8RmT4HsY6e', status: 'held', description: v('Colombia Huila, 250 g filter'), reference: null, amount: '18.00', value_coin: '14.400000', hold_reason: v('Less than the amount asked arrived.'), hold_acceptable: true, paid_at: null, merchant_received: null }),
    payment(v, { id: 'pay_T5vR2nXk8Lp4Wq7Mc9Bz3HjF', status: 'open', source: 'payment_link', description: v('Ceramic dripper'), amount: '12.00', currency: 'EUR', customer_email: null, started_at: null, paid_at: null, value_coin: null, merchant_received: null }),
    payment(v, { id: 'pay_H8wK4mPz2Rt7Xn5Lc3Vq9BdS', status: 'expired', description: v('Gift card'), amount: '50.00', started_at: null, paid_at: null, value_coin: null, merchant_received: null }),
  ];
}

function timeline(v: Fill, more: Partial<PaymentOut> = {}): PaymentTimeline {
  const endpoint = v('https://shop.kestrelcoffee.example/webhooks/payments');
  return {
    payment: payment(v, more),
    events: [
      { id: 'evt_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', type: 'payment.started', created: seconds('2026-03-04T09:13:00Z'), deliveries: [
        { id: 'dlv_P9nL2wXk7Rq4Tm8Vc3Bz6HsF', endpoint_id: 'we_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ', endpoint_url: endpoint, status: 'succeeded', attempts: 1, last_status: 200, last_error: null, next_attempt_at: null },
      ] },
      { id: 'evt_R2nW8kX5pQ9mL3tV7cB4zH6j', type: more.status === 'held' ? 'payment.held' : 'payment.paid', created: seconds('2026-03-04T09:16:00Z'), deliveries: [
        { id: 'dlv_Z7mQ2xW9pL4rT8vN3kB6cH1s', endpoint_id: 'we_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ', endpoint_url: endpoint, status: 'pending', attempts: 2, last_status: 503, last_error: v('The endpoint answered 503 Service Unavailable.'), next_attempt_at: seconds('2026-03-04T09:26:00Z') },
      ] },
    ],
    notices: [
      { id: 41, kind: 'deposit.confirmed', outcome: 'applied', reason: more.status === 'held' ? v('Less than the amount asked arrived.') : null, received: seconds('2026-03-04T09:16:00Z'), flagged: more.status === 'held' },
      { id: 42, kind: 'deposit.confirmed', outcome: 'rejected', reason: v('The deposit address belongs to pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ, not pay_X.'), received: seconds('2026-03-04T09:17:00Z'), flagged: true },
    ],
    mail: more.status === 'held'
      ? [
        { kind: 'payment_held', to: v('lena@example.de'), status: 'held', held_because: 'test_mode', created: seconds('2026-03-04T09:16:00Z') },
        { kind: 'payment_held_staff', to: v('maya@kestrelcoffee.example'), status: 'sent', held_because: null, created: seconds('2026-03-04T09:16:00Z') },
      ]
      : [{ kind: 'payment_receipt', to: v('lena@example.de'), status: 'sent', held_because: null, created: seconds('2026-03-04T09:16:00Z') }],
    waitingToForward: [],
  };
}

function order(v: Fill): OrderOut {
  return {
    id: 'ord_T5vR2nXk8Lp4Wq7Mc9Bz3HjF', object: 'order', livemode: false, number: 1042, display_number: '#1042', source: 'api', checkout_id: null,
    store: { platform: v('woocommerce'), id: null, name: v('Kestrel shop'), url: null, order_id: v('1042'), order_number: v('WC-1042'), order_url: null, customer_id: null },
    status: 'paid', needs_review: false, fulfillment: 'unfulfilled', fulfilled_at: null, customer_id: 'cus_R4nW8kX5pQ9mL3tV7cB2zH6j',
    customer: { id: 'cus_R4nW8kX5pQ9mL3tV7cB2zH6j', email: v('lena@example.de'), name: v('Lena Vogt'), erased: false },
    customer_name: v('Lena Vogt'), customer_phone: v('+49 40 1234567'), summary: v('Ethiopia Guji (1 kg) and 2 more'), line_count: 3, unit_count: 4, currency: 'USD',
    subtotal: '54.50', discount: '5.45', discount_code: v('SPRING10'), shipping: '4.65', shipping_method: v('DHL Paket'), tax: '0.00', total: '53.70',
    amount_paid: '53.70', received: '53.70', ship_to: null, bill_to: null, reference: v('WC-1042'), payment_id: 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ',
    payment_ids: ['pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ'], attempt_count: 1,
    items: [
      { name: v('Ethiopia Guji'), variant: v('1 kg, whole beans'), sku: v('ETH-GUJI-1000'), quantity: 1, unit_amount: '24.50', amount: '24.50' },
      { name: v('Colombia Huila'), variant: v('250 g, filter grind'), sku: null, quantity: 2, unit_amount: '9.00', amount: '18.00' },
      { name: v('Ceramic dripper'), variant: null, sku: null, quantity: 1, unit_amount: null, amount: '12.00' },
    ],
    timeline: [{ type: 'refunded', amount: '9.00', reason: v('One bag arrived torn.'), created: seconds('2026-03-06T10:00:00Z') }],
    created: seconds('2026-03-04T09:12:00Z'), updated: seconds('2026-03-06T10:00:00Z'), paid_at: seconds('2026-03-04T09:16:00Z'),
  };
}

function link(v: Fill, more: Partial<PaymentLinkOut> = {}): PaymentLinkOut {
  return {
    id: 'pay_T5vR2nXk8Lp4Wq7Mc9Bz3HjF', object: 'payment_link', url: 'https://pay.kestrelcoffee.example/pay/pay_T5vR2nXk8Lp4Wq7Mc9Bz3HjF',
    tracking_url: 'https://pay.kestrelcoffee.example/track/trk_Vq3kX9mL2wR7tN4pC8bZ6hJ1', status: 'open', livemode: false, amount: '24.50', currency: 'USD',
    description: v('Ethiopia Guji, 1 kg whole beans'), reference: v('wholesale-17'), customer_name: v('Priya Raman'), customer_email: v('priya@harbourcafe.example'),
    memo: v('Beans roast on Tuesday and ship the same day.'), success_url: v.after('https://kestrelcoffee.example/thanks?ref=', 'wholesale'), order_id: null,
    created: seconds('2026-03-04T09:12:00Z'), expires_at: seconds('2026-03-11T09:12:00Z'), started_at: null, paid_at: null, canceled_at: null,
    collect: { phone: true, shipping_address: true }, ...more,
  };
}

function customer(v: Fill, more: Partial<CustomerOut> = {}): CustomerOut {
  return {
    id: 'cus_R4nW8kX5pQ9mL3tV7cB2zH6j', object: 'customer', livemode: false, email: v('lena@example.de'), name: v('Lena Vogt'), phone: v('+49 40 1234567'),
    shipping_address: { name: v('Lena Vogt'), line1: v('Hafenstraße 3'), line2: null, city: v('Hamburg'), region: null, postal_code: v('20457'), country: 'DE' },
    billing_address: null, store_accounts: [], orders_count: 3, paid_orders_count: 2, spent: { EUR: '18.00', USD: '107.40' },
    created: seconds('2025-12-02T10:00:00Z'), last_order_at: seconds('2026-03-04T09:12:00Z'), erased: false, ...more,
  };
}

function activity(v: Fill): ActivityEntry[] {
  const maya = { kind: 'person' as const, id: 'per_8Hc2LwQ5rT9mXz3vKp7NbY1d', name: v('maya@kestrelcoffee.example') };
  return [
    { id: 13, action: 'payment.accepted', subject_id: 'pay_N7pL3kWq9Xc2Vb8RmT4HsY6e', details: { hold_reason: v('Less than the amount asked arrived.') }, created: seconds('2026-03-04T10:02:00Z'), by: maya },
    { id: 12, action: 'webhook_endpoint.created', subject_id: 'we_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ', details: { url: v('https://shop.kestrelcoffee.example/webhooks'), events: [...PAYMENT_EVENT_TYPES] }, created: seconds('2026-03-03T16:40:00Z'), by: { kind: 'key', id: 'key_Q2mX8vLr4TnW9pKc3Zb7HfJd', name: v('secret key “Online shop server” (sk_test_…8fQz)') } },
    { id: 11, action: 'api_key.created', subject_id: 'key_N7pL3kWq9Xc2Vb8RmT4HsY6e', details: { kind: 'api', access: 'read_only', name: v('Bookkeeping export') }, created: seconds('2026-03-02T11:20:00Z'), by: maya },
    { id: 10, action: 'business.settings_updated', subject_id: BIZ_ID, details: { crypto_enabled: true }, created: seconds('2026-03-02T09:05:00Z'), by: maya },
    { id: 9, action: 'business.payout_wallet_changed', subject_id: BIZ_ID, details: { payout_wallet: '0x1111111111111111111111111111111111111111', payout_wallet_before: null }, created: seconds('2026-03-02T09:01:00Z'), by: maya },
    { id: 8, action: 'business.settings_updated', subject_id: BIZ_ID, details: { enable: ['api', 'payment_links'], disable: ['checkouts'] }, created: seconds('2026-03-01T17:30:00Z'), by: maya },
    { id: 7, action: 'business.updated', subject_id: BIZ_ID, details: { fee_bps: 100 }, created: seconds('2026-03-01T08:00:00Z'), by: { kind: 'operator', id: null, name: 'the service\'s operator' } },
  ];
}

const BIZ_ID = 'biz_4fT9kQm2VxR7pLw3Zc8HnB1d';
const account = (v: Fill) => ({ id: BIZ_ID, name: v('Kestrel Coffee Roasters'), status: 'active' as const, commerce: 'active' as const, disabled_integrations: ['checkouts' as const], payout_wallet: '0x1111111111111111111111111111111111111111', crypto_enabled: true, fee_bps: 100 });

function checkout(v: Fill, more: Partial<CheckoutOut> = {}): CheckoutOut {
  return {
    id: 'chk_P9nL2wXk7Rq4Tm8Vc3Bz6HsF', object: 'checkout', kind: 'page', slug: 'house-blend-k3x9a0qz', url: 'https://pay.kestrelcoffee.example/c/house-blend-k3x9a0qz',
    livemode: false, active: true, name: v('House blend, 1 kg'), description: v('Roasted every Tuesday in Hamburg.'), amount: '18.50', currency: 'EUR',
    success_url: v.after('https://kestrelcoffee.example/thanks?from=', 'checkout'), theme: 'dark', button_label: v('Buy beans'), crypto: true,
    routing: { choice: 'fixed', provider: 'moonpay', fallback: true }, collect: { shipping_address: true }, options: null, plans: [],
    created: seconds('2026-02-10T09:15:00Z'), updated: seconds('2026-03-01T12:00:00Z'), ...more,
  };
}

const page = { data: [] as never[], has_more: false, next_cursor: null };

/** A held underpayment (14.40 of 24.00 arrived), and the remainder asked for its rest (docs/remainders.md). */
const HELD_UNDERPAID = (v: Fill): Partial<PaymentOut> => ({ status: 'held', amount: '24.00', hold_reason: v('Less than the amount asked arrived.'), hold_acceptable: true, paid_at: null, value_coin: '14.400000', merchant_received: null });
const REMAINDER = (v: Fill): PaymentOut => payment(v, {
  id: 'pay_Rm4Xq8Vk2Lp7Tn3Wc9Bz5HsD', status: 'open', source: 'api', amount: '9.60', paid_at: null, started_at: null, value_coin: null, merchant_received: null,
  url: 'https://pay.kestrelcoffee.example/pay/pay_Rm4Xq8Vk2Lp7Tn3Wc9Bz5HsD',
});
const BOOKS = { from: '2026-03-01', to: '2026-03-31' };
/** A held payment's books: 14.40 USDC arrived; 14.256 to the payout wallet and 0.144 fee (1 %). */
function transfers(): TransferOut[] {
  const deposit = '0x7f3a9c21e4b8d6052f1e9a3c7b5d2e8f4a6c1b9d3e5f7a2c4b6d8e0f1a3c5e7b';
  const forward = '0x2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c2b4d6f8e0a1c3e5b7d9f1a3c5e7b9d0f2a';
  const row = (fields: Partial<TransferOut>): TransferOut => ({
    id: 'mov_Dp4Xq8Vk2Lp7Tn3Wc9Bz5HsA', object: 'transfer', payment_id: 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ', livemode: true, kind: 'deposit', network: 'polygon',
    txid: deposit, log_index: 41, block_number: 68_215_004, from: '0x4b20993bc481177ec7e8f571cecae8a9e22c02db', to: '0x9d5e2f1c7a3b8e4d6f0a2c5b7e9d1f3a5c7e9b2d',
    token: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', coin: 'polygon_usdc', amount: '14.400000', deposit_txid: null, deposit_log_index: null,
    disposition: 'held', needs_review: false, explorer_url: `https://polygonscan.com/tx/${deposit}`, created: seconds('2026-03-04T10:02:00Z'), ...fields,
  });
  const share = { deposit_txid: deposit, deposit_log_index: 41, disposition: null, txid: forward, explorer_url: `https://polygonscan.com/tx/${forward}`, block_number: 68_215_131, created: seconds('2026-03-04T10:07:00Z') };
  return [
    row({}),
    row({ ...share, id: 'mov_Nt5Xq8Vk2Lp7Tn3Wc9Bz5HsB', kind: 'forward_net', log_index: 12, from: '0x9d5e2f1c7a3b8e4d6f0a2c5b7e9d1f3a5c7e9b2d', to: '0x8f3cf7ad23cd3cadbd9735aff958023239c6a063', amount: '14.256000' }),
    row({ ...share, id: 'mov_Fe6Xq8Vk2Lp7Tn3Wc9Bz5HsC', kind: 'forward_fee', log_index: 13, from: '0x9d5e2f1c7a3b8e4d6f0a2c5b7e9d1f3a5c7e9b2d', to: '0x1f98431c8ad98523631ae4a59f267346ea31f984', amount: '0.144000' }),
  ];
}
const frame = (v: Fill, role: 'owner' | 'viewer' = 'owner') => ({ business: roaster(v), mode: 'test' as const, role });

export const BUSINESS_STATES: readonly PageState[] = [
  signedIn({ fn: paymentsPage, name: 'payments-list', main: true, shows: 'Test payments: paid, held, open and expired, with the filters and a next page' },
    (v, s) => paymentsPage({ session: s, ...frame(v), payments: { data: payments(v), has_more: true, next_cursor: 'pay_H8wK4mPz2Rt7Xn5Lc3Vq9BdS' }, filters: { status: '', reference: '', customer_id: '', from: '', to: '' }, later: false, books: BOOKS })),
  signedIn({ fn: paymentsPage, name: 'payments-filtered', shows: 'payments filtered by status and day, on a later page, none matching' },
    (v, s) => paymentsPage({ session: s, ...frame(v), payments: page, filters: { status: 'held', reference: 'WC-1042', customer_id: '', from: '2026-03-01', to: '2026-03-04' }, later: true, books: BOOKS })),
  signedIn({ fn: paymentsPage, name: 'payments-filter-refused', shows: 'a filter that is not a date: the form again with what was typed and the refusal, nothing listed' },
    (v, s) => paymentsPage({ session: s, ...frame(v), payments: page, filters: { status: '', reference: v('WC-1042'), customer_id: '', from: v('yesterday'), to: '' }, later: false,
      refused: 'Created from must be a date such as 2026-11-24.', books: BOOKS })),
  signedIn({ fn: paymentsPage, name: 'payments-live-empty', shows: 'no Live payments yet (Live mode: no Test banner)' },
    (v, s) => paymentsPage({ session: s, business: roaster(v), mode: 'live', role: 'owner', payments: page, filters: {}, later: false, books: BOOKS })),
  signedIn({ fn: paymentsPage, name: 'payments-books-refused', shows: 'the books export refused (a day that is not one): the list again, the export form with what was typed and why' },
    (v, s) => paymentsPage({ session: s, business: roaster(v), mode: 'live', role: 'owner', payments: page, filters: {}, later: false, books: { from: v('last month'), to: '2026-03-31' },
      booksRefused: 'From must be a date, YYYY-MM-DD.' })),
  signedIn({ fn: paymentPage, name: 'payment-paid', main: true, shows: 'a paid payment: its facts, events with a delivery being retried, and a notice that did not match' },
    (v, s) => paymentPage({ session: s, ...frame(v), timeline: timeline(v) })),
  signedIn({ fn: paymentPage, name: 'payment-waiting-forward', main: true, shows: 'a paid Live payment whose forward failed: waiting to be forwarded, the operator told, and why' },
    (v, s) => paymentPage({ session: s, ...frame(v), mode: 'live', timeline: { ...timeline(v, { livemode: true, merchant_received: null, txid_out: null }), waitingToForward: [
      { state: 'failed', since: seconds('2026-03-04T09:16:00Z'), reason: v('the gas wallet 0x6d4c8a9e2b1f3c5d7e9a0b2c4d6e8f0a1b3c5d7e holds 0 of polygon\'s native coin and this forward needs up to 0.0042: fund it') },
    ] } })),
  signedIn({ fn: paymentPage, name: 'payment-held', main: true, shows: 'a held underpayment its developer may accept, or ask the buyer the rest of' },
    (v, s) => paymentPage({ session: s, ...frame(v), timeline: { ...timeline(v, HELD_UNDERPAID(v)), rest: { received: '14.40', missing: '9.60', askable: true, remainder: null, of: null } } })),
  signedIn({ fn: paymentPage, name: 'payment-live-books', main: true, shows: 'a Live held underpayment and its books: what arrived, what reached the payout wallet, the fee and the gas, each transaction linked' },
    (v, s) => paymentPage({ session: s, business: roaster(v), mode: 'live', role: 'owner', transfers: transfers(), timeline: { ...timeline(v, { ...HELD_UNDERPAID(v), livemode: true, deposit_address: '0x9d5e2f1c7a3b8e4d6f0a2c5b7e9d1f3a5c7e9b2d', network: 'polygon', coin: 'polygon_usdc' }), rest: { received: '14.40', missing: '9.60', askable: true, remainder: null, of: null } } })),
  signedIn({ fn: paymentPage, name: 'payment-rest-asked', main: true, shows: 'right after asking for the rest: the remainder and the address the buyer pays it at' },
    (v, s) => paymentPage({ session: s, ...frame(v), restAsked: true, timeline: { ...timeline(v, HELD_UNDERPAID(v)), rest: { received: '14.40', missing: '9.60', askable: false, remainder: REMAINDER(v), of: null } } })),
  signedIn({ fn: paymentPage, name: 'payment-remainder', shows: 'a remainder paid: its page names the held payment it completes' },
    (v, s) => paymentPage({ session: s, ...frame(v), timeline: { ...timeline(v, { id: REMAINDER(v).id, amount: '9.60', source: 'api' }), rest: { received: null, missing: null, askable: false, remainder: null, of: 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ' } } })),
  signedIn({ fn: paymentPage, name: 'payment-accepted', shows: 'right after accepting a held payment' },
    (v, s) => paymentPage({ session: s, ...frame(v), timeline: timeline(v, { hold_reason: v('Less than the amount asked arrived.') }), accepted: true })),
  signedIn({ fn: paymentPage, name: 'payment-held-viewer', shows: 'a held payment as a viewer sees it: nothing to accept' },
    (v, s) => paymentPage({ session: s, ...frame(v, 'viewer'), timeline: timeline(v, { status: 'held', hold_acceptable: true }) }), VIEWER),
  signedIn({ fn: paymentAcceptPage, name: 'payment-accept', main: true, shows: 'the confirmation step before accepting a held payment' },
    (v, s) => paymentAcceptPage({ session: s, ...frame(v), payment: payment(v, { status: 'held', hold_reason: v('Less than the amount asked arrived.'), hold_acceptable: true, value_coin: '42.960000' }), rest: { received: '42.96', missing: '10.74', askable: true, remainder: null, of: null } })),
  signedIn({ fn: ordersPage, name: 'orders-list', main: true, shows: 'orders with totals, status and fulfilment' },
    (v, s) => ordersPage({ session: s, ...frame(v), orders: { data: [order(v), { ...order(v), id: 'ord_Q2mX8vLr4TnW9pKc3Zb7HfJd', display_number: '#1041', fulfillment: 'fulfilled', status: 'held' }], has_more: false, next_cursor: null }, filters: {}, later: false })),
  signedIn({ fn: orderPage, name: 'order-detail', main: true, shows: 'an order: items, discount and shipping, its payment, fulfilment to change, a refund reported' },
    (v, s) => orderPage({ session: s, ...frame(v), order: order(v), saved: true })),
  signedIn({ fn: orderPage, name: 'order-viewer', shows: 'an order as a viewer sees it' },
    (v, s) => orderPage({ session: s, ...frame(v, 'viewer'), order: order(v) }), VIEWER),
  signedIn({ fn: paymentLinksPage, name: 'payment-links-list', main: true, shows: 'payment links, open, paid and canceled' },
    (v, s) => paymentLinksPage({ session: s, ...frame(v), links: { data: [link(v), link(v, { id: 'pay_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', status: 'paid', description: v('Espresso blend, 5 kg'), paid_at: seconds('2026-03-05T10:00:00Z') })], has_more: false, next_cursor: null }, filters: {}, later: false })),
  signedIn({ fn: paymentLinkNewPage, name: 'payment-link-new', main: true, shows: 'the form to create a payment link' },
    (v, s) => paymentLinkNewPage({ session: s, ...frame(v) })),
  signedIn({ fn: paymentLinkNewPage, name: 'payment-link-refused', shows: 'the form again after the API refused a field, with its message beside it' },
    (v, s) => paymentLinkNewPage({ session: s, ...frame(v), values: { amount: v('12,50'), currency: 'EUR', description: v('Gift card'), collect_phone: 'on' }, error: { field: 'amount', message: v('Enter an amount like 25.00: from 1.00 to 100000.00, with at most two decimals.') } })),
  signedIn({ fn: paymentLinkCancelPage, name: 'payment-link-cancel', shows: 'the confirmation step before a link is canceled for good' },
    (v, s) => paymentLinkCancelPage({ session: s, ...frame(v), link: link(v) })),
  signedIn({ fn: paymentLinkPage, name: 'payment-link-created', main: true, shows: 'a link right after it was created: the addresses to copy, its facts, cancel' },
    (v, s) => paymentLinkPage({ session: s, ...frame(v), link: link(v), notice: 'created' })),
  signedIn({ fn: paymentLinkPage, name: 'payment-link-canceled', shows: 'a canceled link' },
    (v, s) => paymentLinkPage({ session: s, ...frame(v), link: link(v, { status: 'expired', canceled_at: seconds('2026-03-05T08:00:00Z') }), notice: 'canceled' })),
  signedIn({ fn: customersPage, name: 'customers-list', main: true, shows: 'customers with their orders and spend per currency, one erased' },
    (v, s) => customersPage({ session: s, ...frame(v), customers: { data: [customer(v), customer(v, { id: 'cus_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', email: null, name: null, phone: null, erased: true, spent: { USD: '12.00' }, orders_count: 1, paid_orders_count: 1 })], has_more: false, next_cursor: null }, filters: { email: '' }, later: false })),
  signedIn({ fn: customersPage, name: 'customers-none', shows: 'a search by email that finds no one' },
    (v, s) => customersPage({ session: s, ...frame(v), customers: page, filters: { email: v('nobody@example.com') }, later: false })),
  signedIn({ fn: customerPage, name: 'customer-detail', main: true, shows: 'a customer: details, orders, spend, the private note' },
    (v, s) => customerPage({ session: s, ...frame(v), customer: customer(v), orders: [order(v)], note: v('Prefers whole beans; call before delivery.'), notice: 'note-saved' })),
  signedIn({ fn: customerPage, name: 'customer-viewer', shows: 'a customer as a viewer sees them: the note, no form, no erasure' },
    (v, s) => customerPage({ session: s, ...frame(v, 'viewer'), customer: customer(v), orders: [], note: v('Prefers whole beans.') }), VIEWER),
  signedIn({ fn: customerPage, name: 'customer-erased', shows: 'right after erasing a customer\'s details' },
    (v, s) => customerPage({ session: s, ...frame(v), customer: customer(v, { email: null, name: null, phone: null, shipping_address: null, erased: true }), orders: [], note: null, notice: 'erased' })),
  signedIn({ fn: customerErasePage, name: 'customer-erase', main: true, shows: 'the typed confirmation before erasing, after a wrong try' },
    (v, s) => customerErasePage({ session: s, ...frame(v), customer: customer(v), error: v('Type lena@example.de exactly, or cancel.') })),
  signedIn({ fn: settingsPage, name: 'settings-owner', main: true, shows: 'the account\'s settings as an owner changes them, and its activity naming who did what' },
    (v, s) => settingsPage({ session: s, ...frame(v), account: account(v), activity: { entries: activity(v), next: 7 }, notice: true })),
  signedIn({ fn: settingsPage, name: 'settings-live-checklist', main: true, shows: 'Live settings: the go-live checklist with Polygon watched, Base unhealthy, no card provider and no Live endpoint' },
    (v, s) => settingsPage({
      session: s, ...frame(v), mode: 'live', account: account(v), activity: { entries: [], next: null },
      checklist: {
        payoutWallet: account(v).payout_wallet, freshSeconds: 120, providers: [], liveEndpoints: 0,
        networks: [
          { network: 'Polygon', tokens: ['USDC'], healthy: true, served: true, reportedAt: new Date('2026-03-04T10:15:00Z'), problem: null, forwardsHappen: true, forwardingProblem: null },
          { network: 'Base', tokens: ['USDC'], healthy: false, served: false, reportedAt: new Date('2026-03-04T10:14:45Z'), problem: v('Every RPC URL of base answers 429.'), forwardsHappen: true, forwardingProblem: null },
        ],
      },
    })),
  signedIn({ fn: settingsPage, name: 'settings-live-nothing-served', shows: 'Live settings with no processor report yet: the account says Live buyers cannot pay' },
    (v, s) => settingsPage({
      session: s, ...frame(v), mode: 'live', account: { ...account(v), payout_wallet: null }, activity: { entries: [], next: null },
      checklist: { payoutWallet: null, freshSeconds: 120, providers: [v('MoonPay'), v('Ramp Network')], liveEndpoints: 1, networks: [] },
    })),
  signedIn({ fn: settingsPage, name: 'settings-viewer', shows: 'the settings as a viewer reads them' },
    (v, s) => settingsPage({ session: s, ...frame(v, 'viewer'), account: { ...account(v), commerce: 'paused', crypto_enabled: false, payout_wallet: null }, activity: { entries: [], next: null } }), VIEWER),
  signedIn({ fn: settingsPage, name: 'settings-suspended', shows: 'a suspended account\'s settings: read, not changed, and the notice saying so on every page' },
    (v, s) => settingsPage({ session: s, ...frame(v), business: { ...roaster(v), status: 'suspended' }, account: { ...account(v), status: 'suspended' }, activity: { entries: [], next: null } })),
  signedIn({ fn: settingsPage, name: 'settings-refused', shows: 'a payout wallet that is not one, refused' },
    (v, s) => settingsPage({ session: s, ...frame(v), account: account(v), activity: { entries: [], next: null }, error: { field: 'payout_wallet', message: v('The payout wallet must be a 0x-prefixed address of 40 hexadecimal characters.') } })),
  signedIn({ fn: payoutWalletConfirmPage, name: 'payout-wallet-confirm', main: true, shows: 'a new payout wallet asked for: the old and new address in full, then Confirm' },
    (v, s) => payoutWalletConfirmPage({ session: s, ...frame(v), recent: true, change: { current: v('0x1111111111111111111111111111111111111111'), payout_wallet: v('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), requested_at: new Date('2026-03-04T10:02:00Z') } })),
  signedIn({ fn: payoutWalletConfirmPage, name: 'payout-wallet-sign-in-again', shows: 'the confirmation after an old sign-in: Confirm leads through signing in again' },
    (v, s) => payoutWalletConfirmPage({ session: s, ...frame(v), recent: false, change: { current: null, payout_wallet: v('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), requested_at: new Date('2026-03-04T10:02:00Z') } })),
  signedIn({ fn: checkoutsPage, name: 'checkouts-list', main: true, shows: 'checkouts: a page and a pricing table, filtered by kind' },
    (v, s) => checkoutsPage({ session: s, ...frame(v), checkouts: { data: [checkout(v), checkout(v, { id: 'chk_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', kind: 'pricing_table', name: v('Subscriptions'), slug: 'subscriptions-q7w2e9r4' })], has_more: false, next_cursor: null }, filters: { kind: '' }, later: false })),
  signedIn({ fn: checkoutFormPage, name: 'checkout-new', main: true, shows: 'the form of a new checkout page' },
    (v, s) => checkoutFormPage({ session: s, ...frame(v), values: { theme: 'light', crypto: 'on', routing_choice: 'smart', routing_fallback: 'on' } })),
  signedIn({ fn: checkoutFormPage, name: 'checkout-edit-refused', shows: 'changing a checkout, a price the API refused beside its field' },
    (v, s) => checkoutFormPage({ session: s, ...frame(v), checkout: checkout(v), values: { ...formOf(checkout(v)), amount: v('0.10') }, error: { field: 'amount', message: v('Enter an amount like 25.00: from 1.00 to 100000.00, with at most two decimals.') } })),
  signedIn({ fn: checkoutPage, name: 'checkout-detail', main: true, shows: 'a checkout: its address, the buy-button snippet, its settings' },
    (v, s) => checkoutPage({ session: s, ...frame(v), checkout: checkout(v), notice: 'saved' })),
  signedIn({ fn: checkoutPage, name: 'checkout-deleted', shows: 'a deleted checkout, as a viewer sees it' },
    (v, s) => checkoutPage({ session: s, ...frame(v, 'viewer'), checkout: checkout(v, { active: false }) }), VIEWER),
  signedIn({ fn: checkoutDeletePage, name: 'checkout-delete', shows: 'the confirmation before a checkout is deleted for good' },
    (v, s) => checkoutDeletePage({ session: s, ...frame(v), checkout: checkout(v) })),
  signedIn({ fn: homePage, name: 'home-time-zone-refused', shows: 'a time zone that is not one, refused beside its field' },
    (v, s) => homePage(s, [{ ...roaster(v), role: 'owner' }], { error: 'Enter a time zone as in Europe/Berlin or America/New_York, or UTC.', typed: v('Mars/Olympus') })),
];
