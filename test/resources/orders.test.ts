import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE } from '../../src/core/clock.ts';
import { call, eventsOf } from '../flows/support.ts';
import { accountInBothModes, collection, expectError, ids, nowSeconds, type BothModesAccount } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Orders through the API (spec 2.7, 3 rules 6 and 7, 4.5): retrieve, list and its filters, the
// status that follows all of an order's payments, order numbers, fulfilment and the timeline of
// cancellations and refunds the merchant reports.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

const orders = collection(() => t, '/v1/orders');

async function session(key: string, body: Record<string, unknown> = {}): Promise<any> {
  return call(t, key, 'POST', '/v1/checkout_sessions', { amount: '40.00', currency: 'USD', ...body });
}
async function start(key: string, id: string, email = 'ann@buyer.example'): Promise<any> {
  return call(t, key, 'POST', `/v1/checkout_sessions/${id}/start`, { email });
}
async function simulate(key: string, id: string, outcome: string, extra: Record<string, unknown> = {}): Promise<any> {
  return call(t, key, 'POST', `/v1/payments/${id}/simulate`, { outcome, ...extra });
}
async function order(key: string, id: string): Promise<any> {
  const response = await t.request('GET', `/v1/orders/${id}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}
/** A started session (an order with one attempt) in `key`'s account. */
async function started(key: string, body: Record<string, unknown> = {}): Promise<any> {
  const made = await session(key, body);
  await start(key, made.id);
  return made;
}
const patch = (key: string, id: string, body?: unknown) => t.request('PATCH', `/v1/orders/${id}`, { key, body });
const report = (key: string, id: string, body: unknown) => t.request('POST', `/v1/orders/${id}/events`, { key, body });

const ITEMS = [
  { name: 'Coffee beans', variant: '1 kg', sku: 'BEAN-1', quantity: 2, unit_amount: '15.00', amount: '30.00' },
  { name: 'Filter papers', quantity: 1, unit_amount: '5.00', amount: '5.00' },
  { name: 'Mug', sku: 'MUG-2', quantity: 3, amount: '6.00' },
];
const STORE_ORDER = {
  id: 'store-1042', number: '#1042', url: 'https://shop.example/orders/1042', items: ITEMS,
  subtotal: '41.00', discount: '5.00', discount_code: 'WELCOME', shipping: '4.50', shipping_method: 'Standard', tax: '5.50', total: '46.00',
  ship_to: { name: 'Ann Buyer', line1: '1 Main St', city: 'Portland', region: 'OR', postal_code: '97201', country: 'US' },
  store: { platform: 'woocommerce', id: 'shop-7', name: 'Bean Shop', url: 'https://shop.example' },
  customer_id: 'wc-customer-9',
};

describe('GET /v1/orders/:id', () => {
  it('returns every item line, the totals, counts, summary, display number and its payments', async () => {
    const { test } = await accountInBothModes(t);
    const createdAt = nowSeconds(t);
    const made = await session(test, { amount: '46.00', order: STORE_ORDER, customer_email: 'ann@buyer.example', reference: 'r-1' });
    const read = await order(test, made.order_id);
    expect(read).toMatchObject({
      id: made.order_id, object: 'order', livemode: false, number: 1001, display_number: '#1042', source: 'api', checkout_id: null,
      store: {
        platform: 'woocommerce', id: 'shop-7', name: 'Bean Shop', url: 'https://shop.example', order_id: 'store-1042', order_number: '#1042',
        order_url: 'https://shop.example/orders/1042', customer_id: 'wc-customer-9',
      },
      status: 'open', needs_review: false, fulfillment: 'none', fulfilled_at: null,
      customer_id: made.customer_id, customer: { id: made.customer_id, email: 'ann@buyer.example', name: null, erased: false },
      summary: 'Coffee beans (1 kg) and 2 more', line_count: 3, unit_count: 6, currency: 'USD',
      subtotal: '41.00', discount: '5.00', discount_code: 'WELCOME', shipping: '4.50', shipping_method: 'Standard', tax: '5.50', total: '46.00',
      amount_paid: '0.00', received: null,
      ship_to: { name: 'Ann Buyer', line1: '1 Main St', line2: null, city: 'Portland', region: 'OR', postal_code: '97201', country: 'US' },
      bill_to: null, reference: 'r-1', payment_id: made.id, payment_ids: [made.id], attempt_count: 1,
      timeline: [], created: createdAt, paid_at: null,
    });
    expect(read.items).toEqual([
      { name: 'Coffee beans', variant: '1 kg', sku: 'BEAN-1', quantity: 2, unit_amount: '15.00', amount: '30.00' },
      { name: 'Filter papers', variant: null, sku: null, quantity: 1, unit_amount: '5.00', amount: '5.00' },
      { name: 'Mug', variant: null, sku: 'MUG-2', quantity: 3, unit_amount: null, amount: '6.00' },
    ]);
  });

  it('has all item lines, beyond the 50 of webhooks', async () => {
    const { test } = await accountInBothModes(t);
    const items = Array.from({ length: 75 }, (_, i) => ({ name: `Item ${i}`, quantity: 1, amount: '1.00' }));
    const made = await session(test, { amount: '75.00', order: { id: 'big', items } });
    const read = await order(test, made.order_id);
    expect(read.items).toHaveLength(75);
    expect(read.items.at(-1)).toEqual({ name: 'Item 74', variant: null, sku: null, quantity: 1, unit_amount: null, amount: '1.00' });
    expect(read).toMatchObject({ line_count: 75, unit_count: 75, summary: 'Item 0 and 74 more', subtotal: '75.00', total: '75.00' });
  });

  it('display_number is the store number when sent, else the service number; a plain session is one line', async () => {
    const { test } = await accountInBothModes(t);
    const withNumber = await session(test, { order: { id: 'd-1', number: 'WC-77', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }] } });
    const withoutNumber = await session(test, { order: { id: 'd-2', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }] } });
    const plain = await session(test, { amount: '12.34', description: 'Consulting hour' });
    expect(await order(test, withNumber.order_id)).toMatchObject({ number: 1001, display_number: 'WC-77' });
    expect(await order(test, withoutNumber.order_id)).toMatchObject({ number: 1002, display_number: '1002', summary: 'Tea' });
    expect(await order(test, plain.order_id)).toMatchObject({
      number: 1003, display_number: '1003', store: null, summary: 'Consulting hour', line_count: 1, unit_count: 1,
      items: [{ name: 'Consulting hour', variant: null, sku: null, quantity: 1, unit_amount: '12.34', amount: '12.34' }],
      subtotal: '12.34', discount: '0.00', shipping: '0.00', tax: '0.00', total: '12.34', customer_id: null, customer: null,
    });
  });

  it('lists payment_ids oldest first; amount_paid sums paid payments; received is null until settled, then six decimals', async () => {
    const { test } = await accountInBothModes(t);
    const storeOrder = { id: 'pay-ids', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }] };
    const first = await started(test, { order: storeOrder });
    t.clock.advance(MINUTE);
    const second = await started(test, { order: storeOrder });
    t.clock.advance(MINUTE);
    const third = await started(test, { order: storeOrder });
    const orderId = first.order_id;
    expect([second.order_id, third.order_id]).toEqual([orderId, orderId]);
    expect(await order(test, orderId)).toMatchObject({ payment_ids: [first.id, second.id, third.id], attempt_count: 3, payment_id: third.id });

    await simulate(test, first.id, 'expired');
    t.clock.advance(MINUTE);
    const paidAt = nowSeconds(t);
    await simulate(test, second.id, 'paid');
    let read = await order(test, orderId);
    expect(read).toMatchObject({ status: 'paid', amount_paid: '40.00', received: null, payment_id: second.id, paid_at: paidAt });
    expect(read.payment_ids).toEqual([first.id, second.id, third.id]);

    t.clock.advance(MINUTE);
    await simulate(test, second.id, 'settled');
    read = await order(test, orderId);
    // 40 USDC in, 1% fee (100 bps): 39.600000 reached the merchant.
    expect(read).toMatchObject({ status: 'paid', amount_paid: '40.00', received: '39.600000', paid_at: paidAt });
    expect(read.received).toMatch(/^\d+\.\d{6}$/);
  });

  it("answers 404 not_found for the other mode's, another business's, or an unknown order", async () => {
    const { test, live } = await accountInBothModes(t);
    const made = await session(test);
    const other = (await (await t.business()).key()).secret;
    for (const [key, id] of [[live, made.order_id], [other, made.order_id], [test, 'ord_doesnotexist'], [test, made.id]] as const) {
      expectError(await t.request('GET', `/v1/orders/${id}`, { key }), 404, 'not_found');
    }
  });

  it('is readable with a read-only key', async () => {
    const { biz, test } = await accountInBothModes(t);
    const made = await session(test);
    const readOnly = (await biz.key({ access: 'read_only' })).secret;
    expect((await t.request('GET', `/v1/orders/${made.order_id}`, { key: readOnly })).status).toBe(200);
    expect((await orders.list(readOnly)).status).toBe(200);
  });
});

describe('GET /v1/orders', () => {
  it('lists newest first, this mode only, each item the full order', async () => {
    const { test, live } = await accountInBothModes(t);
    const a = await session(test);
    t.clock.advance(1000);
    const b = await session(test);
    t.clock.advance(1000);
    const c = await session(test);
    await session(live);
    const page = await orders.list(test);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(ids(page)).toEqual([c.order_id, b.order_id, a.order_id]);
    expect(page.body.data[1]).toEqual(await order(test, b.order_id));
  });

  it('filters by customer_id', async () => {
    const { test } = await accountInBothModes(t);
    const ann1 = await session(test, { customer_email: 'ann@buyer.example' });
    t.clock.advance(1000);
    const bob = await session(test, { customer_email: 'bob@buyer.example' });
    t.clock.advance(1000);
    const ann2 = await session(test, { customer_email: 'ann@buyer.example' });
    await session(test);
    expect(ids(await orders.list(test, { customer_id: ann1.customer_id }))).toEqual([ann2.order_id, ann1.order_id]);
    expect(ids(await orders.list(test, { customer_id: bob.customer_id }))).toEqual([bob.order_id]);
    expect(ids(await orders.list(test, { customer_id: 'cus_doesnotexist' }))).toEqual([]);
  });

  it("finds an order by the store's own order id (store_order_id)", async () => {
    const { test, live } = await accountInBothModes(t);
    const items = [{ name: 'Tea', quantity: 1, amount: '40.00' }];
    const first = await session(test, { order: { id: 'S-100', items } });
    const target = await session(test, { order: { id: 'S-200', number: '#200', items } });
    const retry = await session(test, { order: { id: 'S-200', number: '#200', items } });
    expect(retry.order_id).toBe(target.order_id);
    await session(live, { order: { id: 'S-200', items } });
    const found = await orders.list(test, { store_order_id: 'S-200' });
    expect(ids(found)).toEqual([target.order_id]);
    expect(found.body.data[0]).toMatchObject({ display_number: '#200', store: { order_id: 'S-200' }, attempt_count: 2 });
    expect(ids(await orders.list(test, { store_order_id: 'S-100' }))).toEqual([first.order_id]);
    expect(ids(await orders.list(test, { store_order_id: 'S-999' }))).toEqual([]);
    // The service's own id or number is not the store's order id.
    expect(ids(await orders.list(test, { store_order_id: target.order_id }))).toEqual([]);
    expect(ids(await orders.list(test, { store_order_id: '1002' }))).toEqual([]);
  });

  it('filters by status', async () => {
    const { test } = await accountInBothModes(t);
    const open = await started(test);
    const paid = await started(test);
    await simulate(test, paid.id, 'paid');
    const held = await started(test);
    await simulate(test, held.id, 'underpaid');
    const expired = await started(test);
    await simulate(test, expired.id, 'expired');
    const failed = await started(test);
    await simulate(test, failed.id, 'failed');
    const expectations = { open: open.order_id, paid: paid.order_id, held: held.order_id, expired: expired.order_id, failed: failed.order_id };
    for (const [status, orderId] of Object.entries(expectations)) {
      const page = await orders.list(test, { status });
      expect(ids(page), status).toEqual([orderId]);
      expect(page.body.data[0].status).toBe(status);
    }
    expect(ids(await orders.list(test, { status: 'pending' }))).toEqual([]);
  });

  it('the status filter agrees with the status an order reads, also for a session past its expiry before the sweep', async () => {
    const { test } = await accountInBothModes(t);
    const made = await started(test);
    t.clock.advance(DAY + MINUTE);
    const fresh = await started(test);
    expect((await order(test, made.order_id)).status).toBe('expired');
    expect(ids(await orders.list(test, { status: 'expired' }))).toEqual([made.order_id]);
    expect(ids(await orders.list(test, { status: 'open' }))).toEqual([fresh.order_id]);
  });

  it('filters by created_gte and created_lte, inclusive, in Unix seconds', async () => {
    const { test } = await accountInBothModes(t);
    const a = await session(test);
    const aAt = nowSeconds(t);
    t.clock.advance(10_000);
    const b = await session(test);
    const bAt = nowSeconds(t);
    t.clock.advance(10_000);
    const c = await session(test);
    const cAt = nowSeconds(t);
    expect(ids(await orders.list(test, { created_gte: bAt }))).toEqual([c.order_id, b.order_id]);
    expect(ids(await orders.list(test, { created_lte: bAt }))).toEqual([b.order_id, a.order_id]);
    expect(ids(await orders.list(test, { created_gte: bAt, created_lte: bAt }))).toEqual([b.order_id]);
    expect(ids(await orders.list(test, { created_gte: aAt, created_lte: cAt }))).toEqual([c.order_id, b.order_id, a.order_id]);
    expect(ids(await orders.list(test, { created_gte: aAt + 1, created_lte: cAt - 1 }))).toEqual([b.order_id]);
    expect(ids(await orders.list(test, { created_gte: cAt + 1 }))).toEqual([]);
  });

  it('pages with limit and starting_after, filters included', async () => {
    const { test } = await accountInBothModes(t);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.unshift((await session(test, { customer_email: 'pages@buyer.example' })).order_id);
      t.clock.advance(1000);
    }
    await session(test, { customer_email: 'other@buyer.example' });
    const customerId = (await order(test, made[0] ?? '')).customer_id;

    const first = await orders.list(test, { limit: 2, customer_id: customerId });
    expect(ids(first)).toEqual(made.slice(0, 2));
    expect(first.body).toMatchObject({ has_more: true, next_cursor: made[1] });
    const second = await orders.list(test, { limit: 2, customer_id: customerId, starting_after: first.body.next_cursor });
    expect(ids(second)).toEqual(made.slice(2, 4));
    expect(second.body).toMatchObject({ has_more: true, next_cursor: made[3] });
    const third = await orders.list(test, { limit: 2, customer_id: customerId, starting_after: second.body.next_cursor });
    expect(ids(third)).toEqual(made.slice(4));
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });

    expect((await orders.list(test, { limit: 5, customer_id: customerId })).body).toMatchObject({ has_more: false, next_cursor: null });
    expect(ids(await orders.list(test))).toHaveLength(6);
    expect(ids(await orders.list(test, { limit: 1 }))).toHaveLength(1);
    expect((await orders.list(test, { limit: 100 })).status).toBe(200);
  });

  it.each(['0', '101', 'x', '-1', '1.5', ''])('answers 400 invalid_limit for limit=%j', async (limit) => {
    const { test } = await accountInBothModes(t);
    expectError(await t.request('GET', `/v1/orders?limit=${limit}`, { key: test }), 400, 'invalid_limit', 'limit');
  });

  it("answers 400 invalid_cursor for another business's, the other mode's, an unknown order, or a payment id", async () => {
    const { test, live } = await accountInBothModes(t);
    const own = await session(test);
    const liveOrder = await session(live);
    const otherOrder = await session((await (await t.business()).key()).secret);
    for (const cursor of [liveOrder.order_id, otherOrder.order_id, 'ord_doesnotexist', own.id]) {
      expectError(await orders.list(test, { starting_after: cursor }), 400, 'invalid_cursor', 'starting_after');
    }
    expect(ids(await orders.list(test, { starting_after: own.order_id }))).toEqual([]);
  });

  it.each([
    ['status', 'shipped'],
    ['status', 'PAID'],
    ['created_gte', 'yesterday'],
    ['created_gte', '-1'],
    ['created_lte', '1.5'],
    ['created_lte', '99999999999999'],
  ])('answers 400 invalid_filter for %s=%s', async (name, value) => {
    const { test } = await accountInBothModes(t);
    expectError(await orders.list(test, { [name]: value }), 400, 'invalid_filter', name);
  });
});

describe('status follows all payments (spec 3 rules 6 and 7)', () => {
  const storeOrder = (id: string) => ({ id, items: [{ name: 'Tea', quantity: 1, amount: '40.00' }] });

  it('an expired first attempt and a paid second: paid', async () => {
    const { test } = await accountInBothModes(t);
    const first = await started(test, { order: storeOrder('st-1') });
    await simulate(test, first.id, 'expired');
    expect(await order(test, first.order_id)).toMatchObject({ status: 'expired', payment_id: first.id });
    t.clock.advance(MINUTE);
    const second = await started(test, { order: storeOrder('st-1') });
    expect(await order(test, first.order_id)).toMatchObject({ status: 'open', payment_id: second.id });
    await simulate(test, second.id, 'paid');
    expect(await order(test, first.order_id)).toMatchObject({
      status: 'paid', needs_review: false, payment_id: second.id, payment_ids: [first.id, second.id], amount_paid: '40.00',
    });
    expect(ids(await orders.list(test, { status: 'paid' }))).toEqual([first.order_id]);
  });

  it('a held attempt and a later expired one: held, needing review', async () => {
    const { test } = await accountInBothModes(t);
    const first = await started(test, { order: storeOrder('st-2') });
    await simulate(test, first.id, 'underpaid');
    t.clock.advance(MINUTE);
    const second = await started(test, { order: storeOrder('st-2') });
    expect(await order(test, first.order_id)).toMatchObject({ status: 'held', payment_id: first.id });
    await simulate(test, second.id, 'expired');
    expect(await order(test, first.order_id)).toMatchObject({
      status: 'held', needs_review: true, payment_id: first.id, amount_paid: '32.00', total: '40.00',
    });
    const expiredEvent = (await eventsOf(t, second.id)).find((event) => event.type === 'payment.expired');
    expect(expiredEvent?.data.payment.status).toBe('expired');
    expect(expiredEvent?.data.order).toMatchObject({ status: 'held', needsReview: true, paymentId: first.id });
    expect(ids(await orders.list(test, { status: 'held' }))).toEqual([first.order_id]);
    expect(ids(await orders.list(test, { status: 'expired' }))).toEqual([]);
  });

  it('a paid order is never undone by a later expired or failed attempt; their events carry the paid order', async () => {
    const { test } = await accountInBothModes(t);
    const first = await started(test, { order: storeOrder('st-3') });
    await simulate(test, first.id, 'paid');
    t.clock.advance(MINUTE);
    const second = await started(test, { order: storeOrder('st-3') });
    await simulate(test, second.id, 'expired');
    t.clock.advance(MINUTE);
    const third = await started(test, { order: storeOrder('st-3') });
    await simulate(test, third.id, 'failed');
    expect(await order(test, first.order_id)).toMatchObject({
      status: 'paid', needs_review: false, payment_id: first.id, payment_ids: [first.id, second.id, third.id], amount_paid: '40.00', attempt_count: 3,
    });
    const expiredEvent = (await eventsOf(t, second.id)).find((event) => event.type === 'payment.expired');
    expect(expiredEvent?.data.payment.status).toBe('expired');
    expect(expiredEvent?.data.order).toMatchObject({ id: first.order_id, status: 'paid', paymentId: first.id });
    const failedEvent = (await eventsOf(t, third.id)).find((event) => event.type === 'payment.failed');
    expect(failedEvent?.data.order).toMatchObject({ status: 'paid' });
    expect(ids(await orders.list(test, { status: 'paid' }))).toEqual([first.order_id]);
  });

  it('a later expiry by time (no event yet) does not undo a paid order either', async () => {
    const { test } = await accountInBothModes(t);
    const first = await started(test, { order: storeOrder('st-4') });
    await simulate(test, first.id, 'paid');
    t.clock.advance(MINUTE);
    await started(test, { order: storeOrder('st-4') });
    t.clock.advance(DAY + HOUR);
    expect(await order(test, first.order_id)).toMatchObject({ status: 'paid', payment_id: first.id });
  });

  it('a held attempt and a later paid one: paid', async () => {
    const { test } = await accountInBothModes(t);
    const first = await started(test, { order: storeOrder('st-5') });
    await simulate(test, first.id, 'underpaid');
    t.clock.advance(MINUTE);
    const second = await started(test, { order: storeOrder('st-5') });
    await simulate(test, second.id, 'paid');
    expect(await order(test, first.order_id)).toMatchObject({ status: 'paid', needs_review: false, payment_id: second.id });
  });
});

describe('order numbers', () => {
  it('count from 1001 per business and per mode, across sessions and payment links; a second attempt takes no number', async () => {
    const a: BothModesAccount = await accountInBothModes(t);
    const b: BothModesAccount = await accountInBothModes(t);
    const numberOf = async (key: string, orderId: string) => (await order(key, orderId)).number;
    const link = (key: string) => call(t, key, 'POST', '/v1/payment_links', { amount: '10.00', currency: 'USD', description: 'Tea' });

    const testNumbers = [];
    testNumbers.push(await numberOf(a.test, (await session(a.test, { order: { id: 'n-1', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }] } })).order_id));
    testNumbers.push(await numberOf(a.test, (await link(a.test)).order_id));
    // The same store order again: same order, same number.
    const retry = await session(a.test, { order: { id: 'n-1', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }] } });
    expect(await numberOf(a.test, retry.order_id)).toBe(1001);
    testNumbers.push(await numberOf(a.test, (await session(a.test)).order_id));
    expect(testNumbers).toEqual([1001, 1002, 1003]);

    expect(await numberOf(a.live, (await session(a.live)).order_id)).toBe(1001);
    expect(await numberOf(a.live, (await link(a.live)).order_id)).toBe(1002);
    expect(await numberOf(b.test, (await session(b.test)).order_id)).toBe(1001);
    expect(await numberOf(b.live, (await link(b.live)).order_id)).toBe(1001);
    expect(await numberOf(a.test, (await session(a.test)).order_id)).toBe(1004);
    const displayed = await order(a.live, (await session(a.live)).order_id);
    expect(displayed).toMatchObject({ number: 1003, display_number: '1003', livemode: true });
  });
});

describe('PATCH /v1/orders/:id (fulfilment)', () => {
  it('moves between none, unfulfilled and fulfilled; fulfilled_at defaults to now, can be given, and is cleared on leaving fulfilled', async () => {
    const { test } = await accountInBothModes(t);
    const made = await started(test);
    await simulate(test, made.id, 'paid');
    const id = made.order_id;
    const dbRow = () => t.db.selectFrom('orders').select(['fulfillment', 'fulfilled_at']).where('id', '=', id).executeTakeFirstOrThrow();

    t.clock.advance(MINUTE);
    let response = await patch(test, id, { fulfillment: 'unfulfilled' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, object: 'order', fulfillment: 'unfulfilled', fulfilled_at: null, status: 'paid', updated: nowSeconds(t) });
    expect(await dbRow()).toEqual({ fulfillment: 'unfulfilled', fulfilled_at: null });

    t.clock.advance(MINUTE);
    const fulfilledNow = nowSeconds(t);
    response = await patch(test, id, { fulfillment: 'fulfilled' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ fulfillment: 'fulfilled', fulfilled_at: fulfilledNow });
    expect(await dbRow()).toEqual({ fulfillment: 'fulfilled', fulfilled_at: new Date(fulfilledNow * 1000) });
    expect(await order(test, id)).toMatchObject({ fulfillment: 'fulfilled', fulfilled_at: fulfilledNow });

    // Fulfilled again: keeps the time it has.
    t.clock.advance(MINUTE);
    expect((await patch(test, id, { fulfillment: 'fulfilled' })).body).toMatchObject({ fulfillment: 'fulfilled', fulfilled_at: fulfilledNow });

    // Leaving fulfilled clears it.
    response = await patch(test, id, { fulfillment: 'unfulfilled' });
    expect(response.body).toMatchObject({ fulfillment: 'unfulfilled', fulfilled_at: null });
    expect(await dbRow()).toEqual({ fulfillment: 'unfulfilled', fulfilled_at: null });

    // A given time.
    const given = fulfilledNow - 3 * 3600;
    response = await patch(test, id, { fulfillment: 'fulfilled', fulfilled_at: given });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ fulfillment: 'fulfilled', fulfilled_at: given });
    expect(await dbRow()).toEqual({ fulfillment: 'fulfilled', fulfilled_at: new Date(given * 1000) });

    // Back to none clears it too.
    response = await patch(test, id, { fulfillment: 'none' });
    expect(response.body).toMatchObject({ fulfillment: 'none', fulfilled_at: null });
    expect(await dbRow()).toEqual({ fulfillment: 'none', fulfilled_at: null });
  });

  it('answers 400 invalid_fulfillment for fulfilled_at without fulfilled, an empty body and a bad value', async () => {
    const { test } = await accountInBothModes(t);
    const made = await session(test);
    const id = made.order_id;
    expectError(await patch(test, id, { fulfilled_at: nowSeconds(t) }), 400, 'invalid_fulfillment', 'fulfilled_at');
    expectError(await patch(test, id, { fulfillment: 'unfulfilled', fulfilled_at: nowSeconds(t) }), 400, 'invalid_fulfillment', 'fulfilled_at');
    expectError(await patch(test, id, { fulfillment: 'none', fulfilled_at: nowSeconds(t) }), 400, 'invalid_fulfillment', 'fulfilled_at');
    for (const body of [{}, undefined]) {
      const response = await patch(test, id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('invalid_fulfillment');
    }
    for (const bad of ['shipped', 'FULFILLED', '', 1, null, true]) {
      expectError(await patch(test, id, { fulfillment: bad }), 400, 'invalid_fulfillment', 'fulfillment');
    }
    for (const bad of ['2026-10-01', -1, 1.5]) {
      expectError(await patch(test, id, { fulfillment: 'fulfilled', fulfilled_at: bad }), 400, 'invalid_fulfillment', 'fulfilled_at');
    }
    expect(await order(test, id)).toMatchObject({ fulfillment: 'none', fulfilled_at: null });
  });

  it('answers 403 insufficient_scope to a read-only key, 403 merchant_read_only for an archived business, 404 for another account', async () => {
    const { biz, test } = await accountInBothModes(t);
    const made = await session(test);
    const readOnly = (await biz.key({ access: 'read_only' })).secret;
    expectError(await patch(readOnly, made.order_id, { fulfillment: 'fulfilled' }), 403, 'insufficient_scope');
    const other = (await (await t.business()).key()).secret;
    expectError(await patch(other, made.order_id, { fulfillment: 'fulfilled' }), 404, 'not_found');
    await biz.update({ status: 'archived' });
    expectError(await patch(test, made.order_id, { fulfillment: 'fulfilled' }), 403, 'merchant_read_only');
    expect(await order(test, made.order_id)).toMatchObject({ fulfillment: 'none' });
  });
});

describe('POST /v1/orders/:id/events (cancellations and refunds)', () => {
  async function paidOrder(key: string) {
    const made = await started(key);
    await simulate(key, made.id, 'paid');
    return made;
  }
  const paymentRows = (orderId: string) => t.db.selectFrom('payments').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  const eventCount = async (orderId: string) => (await t.db.selectFrom('events').select('id').where('order_id', '=', orderId).execute()).length;

  it('records a cancellation: 201 with the order and its timeline entry; payments do not change', async () => {
    const { test } = await accountInBothModes(t);
    const made = await paidOrder(test);
    const paymentsBefore = await paymentRows(made.order_id);
    const eventsBefore = await eventCount(made.order_id);
    t.clock.advance(MINUTE);
    const response = await report(test, made.order_id, { type: 'canceled', reason: 'Out of stock' });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toMatchObject({
      id: made.order_id, object: 'order', status: 'paid', amount_paid: '40.00', updated: nowSeconds(t),
      timeline: [{ type: 'canceled', amount: null, reason: 'Out of stock', created: nowSeconds(t) }],
    });
    expect((await order(test, made.order_id)).timeline).toEqual(response.body.timeline);
    expect(await paymentRows(made.order_id)).toEqual(paymentsBefore);
    expect(await eventCount(made.order_id)).toBe(eventsBefore);
    expect((await call(t, test, 'GET', `/v1/payments/${made.id}`)).status).toBe('paid');
  });

  it('records a refund that defaults to what was paid; payments stay paid', async () => {
    const { test } = await accountInBothModes(t);
    const made = await paidOrder(test);
    const paymentsBefore = await paymentRows(made.order_id);
    const response = await report(test, made.order_id, { type: 'refunded' });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.timeline).toEqual([{ type: 'refunded', amount: '40.00', reason: null, created: nowSeconds(t) }]);
    expect(response.body).toMatchObject({ status: 'paid', amount_paid: '40.00' });
    expect(await paymentRows(made.order_id)).toEqual(paymentsBefore);
    // Nothing is left to refund.
    expectError(await report(test, made.order_id, { type: 'refunded' }), 400, 'invalid_amount', 'amount');
    expectError(await report(test, made.order_id, { type: 'refunded', amount: '0.01' }), 400, 'invalid_amount', 'amount');
  });

  it('takes partial refunds up to what was paid and refuses more with 400 invalid_amount', async () => {
    const { test } = await accountInBothModes(t);
    const made = await paidOrder(test);
    expectError(await report(test, made.order_id, { type: 'refunded', amount: '40.01' }), 400, 'invalid_amount', 'amount');
    expect((await report(test, made.order_id, { type: 'refunded', amount: '15.00', reason: 'Damaged mug' })).status).toBe(201);
    expectError(await report(test, made.order_id, { type: 'refunded', amount: '25.01' }), 400, 'invalid_amount', 'amount');
    const rest = await report(test, made.order_id, { type: 'refunded', amount: '25.00' });
    expect(rest.status).toBe(201);
    expect(rest.body.timeline.map((entry: { type: string; amount: string; reason: string | null }) => [entry.type, entry.amount, entry.reason])).toEqual([
      ['refunded', '15.00', 'Damaged mug'], ['refunded', '25.00', null],
    ]);
    expect(rest.body).toMatchObject({ status: 'paid', amount_paid: '40.00' });
  });

  it('refuses a refund on an order nothing was paid for', async () => {
    const { test } = await accountInBothModes(t);
    const made = await started(test);
    expectError(await report(test, made.order_id, { type: 'refunded' }), 400, 'invalid_amount', 'amount');
    expectError(await report(test, made.order_id, { type: 'refunded', amount: '1.00' }), 400, 'invalid_amount', 'amount');
    expect((await order(test, made.order_id)).timeline).toEqual([]);
  });

  it('answers 400 invalid_amount for an amount with canceled or a bad amount, 400 invalid_event_type for an unknown type', async () => {
    const { test } = await accountInBothModes(t);
    const made = await paidOrder(test);
    expectError(await report(test, made.order_id, { type: 'canceled', amount: '10.00' }), 400, 'invalid_amount', 'amount');
    for (const amount of ['-5.00', 'ten', '10.001', 10, '0']) {
      expectError(await report(test, made.order_id, { type: 'refunded', amount }), 400, 'invalid_amount', 'amount');
    }
    for (const type of ['returned', 'Canceled', '', null, 1]) {
      expectError(await report(test, made.order_id, { type }), 400, 'invalid_event_type', 'type');
    }
    expectError(await report(test, made.order_id, {}), 400, 'invalid_event_type', 'type');
    expect((await order(test, made.order_id)).timeline).toEqual([]);
  });

  it('answers 403 insufficient_scope to a read-only key, 403 merchant_read_only for an archived business, 404 for another account', async () => {
    const { biz, test } = await accountInBothModes(t);
    const made = await paidOrder(test);
    expectError(await report((await biz.key({ access: 'read_only' })).secret, made.order_id, { type: 'canceled' }), 403, 'insufficient_scope');
    expectError(await report((await (await t.business()).key()).secret, made.order_id, { type: 'canceled' }), 404, 'not_found');
    await biz.update({ status: 'archived' });
    expectError(await report(test, made.order_id, { type: 'canceled' }), 403, 'merchant_read_only');
    expect((await order(test, made.order_id)).timeline).toEqual([]);
  });
});
