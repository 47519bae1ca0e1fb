import type { VNode } from 'preact';
import type { CheckoutRow } from '../../src/db/schema.ts';
import { de } from '../../src/pages/messages/de.ts';
import { en } from '../../src/pages/messages/en.ts';
import type { Messages } from '../../src/pages/messages/en.ts';
import { checkoutClosedPage, checkoutPage } from '../../src/pages/views/checkout.ts';
import { pricingTablePage } from '../../src/pages/views/pricing-table.ts';
import { payerMessagePage } from '../../src/pages/views/message.ts';
import { payChoosePage } from '../../src/pages/views/pay-choose.ts';
import { payClosedPage, payFailedPage, payHeldPage, payPaidPage, payUnavailablePage } from '../../src/pages/views/pay-outcome.ts';
import { payPendingPage } from '../../src/pages/views/pay-pending.ts';
import { payStartPage } from '../../src/pages/views/pay-start.ts';
import { testProviderPage } from '../../src/pages/views/test-provider.ts';
import { timeLeft } from '../../src/pages/views/time-left.ts';
import { trackPage } from '../../src/pages/views/track.ts';
import { walletOf } from '../../src/pages/views/wallet-of.ts';
import { NO_BRAND } from '../../src/resources/brand/queries.ts';
import type { CheckoutView } from '../../src/resources/payer/checkout.ts';
import type { PayerView } from '../../src/resources/payer/view.ts';
import type { Viewer } from '../../src/ui/index.ts';
import type { Fill, PageState } from './state-kit.ts';
import { FIXTURE_BRAND_COLOR, FIXTURE_LOGO_SHA256 } from '../support/brand-fixture.ts';

// The buyers' pages in each state a buyer meets them, with the data of a coffee roaster: a
// payment link for a bag of beans, a store order with lines, and a checkout. What a merchant,
// store or buyer typed goes through `v` (see states.ts); ids and addresses the service makes do not.

const DEPOSIT = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const NOW = new Date('2026-03-04T09:12:00Z');
const TRACK_STATUS = '/track/trk_Vq3kX9mL2wR7tN4pC8bZ6hJ1/status';

/** A payment's view as the payer page reads it: a Test payment link, open, not started. */
function payment(v: Fill, more: Partial<PayerView> = {}): PayerView {
  return {
    id: 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ',
    livemode: false,
    source: 'payment_link',
    status: 'open',
    amountMinor: 2450,
    currency: 'USD',
    description: v('Ethiopia Guji, 1 kg whole beans'),
    planLabel: null,
    memo: v('Thanks for the wholesale order. Beans roast on Tuesday and ship the same day.'),
    customerName: v('Priya Raman'),
    given: { name: null, phone: null },
    customerEmail: v('priya@harbourcafe.example'),
    collect: null,
    successUrl: null,
    reference: null,
    createdAt: new Date('2026-03-04T09:00:00Z'),
    expiresAt: new Date('2026-03-05T09:00:00Z'),
    startedAt: null,
    paidAt: null,
    canceledAt: null,
    depositAddress: null,
    usdValueMinor: null,
    provider: null,
    providerName: null,
    receivedMinor: null,
    valueCoin: null,
    remainder: null,
    paysRest: false,
    order: null,
    business: { id: 'biz_4fT9kQm2VxR7pLw3Zc8HnB1d', name: v('Kestrel Coffee Roasters'), status: 'active', commerce: 'active', disabled_integrations: [], payout_wallet: null, crypto_enabled: true, fee_bps: 150 },
    brand: NO_BRAND,
    checkout: null,
    routing: { choice: 'smart', provider: null, fallback: false },
    ...more,
  };
}

/** The rest of an underpayment the merchant asked for (docs/remainders.md). */
const REST: NonNullable<PayerView['remainder']> = { id: 'pay_Rm4Xq8Vk2Lp7Tn3Wc9Bz5HsD', amountMinor: 490, status: 'open' };

const started = (more: Partial<PayerView> = {}): Partial<PayerView> => ({ startedAt: new Date('2026-03-04T09:05:00Z'), usdValueMinor: 2450, ...more });

/** A store's order: a session sent with lines, collecting the buyer's name and shipping address. */
function storeOrder(v: Fill): Partial<PayerView> {
  return {
    id: 'pay_Tn8Wc3Bz6HsJ5dF1gY0aLq7X',
    source: 'api',
    amountMinor: 5370,
    description: v('Order #1042 at Kestrel Coffee Roasters'),
    memo: null,
    customerName: null,
    customerEmail: null,
    collect: { name: true, shipping_address: true },
    order: {
      items: [
        { name: v('Ethiopia Guji'), variant: v('1 kg, whole beans'), sku: null, quantity: 1, unit_amount_minor: 2450, amount_minor: 2450 },
        { name: v('Colombia Huila'), variant: v('250 g, filter grind'), sku: null, quantity: 2, unit_amount_minor: 900, amount_minor: 1800 },
        { name: v('Ceramic dripper'), variant: null, sku: null, quantity: 1, unit_amount_minor: 1200, amount_minor: 1200 },
      ],
      subtotalMinor: 5450, discountMinor: 545, shippingMinor: 465, taxMinor: 0, totalMinor: 5370, shipTo: null, billTo: null,
    },
  };
}

function checkout(v: Fill, more: Partial<CheckoutRow> = {}): CheckoutView {
  const view = payment(v);
  return {
    business: view.business,
    brand: view.brand,
    checkout: {
      id: 'chk_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ', business_id: view.business.id, livemode: false, kind: 'page', slug: 'kestrel-house-blend', active: true,
      name: v('House blend subscription, first bag'), description: v('A washed Central American blend, roasted to order. Ships in 2 days.'),
      amount_minor: 1800, currency: 'USD', success_url: null, theme: 'light', button_label: null, crypto: true,
      routing: { choice: 'smart', provider: null, fallback: false }, collect: { name: true }, options: null, plans: [],
      created_at: NOW, updated_at: NOW, ...more,
    },
  };
}

/** A pricing table of three plans with a Monthly/Yearly switch, the second recommended. */
function pricingView(v: Fill, more: Partial<CheckoutRow> = {}): CheckoutView {
  const plan = (id: string, name: string, monthly: string, yearly: string, features: string[], recommended = false) =>
    ({ id, name: v(name), description: recommended ? v('For a daily cup') : null, prices: [{ amount: monthly, unit: v('month') }, { amount: yearly, unit: v('year') }], features: features.map((feature) => v(feature)), recommended });
  return checkout(v, {
    kind: 'pricing_table', slug: 'coffee-club', name: v('Coffee club'), amount_minor: 900, collect: null, options: [v('Monthly'), v('Yearly')],
    plans: [plan('plan_1', 'Taster', '9.00', '90.00', ['One bag a month']), plan('plan_2', 'Regular', '18.00', '180.00', ['Two bags a month', 'Free shipping'], true), plan('plan_3', 'Café', '60.00', '600.00', ['Eight bags a month'])],
    ...more,
  });
}

const at = (id: string) => {
  const page = `/pay/${encodeURIComponent(id)}`;
  return {
    page, start: `${page}/start`, provider: `${page}/provider`, test: `${page}/test`, details: `${page}?step=details`, choose: `${page}?step=choose`,
    coin: (coin: string) => `${page}?coin=${coin}`,
  };
};

const PROVIDERS = [
  { id: 'moonpay', name: 'MoonPay', recommended: true },
  { id: 'ramp', name: 'Ramp Network', recommended: false },
  { id: 'banxa', name: 'Banxa', recommended: false },
];

type About = Omit<PageState, 'render'>;

/** The time left to pay as the page says it when the state is photographed (NOW). */
const left = (t: Messages, view: PayerView) => timeLeft(t, view.expiresAt.getTime() - NOW.getTime());

/** A payer page: what a buyer's browser is given (a form token and this response's nonce). */
function payer(about: About, make: (v: Fill, t: Messages) => VNode, t: Messages = en): PageState {
  return { ...about, render: (v): { page: VNode; viewer: Viewer } => ({ page: make(v, t), viewer: { csrfToken: 'Hq3xGawGW7JCj9b-4QoslGDzP_urR1dnDluS35aeuw', timeZone: 'UTC', nonce: 'fMesjbXSKQmdkImVuTW8Jg==' } }) };
}

export const PAYER_STATES: readonly PageState[] = [
  payer({ main: true, fn: payStartPage, name: 'pay-start', shows: 'a Test payment link opened: what is paid, the note, the email prefilled' },
    (v, t) => payStartPage({ t, view: payment(v), action: at(payment(v).id).start, values: { email: v('priya@harbourcafe.example') }, errors: {}, timeLeft: left(t, payment(v)) })),
  payer({ main: true, fn: payStartPage, name: 'pay-start-errors', shows: 'a store order\'s lines and totals; the details the store collects, one refused beside its field' }, (v, t) => {
    const view = payment(v, storeOrder(v));
    return payStartPage({
      t, view, action: at(view.id).start,
      values: { 'email': v('sam@example.org'), 'name': v('Sam Okafor'), 'shipping_address.line1': v('14 Quay Street'), 'shipping_address.city': v('Springfield'), 'shipping_address.region': v('Nowhere'), 'shipping_address.postal_code': v('62704'), 'shipping_address.country': 'US' },
      errors: { 'shipping_address.region': v(t.fieldError({ code: 'invalid_address', message: 'region must be a US region code, one of AL, AK.', field: 'shipping_address.region', country: 'US', value: 'Nowhere' })) },
      timeLeft: left(t, view),
    });
  }),
  payer({ main: true, fn: payStartPage, name: 'pay-start-de', shows: 'the same order for a browser that asks for German: every word, price and date in German' }, (v, t) => {
    const view = payment(v, storeOrder(v));
    return payStartPage({
      t, view, action: at(view.id).start,
      values: { 'email': v('lena@example.de'), 'name': v('Lena Vogt'), 'shipping_address.line1': v('Hafenstraße 3'), 'shipping_address.city': v('Hamburg'), 'shipping_address.postal_code': v('2045'), 'shipping_address.country': 'DE' },
      errors: { 'shipping_address.postal_code': v(t.fieldError({ code: 'invalid_address', message: 'postal_code is not a valid DE postal code.', field: 'shipping_address.postal_code', country: 'DE', value: '2045' })) },
      timeLeft: left(t, view),
    });
  }, de),
  payer({ main: true, fn: payChoosePage, name: 'pay-choose-test', shows: 'Test mode, started: card providers best first, and the Test wallet panel' }, (v, t) => {
    const view = payment(v, started());
    return payChoosePage({ t, view, paths: at(view.id), providers: PROVIDERS, wallet: walletOf(t, view, { kind: 'test' }, undefined), timeLeft: left(t, view) });
  }),
  payer({ main: true, fn: payChoosePage, name: 'pay-choose-declined', shows: 'back from the Test provider after a declined card: nothing taken, choose again' }, (v, t) => {
    const view = payment(v, started({ status: 'pending', provider: 'moonpay', providerName: 'MoonPay' }));
    return payChoosePage({ t, view, paths: at(view.id), providers: PROVIDERS, wallet: walletOf(t, view, { kind: 'test' }, undefined), declined: true, timeLeft: left(t, view) });
  }),
  payer({ main: true, fn: payChoosePage, name: 'pay-choose-live', shows: 'Live, started: card providers and the buyer\'s own wallet (QR code, address, amount, network)' }, (v, t) => {
    const view = payment(v, started({ livemode: true, depositAddress: DEPOSIT }));
    return payChoosePage({ t, view, paths: at(view.id), providers: PROVIDERS.slice(0, 2), wallet: walletOf(t, view, { kind: 'live', address: DEPOSIT, usdValueMinor: 2450, coins: ['polygon_usdc'] }, undefined), timeLeft: left(t, view) });
  }),
  payer({ main: true, fn: payChoosePage, name: 'pay-choose-wallet-only', shows: 'Live with no card provider for this buyer: the wallet only' }, (v, t) => {
    const view = payment(v, started({ livemode: true, depositAddress: DEPOSIT }));
    return payChoosePage({ t, view, paths: at(view.id), providers: [], wallet: walletOf(t, view, { kind: 'live', address: DEPOSIT, usdValueMinor: 2450, coins: ['polygon_usdc'] }, undefined), timeLeft: left(t, view) });
  }),
  payer({ main: true, fn: payChoosePage, name: 'pay-choose-live-coins', shows: 'Live with Polygon and Base watched: the buyer picks the coin by a link; Base shown' }, (v, t) => {
    const view = payment(v, started({ livemode: true, depositAddress: DEPOSIT }));
    return payChoosePage({ t, view, paths: at(view.id), providers: PROVIDERS.slice(0, 1), wallet: walletOf(t, view, { kind: 'live', address: DEPOSIT, usdValueMinor: 2450, coins: ['polygon_usdc', 'base_usdc'] }, 'base_usdc'), timeLeft: left(t, view) });
  }),
  payer({ main: true, fn: payUnavailablePage, name: 'pay-unavailable', shows: 'Live and no network watched by a healthy processor: words, no form and no address' }, (v, t) => {
    const view = payment(v, started({ livemode: true, depositAddress: DEPOSIT }));
    return payUnavailablePage({ t, view });
  }),
  payer({ main: true, fn: payPendingPage, name: 'pay-pending', shows: 'the buyer went to a card provider: the page waits for the money' }, (v, t) => {
    const view = payment(v, started({ status: 'pending', provider: 'moonpay', providerName: 'MoonPay' }));
    return payPendingPage({ t, view, paths: { self: at(view.id).page, choose: at(view.id).choose, testProvider: `${at(view.id).page}/test-provider/moonpay` }, timeLeft: left(t, view) });
  }),
  payer({ main: true, fn: testProviderPage, name: 'test-provider', shows: 'Test mode\'s stand-in for the chosen card provider: the outcomes a card can have' }, (v, t) => {
    const view = payment(v, started({ status: 'pending', provider: 'moonpay', providerName: 'MoonPay' }));
    return testProviderPage({ t, view, provider: { id: 'moonpay', name: 'MoonPay' }, action: `${at(view.id).page}/test-provider/moonpay`, back: at(view.id).page });
  }),
  payer({ main: true, fn: payPaidPage, name: 'pay-paid', shows: 'paid: the receipt, then on to the merchant\'s success address' }, (v, t) => {
    const view = payment(v, started({ status: 'paid', paidAt: new Date('2026-03-04T09:14:00Z'), provider: 'moonpay', providerName: 'MoonPay' }));
    return payPaidPage({ t, view, next: v.after('https://kestrelcoffee.example/thanks?order=', 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ') });
  }),
  payer({ fn: payPaidPage, name: 'pay-paid-plan', shows: 'paid on a pricing table: the plan and option chosen under what was paid' }, (v, t) =>
    payPaidPage({ t, view: payment(v, started({ status: 'paid', source: 'checkout', description: v('Coffee club: Heavy'), planLabel: v('Heavy, Yearly: 300.00 USD / year'), amountMinor: 30000, paidAt: new Date('2026-03-04T09:14:00Z'), providerName: 'USDC on Polygon' })), next: null })),
  payer({ main: true, fn: payPaidPage, name: 'pay-paid-no-next', shows: 'paid, with no success address: the receipt is the last page' }, (v, t) =>
    payPaidPage({ t, view: payment(v, started({ status: 'paid', paidAt: new Date('2026-03-04T09:14:00Z'), providerName: 'USDC on Polygon' })), next: null })),
  payer({ main: true, fn: payHeldPage, name: 'pay-held', shows: 'less than asked arrived: how much arrived and is missing, what happens next, in plain words' },
    (v, t) => payHeldPage({ t, view: payment(v, started({ status: 'held', receivedMinor: 1960, valueCoin: '19.600000' })) })),
  payer({ main: true, fn: payHeldPage, name: 'pay-held-rest-asked', shows: 'the merchant asked for the rest: what is missing, and the button that pays it' },
    (v, t) => payHeldPage({ t, view: payment(v, started({ status: 'held', receivedMinor: 1960, valueCoin: '19.600000', remainder: REST })) })),
  payer({ main: true, fn: payHeldPage, name: 'pay-held-rest-asked-de', shows: 'the same in German' },
    (v, t) => payHeldPage({ t, view: payment(v, started({ status: 'held', receivedMinor: 1960, valueCoin: '19.600000', remainder: REST })) }), de),
  payer({ main: true, fn: payStartPage, name: 'pay-start-rest', shows: 'the rest of an underpayment opened from the held page: what is due now, and what arrived earlier' }, (v, t) => {
    const view = payment(v, {
      id: REST.id, source: 'api', amountMinor: REST.amountMinor, memo: null, customerName: null, paysRest: true,
      order: { items: [{ name: v('Ethiopia Guji, 1 kg whole beans'), variant: null, sku: null, quantity: 1, unit_amount_minor: 2450, amount_minor: 2450 }], subtotalMinor: 2450, discountMinor: 0, shippingMinor: 0, taxMinor: 0, totalMinor: 2450, shipTo: null, billTo: null },
    });
    return payStartPage({ t, view, action: at(view.id).start, values: { email: v('priya@harbourcafe.example') }, errors: {}, timeLeft: left(t, view) });
  }),
  payer({ main: true, fn: payHeldPage, name: 'pay-held-rest-paid', shows: 'the rest was paid too: the buyer is done' },
    (v, t) => payHeldPage({ t, view: payment(v, started({ status: 'held', receivedMinor: 1960, valueCoin: '19.600000', remainder: { ...REST, status: 'paid' } })) })),
  payer({ fn: payHeldPage, name: 'pay-held-more', shows: 'more than was due arrived, held for another reason: what arrived and what was due' },
    (v, t) => payHeldPage({ t, view: payment(v, started({ status: 'held', receivedMinor: 2450, valueCoin: '26.000000' })) })),
  payer({ main: true, fn: payFailedPage, name: 'pay-failed', shows: 'a payment that failed: nothing taken, ask for a new link' },
    (v, t) => payFailedPage({ t, view: payment(v, started({ status: 'failed' })) })),
  payer({ main: true, fn: payClosedPage, name: 'pay-expired', shows: 'the time ran out: no longer takes payments' },
    (v, t) => payClosedPage({ t, view: payment(v, { status: 'expired' }) })),
  payer({ main: true, fn: payClosedPage, name: 'pay-expired-test-panel', shows: 'Test mode, started and then expired: money can still be played out as arriving late' },
    (v, t) => payClosedPage({ t, view: payment(v, started({ status: 'expired' })), testAction: at(payment(v).id).test })),
  payer({ main: true, fn: payClosedPage, name: 'pay-canceled', shows: 'the merchant canceled the link' },
    (v, t) => payClosedPage({ t, view: payment(v, { status: 'expired', canceledAt: new Date('2026-03-04T11:00:00Z') }) })),
  payer({ main: true, fn: trackPage, name: 'track-open', shows: 'the tracking page of an open link: status, amount, times; no payer details' },
    (v, t) => trackPage({ t, view: payment(v), statusUrl: TRACK_STATUS })),
  payer({ main: true, fn: trackPage, name: 'track-held', shows: 'the tracking page of a held link: how much was received' },
    (v, t) => trackPage({ t, view: payment(v, started({ status: 'held', receivedMinor: 1960 })), statusUrl: TRACK_STATUS })),
  payer({ main: true, fn: trackPage, name: 'track-paid', shows: 'the tracking page once paid' },
    (v, t) => trackPage({ t, view: payment(v, started({ status: 'paid', paidAt: new Date('2026-03-04T09:14:00Z') })), statusUrl: TRACK_STATUS })),
  payer({ main: true, fn: checkoutPage, name: 'checkout', shows: 'a checkout\'s page in its light theme: what it sells, the price on the button' },
    (v, t) => checkoutPage({ t, view: checkout(v), action: '/c/kestrel-house-blend', values: {}, errors: {} })),
  payer({ main: true, fn: checkoutPage, name: 'checkout-dark', shows: 'a checkout in its dark theme with its own button label' },
    (v, t) => checkoutPage({ t, view: checkout(v, { theme: 'dark', button_label: v('Start my subscription') }), action: '/c/kestrel-house-blend', values: {}, errors: {} })),
  payer({ main: true, fn: pricingTablePage, name: 'pricing-table', shows: 'a pricing table: a button on each plan card, the recommended plan selected, each price one payment, the Monthly/Yearly switch' },
    (v, t) => pricingTablePage({ t, view: pricingView(v), action: '/c/coffee-club', option: 0, values: {}, errors: {} })),
  payer({ main: true, fn: pricingTablePage, name: 'pricing-table-yearly', shows: 'a dark pricing table on its second option, with its own button label' },
    (v, t) => pricingTablePage({ t, view: pricingView(v, { theme: 'dark', button_label: v('Join the club') }), action: '/c/coffee-club', option: 1, values: {}, errors: {} })),
  payer({ main: true, fn: pricingTablePage, name: 'pricing-table-chosen', shows: 'a pricing table whose buyer chose another plan than the recommended one (the form sent back, the email refused)' },
    (v, t) => pricingTablePage({ t, view: pricingView(v), action: '/c/coffee-club', option: 1, values: { plan: 'plan_3', option: '1', email: v('sam@') },
      errors: { email: v('Enter a valid email address.') } })),
  payer({ fn: pricingTablePage, name: 'pricing-table-errors', shows: 'a pricing table without options: a forged plan refused (the recommended one selected again) and the email refused' },
    (v, t) => pricingTablePage({ t, view: pricingView(v, { options: null }), action: '/c/coffee-club', option: 0, values: { plan: v('plan_9'), email: v('sam@') },
      errors: { plan: v('That plan is not offered here. Choose one of the plans shown.'), email: v('Enter a valid email address.') } })),
  payer({ fn: pricingTablePage, name: 'pricing-table-de', shows: 'a pricing table in German: one payment for a month, the first plan chosen' },
    (v, t) => pricingTablePage({ t, view: pricingView(v), action: '/c/coffee-club', option: 0, values: { plan: 'plan_1' }, errors: {} }), de),
  payer({ main: true, fn: checkoutClosedPage, name: 'checkout-closed', shows: 'a deleted checkout: it takes no new buyers' },
    (v, t) => checkoutClosedPage({ t, view: checkout(v, { active: false }) })),
  payer({ main: true, fn: checkoutClosedPage, name: 'checkout-paused', shows: 'a checkout whose account cannot take payments for now' },
    (v, t) => checkoutClosedPage({ t, view: { ...checkout(v), business: { ...checkout(v).business, commerce: 'paused' } } })),
  payer({ main: true, fn: payerMessagePage, name: 'payer-not-found', fixed: true, shows: 'an address with no payment behind it' },
    (_v, t) => payerMessagePage({ t, title: t.notFoundTitle, text: t.notFoundText })),
  payer({ main: true, fn: payerMessagePage, name: 'payer-too-many', fixed: true, shows: 'too many tries from one address: try again in a minute' },
    (_v, t) => payerMessagePage({ t, title: t.tooManyTitle, text: t.tooManyText })),
  // Issue 23 brand: the business's logo beside its name and its colour on the pay button.
  payer({ main: true, fn: payStartPage, name: 'pay-start-branded', shows: 'a payment link of a business with a logo and a brand colour: the logo by its name, the button in its colour' },
    (v, t) => payStartPage({ t, view: payment(v, { brand: FIXTURE_BRAND }), action: at(payment(v).id).start, values: { email: v('priya@harbourcafe.example') }, errors: {}, timeLeft: null })),
  payer({ main: true, fn: checkoutPage, name: 'checkout-branded-dark', shows: 'a dark checkout of a branded business: logo and brand colour on the dark theme' },
    (v, t) => checkoutPage({ t, view: { ...checkout(v, { theme: 'dark' }), brand: FIXTURE_BRAND }, action: '/c/kestrel-house-blend', values: {}, errors: {} })),
];

/** The brand of a business with a logo and a colour (served to the states by test/support/serve-pages.ts). */
const FIXTURE_BRAND = { color: FIXTURE_BRAND_COLOR, logo: FIXTURE_LOGO_SHA256 };

/** Exported functions of the payer views that are not pages: what renders them. */
export const PAYER_NOT_PAGES: Record<string, string> = {
  PayerPage: 'the frame of every payer page, rendered by each payer state',
};
