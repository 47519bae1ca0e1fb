import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY, MINUTE } from '../../src/core/clock.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/events/types.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { call, eventsOf, firstAttemptJobsFor, typesOf } from './support.ts';

// Every sequence of the spec 6.2 table, end to end through the API, with the events asserted in
// order and in content, and their deliveries queued for the subscribed endpoint.

let t: TestApp;
let key: string;
let endpointId: string;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true });
  const biz = await t.business();
  key = (await biz.key()).secret;
  endpointId = (await call(t, key, 'POST', '/v1/webhook_endpoints', { url: 'http://localhost:9/hooks' })).id;
});
afterAll(async () => t?.close());

const ORDER = {
  id: 'store-1042',
  number: '#1042',
  url: 'https://shop.example/orders/1042',
  items: [
    { name: 'Coffee beans', variant: '1 kg', sku: 'BEAN-1', quantity: 2, unit_amount: '15.00', amount: '30.00' },
    { name: 'Filter papers', quantity: 1, unit_amount: '5.00', amount: '5.00' },
  ],
  subtotal: '35.00', discount: '5.00', discount_code: 'WELCOME', shipping: '4.50', shipping_method: 'Standard', tax: '5.50', total: '40.00',
  ship_to: { name: 'Ann Buyer', line1: '1 Main St', city: 'Portland', region: 'OR', postal_code: '97201', country: 'US' },
  store: { platform: 'woocommerce', id: 'shop-7', name: 'Bean Shop', url: 'https://shop.example' },
  customer_id: 'wc-customer-9',
};

async function session(body: Record<string, unknown> = {}) {
  return call(t, key, 'POST', '/v1/checkout_sessions', { amount: '40.00', currency: 'USD', ...body });
}
const start = (id: string, email = 'ann@buyer.example') => call(t, key, 'POST', `/v1/checkout_sessions/${id}/start`, { email });
const simulate = (id: string, outcome: string, extra: Record<string, unknown> = {}) =>
  call(t, key, 'POST', `/v1/payments/${id}/simulate`, { outcome, ...extra });

describe('spec 6.2 sequences', () => {
  it('normal payment: started, paid, updated', async () => {
    const { id } = await session({ order: ORDER, customer_email: 'ann@buyer.example' });
    await start(id);
    const paid = await simulate(id, 'paid');
    expect(paid).toMatchObject({ status: 'paid', coin: 'polygon_usdc', value_coin: '40.000000', merchant_received: null });
    const settled = await simulate(id, 'settled');
    expect(settled.merchant_received).toBe('39.600000');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    const [started, paidEvent, updated] = await eventsOf(t, id);
    expect(started?.data.payment).toMatchObject({ status: 'open', provider: null, depositAddress: null, paidAt: null });
    expect(paidEvent?.data.payment).toMatchObject({ status: 'paid', valueCoin: '40.000000', coin: 'polygon_usdc', merchantReceived: null });
    expect(paidEvent?.data.payment.paidAt).toBe(t.clock.now().getTime());
    expect(updated?.data.payment).toMatchObject({ status: 'paid', merchantReceived: '39.600000' });
    expect(updated?.data.payment.txidOut).toMatch(/^0x[0-9a-f]{64}$/);
    expect(paidEvent?.data.order).toMatchObject({ status: 'paid', amountPaid: '40.00', total: '40.00', needsReview: false });
  });

  it('accepted underpayment: started, held, paid', async () => {
    const { id } = await session();
    await start(id);
    const held = await simulate(id, 'underpaid');
    expect(held).toMatchObject({ status: 'held', hold_acceptable: true, value_coin: '32.000000' });
    expect(held.hold_reason).toMatch(/Underpaid/);
    await simulate(id, 'accepted');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held', 'payment.paid']);
    const [, heldEvent, paidEvent] = await eventsOf(t, id);
    expect(heldEvent?.data.order).toMatchObject({ status: 'held', needsReview: true, amountPaid: '32.00' });
    expect(paidEvent?.data.payment).toMatchObject({ status: 'paid', merchantReceived: null });
    expect(paidEvent?.data.order).toMatchObject({ status: 'paid', amountPaid: '40.00' });
  });

  it('held and not acceptable when the money went elsewhere; it cannot be accepted', async () => {
    const { id } = await session();
    await start(id);
    expect(await simulate(id, 'held_elsewhere')).toMatchObject({ status: 'held', hold_acceptable: false });
    const refused = await t.request('POST', `/v1/payments/${id}/simulate`, { key, body: { outcome: 'accepted' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held']);
  });

  it('buyer starts but never pays: started, expired (from the pg-boss schedule)', async () => {
    const { id } = await session();
    await start(id);
    await t.jump(DAY - MINUTE);
    await t.tick(3 * MINUTE);
    await vi.waitFor(async () => expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.expired']), { timeout: 10_000 });
    const read = await call(t, key, 'GET', `/v1/checkout_sessions/${id}`);
    expect(read.status).toBe('expired');
  });

  it('buyer never starts: expired, with no customer', async () => {
    const { id } = await session();
    await simulate(id, 'expired');
    const events = await eventsOf(t, id);
    expect(events.map((e) => e.type)).toEqual(['payment.expired']);
    expect(events[0]?.data.customer).toBeNull();
    expect(events[0]?.data.order.customer).toBeNull();
  });

  it('a read never shows an expired payment as open, before the sweep writes it', async () => {
    const { id } = await session();
    await t.jump(DAY + 1000);
    expect((await call(t, key, 'GET', `/v1/payments/${id}`)).status).toBe('expired');
    expect((await call(t, key, 'GET', `/v1/checkout_sessions/${id}`)).status).toBe('expired');
  });

  it.each(['paid', 'underpaid'])('late payment: started, expired, then %s', async (outcome) => {
    const { id } = await session();
    await start(id);
    await simulate(id, 'expired');
    await simulate(id, outcome);
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.expired', outcome === 'paid' ? 'payment.paid' : 'payment.held']);
  });

  it('late payment before the sweep ran: the expiry is written first', async () => {
    const { id } = await session();
    await start(id);
    await t.jump(DAY + MINUTE);
    await simulate(id, 'paid');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.expired', 'payment.paid']);
  });

  it('canceled link: canceled; money after the cancel still settles the link', async () => {
    const link = await call(t, key, 'POST', '/v1/payment_links', { amount: '12.00', currency: 'USD', description: 'Tea', customer_email: 'ann@buyer.example' });
    await start(link.id);
    const canceled = await call(t, key, 'POST', `/v1/payment_links/${link.id}/cancel`);
    expect(canceled).toMatchObject({ status: 'expired' });
    const events = await eventsOf(t, link.id);
    expect(events.map((e) => e.type)).toEqual(['payment.started', 'payment.canceled']);
    expect(events[1]?.data.payment).toMatchObject({ status: 'expired', canceledAt: canceled.canceled_at * 1000, source: 'payment_link' });
    await simulate(link.id, 'paid');
    expect((await call(t, key, 'GET', `/v1/payment_links/${link.id}`)).status).toBe('paid');
    expect(await typesOf(t, link.id)).toEqual(['payment.started', 'payment.canceled', 'payment.paid']);
  });

  it('canceled link that nobody started: canceled only', async () => {
    const link = await call(t, key, 'POST', '/v1/payment_links', { amount: '12.00', currency: 'USD', description: 'Tea' });
    await call(t, key, 'POST', `/v1/payment_links/${link.id}/cancel`);
    expect(await typesOf(t, link.id)).toEqual(['payment.canceled']);
  });

  it('declined Test payment: started, failed; a declined card alone sends nothing', async () => {
    const { id } = await session();
    await start(id);
    expect(await simulate(id, 'declined')).toMatchObject({ status: 'open' });
    expect(await typesOf(t, id)).toEqual(['payment.started']);
    expect(await simulate(id, 'failed')).toMatchObject({ status: 'failed' });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.failed']);
  });

  it('second try at a store order: both sessions on one order, which ends paid', async () => {
    const order = { ...ORDER, id: 'store-2001' };
    const first = await session({ order, customer_email: 'ann@buyer.example' });
    await start(first.id);
    await simulate(first.id, 'expired');
    t.clock.advance(MINUTE);
    const second = await session({ order, customer_email: 'ann@buyer.example' });
    expect(second.order_id).toBe(first.order_id);
    await start(second.id);
    await simulate(second.id, 'paid');
    expect(await typesOf(t, first.id)).toEqual(['payment.started', 'payment.expired']);
    expect(await typesOf(t, second.id)).toEqual(['payment.started', 'payment.paid']);
    const all = [...await eventsOf(t, first.id), ...await eventsOf(t, second.id)];
    expect(new Set(all.map((event) => event.data.order.id))).toEqual(new Set([first.order_id]));
    const paid = all.at(-1);
    expect(paid?.data.order).toMatchObject({ status: 'paid', attemptCount: 2, paymentId: second.id });
    const apiOrder = await call(t, key, 'GET', `/v1/orders/${first.order_id}`);
    expect(apiOrder).toMatchObject({ status: 'paid', payment_ids: [first.id, second.id], attempt_count: 2, display_number: '#1042' });
  });
});

describe('event content', () => {
  it('follows spec 2.5 to 2.8 exactly, camelCase with millisecond timestamps', async () => {
    const { id } = await session({ order: { ...ORDER, id: 'store-3001' }, reference: 'ref-1', metadata: { cart: 'c-1' } });
    await start(id);
    const [event] = await eventsOf(t, id);
    expect(Object.keys(event ?? {})).toEqual(['id', 'type', 'created', 'livemode', 'data']);
    expect(event).toMatchObject({ type: 'payment.started', livemode: false, created: Math.floor(t.clock.now().getTime() / 1000) });
    expect(event?.id).toMatch(/^evt_/);
    expect(Object.keys(event?.data.payment).sort()).toEqual([
      'amount', 'canceledAt', 'checkoutId', 'coin', 'createdAt', 'currency', 'customerEmail', 'customerName', 'depositAddress', 'description',
      'expiresAt', 'feeBps', 'holdAcceptable', 'holdReason', 'id', 'memo', 'merchantReceived', 'metadata', 'method', 'mode', 'network',
      'orderId', 'paidAt', 'payoutWallet', 'planLabel', 'provider', 'providerName', 'reference', 'source', 'status', 'successUrl',
      'trackingUrl', 'txidIn', 'txidOut', 'url', 'valueCoin',
    ].sort());
    expect(event?.data.payment).toMatchObject({
      id, mode: 'test', source: 'api', amount: '40.00', currency: 'USD', customerEmail: 'ann@buyer.example', reference: 'ref-1',
      metadata: { cart: 'c-1' }, feeBps: 100, payoutWallet: '0x1111111111111111111111111111111111111111', method: 'card',
      createdAt: t.clock.now().getTime(), expiresAt: t.clock.now().getTime() + DAY,
    });
    expect(Object.keys(event?.data.order).sort()).toEqual([
      'amountPaid', 'attemptCount', 'billTo', 'checkoutId', 'createdAt', 'currency', 'customer', 'discount', 'discountCode', 'displayNumber',
      'fulfilledAt', 'fulfillment', 'id', 'items', 'lineCount', 'mode', 'needsReview', 'number', 'paidAt', 'paymentId', 'received',
      'reference', 'shipTo', 'shipping', 'shippingMethod', 'source', 'status', 'store', 'subtotal', 'summary', 'tax', 'total', 'unitCount', 'updatedAt',
    ].sort());
    expect(event?.data.order).toMatchObject({
      displayNumber: '#1042', source: 'api', status: 'open', fulfillment: 'none', summary: 'Coffee beans (1 kg) and 1 more',
      lineCount: 2, unitCount: 3, subtotal: '35.00', discount: '5.00', discountCode: 'WELCOME', shipping: '4.50', shippingMethod: 'Standard',
      tax: '5.50', total: '40.00', amountPaid: '0.00', received: null, reference: 'ref-1', paymentId: id, attemptCount: 1,
      store: { platform: 'woocommerce', id: 'shop-7', name: 'Bean Shop', url: 'https://shop.example', orderId: 'store-3001', orderNumber: '#1042',
        orderUrl: 'https://shop.example/orders/1042', customerId: 'wc-customer-9' },
      shipTo: { name: 'Ann Buyer', line1: '1 Main St', line2: null, city: 'Portland', region: 'OR', postalCode: '97201', country: 'US' },
      customer: { email: 'ann@buyer.example', name: null, erased: false },
      items: [
        { name: 'Coffee beans', variant: '1 kg', sku: 'BEAN-1', quantity: 2, unitAmount: '15.00', amount: '30.00' },
        { name: 'Filter papers', variant: null, sku: null, quantity: 1, unitAmount: '5.00', amount: '5.00' },
      ],
    });
    expect(Object.keys(event?.data.customer).sort()).toEqual(['billTo', 'email', 'erased', 'firstSeenAt', 'id', 'location', 'mode', 'name', 'phone', 'shipTo', 'storeAccounts'].sort());
    expect(event?.data.customer).toMatchObject({
      mode: 'test', email: 'ann@buyer.example', location: 'Portland, OR, US', erased: false,
      storeAccounts: [{ platform: 'woocommerce', storeId: 'shop-7', storeName: 'Bean Shop', customerId: 'wc-customer-9' }],
    });
  });

  it('caps items at 50 in events; the API order has all', async () => {
    const items = Array.from({ length: 60 }, (_, i) => ({ name: `Item ${i}`, quantity: 1, amount: '1.00' }));
    const { id, order_id } = await session({ amount: '60.00', order: { id: 'store-big', items } });
    await start(id);
    const [event] = await eventsOf(t, id);
    expect(event?.data.order.items).toHaveLength(50);
    expect(event?.data.order.lineCount).toBe(60);
    expect((await call(t, key, 'GET', `/v1/orders/${order_id}`)).items).toHaveLength(60);
  });

  it('queues one delivery job per subscribed endpoint, in the transaction of the change', async () => {
    const biz = await t.business();
    const own = (await biz.key()).secret;
    const all = (await call(t, own, 'POST', '/v1/webhook_endpoints', { url: 'http://localhost:9/all' })).id;
    const paidOnly = (await call(t, own, 'POST', '/v1/webhook_endpoints', { url: 'http://localhost:9/paid', events: ['payment.paid'] })).id;
    await call(t, (await biz.key({ mode: 'live' })).secret, 'POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.com/live' });
    const { id } = await call(t, own, 'POST', '/v1/checkout_sessions', { amount: '5.00', currency: 'USD' });
    await call(t, own, 'POST', `/v1/checkout_sessions/${id}/start`, { email: 'bo@buyer.example' });
    await call(t, own, 'POST', `/v1/payments/${id}/simulate`, { outcome: 'paid' });
    const [started, paid] = await eventsOf(t, id);
    const deliveries = async (eventId: string) =>
      (await t.db.selectFrom('webhook_deliveries').select('endpoint_id').where('event_id', '=', eventId).execute()).map((d) => d.endpoint_id).sort();
    expect(await deliveries(started?.id ?? '')).toEqual([all]);
    expect(await deliveries(paid?.id ?? '')).toEqual([all, paidOnly].sort());
    expect(await firstAttemptJobsFor(t, paid?.id ?? '')).toBe(2);
  });

  it('endpoints added before 26 September 2026 get only payment.paid and payment.failed until their events are edited', async () => {
    await t.db.updateTable('webhook_endpoints').set({ created_at: new Date('2026-09-01T00:00:00Z') }).where('id', '=', endpointId).execute();
    const { id } = await session();
    await start(id);
    await simulate(id, 'paid');
    const [started, paid] = await eventsOf(t, id);
    expect(await t.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', started?.id ?? '').execute()).toHaveLength(0);
    expect(await t.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', paid?.id ?? '').execute()).toHaveLength(1);
    await t.db.updateTable('webhook_endpoints').set({ created_at: t.clock.now() }).where('id', '=', endpointId).execute();
  });

  it('knows every event type of spec 6.2', () => {
    expect([...PAYMENT_EVENT_TYPES].sort()).toEqual(['payment.canceled', 'payment.expired', 'payment.failed', 'payment.held', 'payment.paid', 'payment.started', 'payment.updated']);
  });
});

describe('checkout purchases', () => {
  it('gives every buyer of a checkout their own payment and order, in the same state machine', async () => {
    const checkout = await call(t, key, 'POST', '/v1/checkouts', { name: 'Bean subscription', amount: '18.00', currency: 'EUR', routing: { choice: 'fixed', provider: 'ramp' } });
    const first = await call(t, key, 'POST', '/v1/checkout_sessions', { checkout_id: checkout.id });
    const second = await call(t, key, 'POST', '/v1/checkout_sessions', { checkout_id: checkout.id, customer_email: 'cy@buyer.example' });
    expect(first).toMatchObject({ amount: '18.00', currency: 'EUR', description: 'Bean subscription', routing: { choice: 'fixed', provider: 'ramp', fallback: true } });
    expect(second.order_id).not.toBe(first.order_id);
    const started = await call(t, key, 'POST', `/v1/checkout_sessions/${first.id}/start`, { email: 'di@buyer.example' });
    expect(started.card_providers).toEqual([{ id: 'ramp', name: 'Ramp Network', recommended: true }]);
    await simulate(first.id, 'paid');
    const [, paid] = await eventsOf(t, first.id);
    expect(paid?.data.payment).toMatchObject({ source: 'checkout', checkoutId: checkout.id, status: 'paid' });
    expect(paid?.data.order).toMatchObject({ source: 'checkout', checkoutId: checkout.id, status: 'paid', total: '18.00', currency: 'EUR' });
    expect((await call(t, key, 'GET', `/v1/payments/${second.id}`)).status).toBe('open');
  });

  it('refuses a price other than the checkout\'s, an unknown checkout and a deleted one', async () => {
    const checkout = await call(t, key, 'POST', '/v1/checkouts', { name: 'Mug', amount: '9.00', currency: 'USD' });
    const wrongPrice = await t.request('POST', '/v1/checkout_sessions', { key, body: { checkout_id: checkout.id, amount: '8.00' } });
    expect(wrongPrice.body.error).toMatchObject({ code: 'invalid_amount', field: 'amount' });
    const unknown = await t.request('POST', '/v1/checkout_sessions', { key, body: { checkout_id: 'chk_nope' } });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_checkout', field: 'checkout_id' });
    await t.db.updateTable('checkouts').set({ active: false }).where('id', '=', checkout.id).execute();
    const deleted = await t.request('POST', '/v1/checkout_sessions', { key, body: { checkout_id: checkout.id } });
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.code).toBe('checkout_inactive');
    const noAmount = await t.request('POST', '/v1/checkout_sessions', { key, body: { currency: 'USD' } });
    expect(noAmount.body.error).toMatchObject({ code: 'invalid_amount', field: 'amount' });
  });
});
