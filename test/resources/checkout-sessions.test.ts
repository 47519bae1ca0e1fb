import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, MINUTE, SECOND } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import { addressOfPublicKey } from '../../src/core/deposit-addresses.ts';
import type { BusinessChanges } from '../support/harness.ts';
import { eventsOf } from '../flows/support.ts';
import { account, collection, expectCreated, expectError, nowSeconds, type Account } from '../support/api.ts';
import { LIVE_WALLET, startTestApp, TEST_DEPOSIT_WALLET, type ApiResponse, type TestApp } from '../support/harness.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Checkout sessions through real HTTP (spec 2.3 customer rules, 3 "open -> open", 4.5, 8):
// create, retrieve and start, with what they leave in the database.

let t: TestApp;
// Rate limits have their own describe (own app) at the end; these tests send many requests.
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => { await t?.close(); });

const SESSIONS = '/v1/checkout_sessions';
const VALID = { amount: '40.00', currency: 'USD' } as const;

/** Every field of the checkout session object (CheckoutSessionOut). */
const SESSION_FIELDS = [
  'id', 'object', 'livemode', 'status', 'url', 'amount', 'currency', 'description', 'reference', 'metadata', 'success_url',
  'collect', 'routing', 'customer_email', 'customer_id', 'order_id', 'payment_id', 'deposit_address', 'created', 'expires_at',
  'started_at', 'paid_at',
];

const US = { name: 'Ann Buyer', line1: '1 Main St', city: 'Portland', region: 'OR', postal_code: '97201', country: 'US' };
const GB = { line1: '10 Downing St', city: 'London', postal_code: 'SW1A 2AA', country: 'GB' };
/** The stored and returned address shape: every part present, null when not sent. */
const stored = (address: Record<string, string>) => ({ name: null, line1: null, line2: null, city: null, region: null, postal_code: null, ...address });

/** A store order of 40.00 (two lines) from a WooCommerce shop. */
const ORDER = {
  id: 'store-1042',
  number: '#1042',
  items: [
    { name: 'Coffee beans', variant: '1 kg', sku: 'BEAN-1', quantity: 2, unit_amount: '15.00', amount: '30.00' },
    { name: 'Filter papers', quantity: 1, unit_amount: '5.00', amount: '5.00' },
  ],
  subtotal: '35.00', discount: '5.00', shipping: '4.50', tax: '5.50', total: '40.00',
  store: { platform: 'woocommerce', id: 'shop-7', name: 'Bean Shop', url: 'https://shop.example' },
};

const { create } = collection(() => t, SESSIONS);

async function createSession(key: string, body: Record<string, unknown> = {}): Promise<any> {
  return expectCreated(await create(key, { ...VALID, ...body }));
}

async function start(key: string, id: string, body: Record<string, unknown> = {}): Promise<ApiResponse> {
  // A Live start needs a network a healthy processor reported recently (this file moves the clock).
  await reportProcessorStatus(t);
  return t.request('POST', `${SESSIONS}/${id}/start`, { key, body });
}

async function startOk(key: string, id: string, body: Record<string, unknown> = { email: 'ann@buyer.example' }): Promise<any> {
  const res = await start(key, id, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function simulate(key: string, id: string, outcome: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await t.request('POST', `/v1/payments/${id}/simulate`, { key, body: { outcome, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function get(key: string, path: string): Promise<any> {
  const res = await t.request('GET', path, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function rowCounts(businessId: string): Promise<{ payments: number; orders: number; customers: number }> {
  const count = async (table: 'payments' | 'orders' | 'customers') => {
    const row = await t.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('business_id', '=', businessId).executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return { payments: await count('payments'), orders: await count('orders'), customers: await count('customers') };
}

async function expectNothingStored(businessId: string): Promise<void> {
  expect(await rowCounts(businessId)).toEqual({ payments: 0, orders: 0, customers: 0 });
}

const orderRow = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const paymentRow = (id: string) => t.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const customersOf = (businessId: string) => t.db.selectFrom('customers').selectAll().where('business_id', '=', businessId).orderBy('created_at').execute();

describe('POST /v1/checkout_sessions', () => {
  it('creates an open session and returns every field of the session object', async () => {
    const { biz, key } = await account(t);
    const res = await create(key, {
      amount: '40.5',
      currency: 'eur',
      description: 'Coffee order',
      reference: 'cart-77',
      metadata: { cart: 'c-1', items: 3, gift: false, note: null },
      success_url: 'https://shop.example/thanks',
      collect: { phone: true, name: false },
      customer_email: 'Ann@Buyer.Example',
    });
    const session = expectCreated(res);
    expect(Object.keys(session).sort()).toEqual([...SESSION_FIELDS].sort());
    const created = nowSeconds(t);
    expect(session).toStrictEqual({
      id: expect.stringMatching(/^pay_/),
      object: 'checkout_session',
      livemode: false,
      status: 'open',
      url: `https://pay.example.test/pay/${session.id}`,
      amount: '40.50',
      currency: 'EUR',
      description: 'Coffee order',
      reference: 'cart-77',
      metadata: { cart: 'c-1', items: 3, gift: false, note: null },
      success_url: 'https://shop.example/thanks',
      collect: { phone: true },
      routing: { choice: 'smart', provider: null, fallback: false },
      customer_email: 'ann@buyer.example',
      customer_id: expect.stringMatching(/^cus_/),
      order_id: expect.stringMatching(/^ord_/),
      payment_id: session.id,
      deposit_address: null,
      created,
      expires_at: created + DAY / SECOND,
      started_at: null,
      paid_at: null,
    });
    expect(await rowCounts(biz.id)).toEqual({ payments: 1, orders: 1, customers: 1 });
    const payment = await paymentRow(session.id);
    expect(payment).toMatchObject({ source: 'api', status: 'open', order_id: session.order_id, amount_minor: 4050, currency: 'EUR', livemode: false });
    expect(payment.expires_at.getTime() - payment.created_at.getTime()).toBe(DAY);
    // Retrieve answers the same object.
    expect(await get(key, `${SESSIONS}/${session.id}`)).toStrictEqual(session);
  });

  it('answers a minimal session with nulls and the smart routing default', async () => {
    const { key } = await account(t);
    const session = await createSession(key);
    expect(session).toMatchObject({
      amount: '40.00', currency: 'USD', reference: null, metadata: null, success_url: null, collect: null,
      routing: { choice: 'smart', provider: null, fallback: false }, customer_email: null, customer_id: null,
    });
    expect(session.order_id).toMatch(/^ord_/);
  });

  it('keeps the routing it was given (fixed provider, fallback default true)', async () => {
    const { key } = await account(t);
    expect((await createSession(key, { routing: { choice: 'fixed', provider: 'wert' } })).routing).toEqual({ choice: 'fixed', provider: 'wert', fallback: true });
    expect((await createSession(key, { routing: { choice: 'buyer' } })).routing).toEqual({ choice: 'buyer', provider: null, fallback: false });
    expectError(await create(key, { ...VALID, routing: { choice: 'fixed', provider: 'coinbase' } }), 400, 'invalid_routing', 'routing.provider');
  });

  describe('success_url', () => {
    it('keeps {PAYMENT_ID} and {REFERENCE}: percent-encoded in the path, as sent in the query', async () => {
      const { key } = await account(t);
      const session = await createSession(key, {
        reference: 'r-9',
        success_url: 'https://shop.example/thanks/{PAYMENT_ID}/{REFERENCE}?payment={PAYMENT_ID}&ref={REFERENCE}',
      });
      const expected = 'https://shop.example/thanks/%7BPAYMENT_ID%7D/%7BREFERENCE%7D?payment={PAYMENT_ID}&ref={REFERENCE}';
      expect(session.success_url).toBe(expected);
      expect((await paymentRow(session.id)).success_url).toBe(expected);
      await startOk(key, session.id);
      const [started] = await eventsOf(t, session.id);
      expect(started?.data.payment.successUrl).toBe(expected);
    });

    it('takes http:// in Test mode, refuses it in Live mode with invalid_url', async () => {
      expect((await createSession((await account(t)).key, { success_url: 'http://shop.example/thanks' })).success_url).toBe('http://shop.example/thanks');
      const { biz, key } = await account(t, {}, 'live');
      expectError(await create(key, { ...VALID, success_url: 'http://shop.example/thanks' }), 400, 'invalid_url', 'success_url');
      await expectNothingStored(biz.id);
      expect((await createSession(key, { success_url: 'https://shop.example/thanks' })).livemode).toBe(true);
    });

    it.each([
      ['not a full address', '/thanks'],
      ['with credentials', 'https://user:pw@shop.example/thanks'],
      ['not http(s)', 'ftp://shop.example/thanks'],
    ])('answers 400 invalid_url for an address %s', async (_case, url) => {
      const { biz, key } = await account(t);
      expectError(await create(key, { ...VALID, success_url: url }), 400, 'invalid_url', 'success_url');
      await expectNothingStored(biz.id);
    });
  });

  describe('customer', () => {
    it('customer_email finds or makes the customer at creation, lowercased (rule 2)', async () => {
      const { biz, key } = await account(t);
      const session = await createSession(key, { customer_email: '  Ann@Buyer.EXAMPLE ' });
      expect(session.customer_email).toBe('ann@buyer.example');
      const [customer, ...others] = await customersOf(biz.id);
      expect(others).toEqual([]);
      expect(customer).toMatchObject({ id: session.customer_id, email: 'ann@buyer.example', livemode: false });
      expect((await orderRow(session.order_id)).customer_id).toBe(session.customer_id);
      // The same email in any letter case finds the same customer.
      const again = await createSession(key, { customer_email: 'ANN@buyer.example' });
      expect(again.customer_id).toBe(session.customer_id);
      expect(await customersOf(biz.id)).toHaveLength(1);
    });

    it('customer {email, name, phone} makes the customer with those details', async () => {
      const { biz, key } = await account(t);
      const session = await createSession(key, { customer: { email: 'Bo@Buyer.example', name: 'Bo Buyer', phone: '+1 503 555 0100' }, shipping_address: US });
      expect(session).toMatchObject({ customer_email: 'bo@buyer.example', customer_id: expect.stringMatching(/^cus_/) });
      const customer = await get(key, `/v1/customers/${session.customer_id}`);
      expect(customer).toMatchObject({
        email: 'bo@buyer.example', name: 'Bo Buyer', phone: '+1 503 555 0100', shipping_address: stored(US), billing_address: null, orders_count: 1,
      });
      expect(await orderRow(session.order_id)).toMatchObject({ customer_id: session.customer_id, customer_name: 'Bo Buyer', customer_phone: '+1 503 555 0100' });
      expect(await customersOf(biz.id)).toHaveLength(1);
    });

    it('accepts customer.email and customer_email when they are the same address', async () => {
      const { key } = await account(t);
      const session = await createSession(key, { customer_email: 'ann@buyer.example', customer: { email: 'ANN@buyer.example', name: 'Ann' } });
      expect(session.customer_email).toBe('ann@buyer.example');
    });

    it('answers 400 invalid_customer when customer.email and customer_email differ, and stores nothing', async () => {
      const { biz, key } = await account(t);
      const res = await create(key, { ...VALID, customer_email: 'ann@buyer.example', customer: { email: 'bo@buyer.example' } });
      expectError(res, 400, 'invalid_customer', 'customer.email');
      await expectNothingStored(biz.id);
    });

    it.each([
      ['customer_email not an address', { customer_email: 'ann-at-buyer' }, 'invalid_email', 'customer_email'],
      ['customer.email not an address', { customer: { email: 'ann-at-buyer' } }, 'invalid_email', 'customer.email'],
      ['customer.name not a string', { customer: { name: 7 } }, 'invalid_customer', 'customer.name'],
      ['customer.phone over 40 characters', { customer: { phone: '1'.repeat(41) } }, 'too_long', 'customer.phone'],
      ['customer not an object', { customer: 'ann' }, 'invalid_customer', 'customer'],
    ])('answers 400 for %s', async (_case, body, code, field) => {
      const { biz, key } = await account(t);
      expectError(await create(key, { ...VALID, ...body }), 400, code, field);
      await expectNothingStored(biz.id);
    });

    it('makes no customer without an email', async () => {
      const { biz, key } = await account(t);
      const session = await createSession(key, { customer: { name: 'Ann' } });
      expect(session).toMatchObject({ customer_email: null, customer_id: null });
      expect(await rowCounts(biz.id)).toEqual({ payments: 1, orders: 1, customers: 0 });
    });
  });

  describe('order', () => {
    it('keeps the store order: lines, totals, addresses and store; the description defaults to the order summary', async () => {
      const { key } = await account(t);
      const session = await createSession(key, { order: { ...ORDER, ship_to: US, bill_to: GB } });
      expect(session.description).toBe('Coffee beans (1 kg) and 1 more');
      const order = await get(key, `/v1/orders/${session.order_id}`);
      expect(order).toMatchObject({
        id: session.order_id, number: 1001, display_number: '#1042', source: 'api', status: 'open', currency: 'USD',
        summary: 'Coffee beans (1 kg) and 1 more', line_count: 2, unit_count: 3,
        subtotal: '35.00', discount: '5.00', shipping: '4.50', tax: '5.50', total: '40.00',
        ship_to: stored(US), bill_to: stored(GB), payment_ids: [session.id],
        store: { platform: 'woocommerce', id: 'shop-7', name: 'Bean Shop', url: 'https://shop.example', order_id: 'store-1042', order_number: '#1042', order_url: null, customer_id: null },
        items: [
          { name: 'Coffee beans', variant: '1 kg', sku: 'BEAN-1', quantity: 2, unit_amount: '15.00', amount: '30.00' },
          { name: 'Filter papers', variant: null, sku: null, quantity: 1, unit_amount: '5.00', amount: '5.00' },
        ],
      });
    });

    it('a description sent wins over the order summary', async () => {
      const { key } = await account(t);
      expect((await createSession(key, { description: 'Beans', order: ORDER })).description).toBe('Beans');
    });

    it('without `order` the order has one line: the description for the amount', async () => {
      const { key } = await account(t);
      const session = await createSession(key, { amount: '12.50', description: 'Tea' });
      const order = await get(key, `/v1/orders/${session.order_id}`);
      expect(order).toMatchObject({
        line_count: 1, unit_count: 1, subtotal: '12.50', discount: '0.00', shipping: '0.00', tax: '0.00', total: '12.50', store: null,
        items: [{ name: 'Tea', variant: null, sku: null, quantity: 1, unit_amount: '12.50', amount: '12.50' }],
      });
    });

    it('a second session for the same store order attaches to that order and replaces its details', async () => {
      const { biz, key } = await account(t);
      const first = await createSession(key, { order: ORDER, customer_email: 'ann@buyer.example' });
      t.clock.advance(SECOND);
      const changed = {
        ...ORDER,
        number: '#1042-b',
        items: [{ name: 'Tea', quantity: 3, unit_amount: '10.00', amount: '30.00' }],
        subtotal: '30.00', discount: '0.00', shipping: '0.00', tax: '0.00', total: '30.00', ship_to: US,
      };
      const second = await createSession(key, { amount: '30.00', order: changed, customer: { email: 'ann@buyer.example', name: 'Ann B' } });
      expect(second.order_id).toBe(first.order_id);
      expect(second.id).not.toBe(first.id);
      expect(await rowCounts(biz.id)).toEqual({ payments: 2, orders: 1, customers: 1 });
      const order = await get(key, `/v1/orders/${first.order_id}`);
      expect(order).toMatchObject({
        number: 1001, display_number: '#1042-b', line_count: 1, subtotal: '30.00', discount: '0.00', total: '30.00', ship_to: stored(US),
        customer_name: 'Ann B', payment_ids: [first.id, second.id], attempt_count: 2,
        items: [{ name: 'Tea', variant: null, sku: null, quantity: 3, unit_amount: '10.00', amount: '30.00' }],
      });
    });

    it('sessions created at once for one new store order all attach to one order, with one customer', async () => {
      const { biz, key } = await account(t);
      const order = { ...ORDER, id: 'store-race' };
      const responses = await Promise.all(Array.from({ length: 10 }, () => create(key, { ...VALID, order, customer_email: 'ann@buyer.example' })));
      const sessions = responses.map(expectCreated);
      expect(new Set(sessions.map((s) => s.id)).size).toBe(10);
      expect(new Set(sessions.map((s) => s.order_id)).size).toBe(1);
      expect(await rowCounts(biz.id)).toEqual({ payments: 10, orders: 1, customers: 1 });
      expect((await get(key, `/v1/orders/${sessions[0]?.order_id}`)).attempt_count).toBe(10);
    });

    it('the same order id from another store, or in the other mode, is another order', async () => {
      const { biz, key } = await account(t);
      const first = await createSession(key, { order: ORDER });
      const otherStore = await createSession(key, { order: { ...ORDER, store: { ...ORDER.store, id: 'shop-8' } } });
      const otherPlatform = await createSession(key, { order: { ...ORDER, store: { ...ORDER.store, platform: 'shopify' } } });
      const noStore = await createSession(key, { order: { ...ORDER, store: undefined } });
      const orderIds = [first.order_id, otherStore.order_id, otherPlatform.order_id, noStore.order_id];
      expect(new Set(orderIds).size).toBe(4);
      const live = await createSession((await biz.key({ mode: 'live' })).secret, { order: ORDER });
      expect(orderIds).not.toContain(live.order_id);
      const otherBusiness = await createSession((await account(t)).key, { order: ORDER });
      expect(orderIds).not.toContain(otherBusiness.order_id);
    });

    it('numbers orders from 1001 per mode; a second session on a store order takes no number', async () => {
      const biz = await t.business();
      const [testKey, liveKey] = [(await biz.key()).secret, (await biz.key({ mode: 'live' })).secret];
      const numberOf = async (session: { order_id: string }) => (await orderRow(session.order_id)).number;
      expect(await numberOf(await createSession(testKey))).toBe(1001);
      expect(await numberOf(await createSession(testKey, { order: ORDER }))).toBe(1002);
      expect(await numberOf(await createSession(testKey, { order: ORDER }))).toBe(1002);
      expect(await numberOf(await createSession(liveKey))).toBe(1001);
      expect(await numberOf(await createSession(testKey))).toBe(1003);
      expect(await numberOf(await createSession(liveKey))).toBe(1002);
      // Another business counts on its own.
      expect(await numberOf(await createSession((await account(t)).key))).toBe(1001);
    });

    const INVALID_ORDERS: Array<[string, Record<string, unknown>, string, string]> = [
      ['an item amount that is not unit_amount × quantity', { items: [{ name: 'Mug', quantity: 2, unit_amount: '10.00', amount: '25.00' }], subtotal: '25.00', total: '25.00' }, 'invalid_order', 'order.items.0.amount'],
      ['a second item amount that is not unit_amount × quantity', { items: [{ name: 'Mug', quantity: 1, amount: '20.00' }, { name: 'Cup', quantity: 2, unit_amount: '1.00', amount: '3.00' }], subtotal: '23.00', total: '23.00' }, 'invalid_order', 'order.items.1.amount'],
      ['an item amount that is not a decimal string', { items: [{ name: 'Mug', quantity: 2, amount: 20 }] }, 'invalid_order', 'order.items.0.amount'],
      ['an item amount with three decimals', { items: [{ name: 'Mug', quantity: 2, amount: '20.001' }] }, 'invalid_order', 'order.items.0.amount'],
      ['an item without a name', { items: [{ name: ' ', quantity: 1, amount: '20.00' }] }, 'invalid_order', 'order.items.0.name'],
      ['an item quantity of 0', { items: [{ name: 'Mug', quantity: 0, amount: '20.00' }] }, 'invalid_order', 'order.items.0.quantity'],
      ['a fractional quantity', { items: [{ name: 'Mug', quantity: 1.5, amount: '20.00' }] }, 'invalid_order', 'order.items.0.quantity'],
      ['a subtotal that is not the sum of the items', { subtotal: '19.00', total: '19.00' }, 'invalid_order', 'order.subtotal'],
      ['a total that is not subtotal - discount + shipping + tax', { total: '21.00' }, 'invalid_order', 'order.total'],
      ['a discount larger than the order', { discount: '30.00', total: undefined }, 'invalid_order', 'order.discount'],
      ['a tax that is not a decimal string', { tax: 'five' }, 'invalid_order', 'order.tax'],
      ['no order id', { id: undefined }, 'invalid_order', 'order.id'],
      ['a blank order id', { id: '  ' }, 'invalid_order', 'order.id'],
      ['items that are not an array', { items: 'mug' }, 'invalid_order', 'order.items'],
      ['a store that is not an object', { store: 'shop' }, 'invalid_order', 'order.store'],
      ['an order number over 64 characters', { number: 'n'.repeat(65) }, 'too_long', 'order.number'],
      ['an item name over 200 characters', { items: [{ name: 'n'.repeat(201), quantity: 1, amount: '20.00' }] }, 'too_long', 'order.items.0.name'],
      ['a store id over 100 characters', { store: { id: 's'.repeat(101) } }, 'too_long', 'order.store.id'],
      // Addresses a merchant may open (issue 21): http(s) only, never a script or data.
      ['a javascript: store url', { store: { url: 'javascript:alert(document.cookie)' } }, 'invalid_url', 'order.store.url'],
      ['a data: order url', { url: 'data:text/html,<script>alert(1)</script>' }, 'invalid_url', 'order.url'],
      ['an order url that is not an address', { url: 'orders/1042' }, 'invalid_url', 'order.url'],
      ['a store url with a password', { store: { url: 'https://admin:secret@shop.example' } }, 'invalid_url', 'order.store.url'],
      ['a store url over 2,048 characters', { store: { url: `https://shop.example/${'a'.repeat(2048)}` } }, 'invalid_url', 'order.store.url'],
      ['an order url that is not a string', { url: 42 }, 'invalid_url', 'order.url'],
    ];

    it.each(INVALID_ORDERS)('answers 400 for %s and stores nothing', async (_case, patch, code, field) => {
      const { biz, key } = await account(t);
      const order = { id: 'o-1', items: [{ name: 'Mug', quantity: 2, unit_amount: '10.00', amount: '20.00' }], subtotal: '20.00', total: '20.00', ...patch };
      expectError(await create(key, { ...VALID, amount: '20.00', order }), 400, code, field);
      await expectNothingStored(biz.id);
    });

    it('answers 400 invalid_order for an order that is not an object', async () => {
      const { key } = await account(t);
      expectError(await create(key, { ...VALID, order: 'o-1' }), 400, 'invalid_order', 'order');
    });

    it('takes the limits themselves (64-character number, 200-character item name)', async () => {
      const { key } = await account(t);
      await createSession(key, { amount: '20.00', order: { id: 'o-1', number: 'n'.repeat(64), items: [{ name: 'n'.repeat(200), quantity: 1, amount: '20.00' }] } });
    });
  });

  describe('metadata', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));

    it('takes 50 keys, 40-character keys and 500-character values, and returns them as sent', async () => {
      const { key } = await account(t);
      expect((await createSession(key, { metadata: keys(50) })).metadata).toEqual(keys(50));
      const edge = { ['k'.repeat(40)]: 'v'.repeat(500), n: 1.5, b: true, z: null };
      expect((await createSession(key, { metadata: edge })).metadata).toEqual(edge);
    });

    it.each([
      ['more than 50 keys', keys(51), 'metadata'],
      ['a 41-character key', { ['k'.repeat(41)]: 'v' }, `metadata.${'k'.repeat(41)}`],
      ['a 501-character value', { note: 'v'.repeat(501) }, 'metadata.note'],
      ['a nested object value', { nested: { a: 1 } }, 'metadata.nested'],
      ['an array value', { list: [1, 2] }, 'metadata.list'],
      ['metadata that is not an object', 'cart-1', 'metadata'],
    ])('answers 400 invalid_metadata for %s', async (_case, metadata, field) => {
      const { biz, key } = await account(t);
      expectError(await create(key, { ...VALID, metadata }), 400, 'invalid_metadata', field);
      await expectNothingStored(biz.id);
    });
  });

  describe('other fields', () => {
    it.each([
      ['description over 120 characters', { description: 'd'.repeat(121) }, 'too_long', 'description'],
      ['reference over 64 characters', { reference: 'r'.repeat(65) }, 'too_long', 'reference'],
      ['reference not a string', { reference: 5 }, 'invalid_reference', 'reference'],
      ['amount below 1.00', { amount: '0.99' }, 'invalid_amount', 'amount'],
      ['amount as a number', { amount: 40 }, 'invalid_amount', 'amount'],
      ['an unknown currency', { currency: 'JPY' }, 'invalid_currency', 'currency'],
    ])('answers 400 for %s', async (_case, body, code, field) => {
      const { biz, key } = await account(t);
      expectError(await create(key, { ...VALID, ...body }), 400, code, field);
      await expectNothingStored(biz.id);
    });
  });

  describe('account rules', () => {
    const REFUSED: Array<[string, BusinessChanges, 'test' | 'live', number, string]> = [
      ['Live mode without a payout wallet', { payoutWallet: null }, 'live', 409, 'no_payout_wallet'],
      ['commerce paused', { commerce: 'paused' }, 'test', 409, 'commerce_paused'],
      ['commerce paused (Live)', { commerce: 'paused' }, 'live', 409, 'commerce_paused'],
      ['API integration disabled', { disable: ['api'] }, 'test', 403, 'integration_disabled'],
      ['archived account', { status: 'archived' }, 'test', 403, 'merchant_read_only'],
    ];

    it.each(REFUSED)('%s → %i', async (_case, changes, mode, status, code) => {
      const { biz, key } = await account(t, {}, mode);
      await biz.update(changes);
      expectError(await create(key, VALID), status, code);
      await expectNothingStored(biz.id);
    });

    it('needs no payout wallet in Test mode and is not blocked by disabling links or checkouts', async () => {
      await createSession((await account(t, { payoutWallet: null })).key);
      await createSession((await account(t, { disable: ['payment_links', 'checkouts'] })).key);
    });

    it('needs the checkouts:write scope', async () => {
      const biz = await t.business();
      const readOnly = (await biz.key({ access: 'read_only' })).secret;
      expectError(await create(readOnly, VALID), 403, 'insufficient_scope');
      await expectNothingStored(biz.id);
    });
  });
});

describe('GET /v1/checkout_sessions/:id', () => {
  it('returns the session with a read-only key', async () => {
    const biz = await t.business();
    const session = await createSession((await biz.key()).secret);
    expect(await get((await biz.key({ access: 'read_only' })).secret, `${SESSIONS}/${session.id}`)).toStrictEqual(session);
  });

  it.each(['another business', 'the other mode', 'a payment link', 'an unknown id'])('answers 404 not_found for %s', async (which) => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    let id: string;
    if (which === 'another business') id = (await createSession((await account(t)).key)).id;
    else if (which === 'the other mode') id = (await createSession((await biz.key({ mode: 'live' })).secret)).id;
    else if (which === 'a payment link') {
      const link = await t.request('POST', '/v1/payment_links', { key, body: { amount: '10.00', currency: 'USD', description: 'Tea' } });
      expect(link.status).toBe(201);
      id = link.body.id;
    } else id = newId('pay');
    expectError(await t.request('GET', `${SESSIONS}/${id}`, { key }), 404, 'not_found');
  });

  it('reads as expired once expires_at has passed', async () => {
    const { key } = await account(t);
    const session = await createSession(key);
    t.clock.advance(DAY);
    expect((await get(key, `${SESSIONS}/${session.id}`)).status).toBe('expired');
  });
});

describe('POST /v1/checkout_sessions/:id/start', () => {
  describe('email and customer (spec 2.3)', () => {
    it('answers 400 invalid_email (field email) when neither the session nor the start has an email', async () => {
      const { biz, key } = await account(t);
      const session = await createSession(key);
      expectError(await start(key, session.id), 400, 'invalid_email', 'email');
      expectError(await start(key, session.id, { email: null }), 400, 'invalid_email', 'email');
      expectError(await start(key, session.id, { email: 'not-an-email' }), 400, 'invalid_email', 'email');
      expect(await paymentRow(session.id)).toMatchObject({ started_at: null, usd_value_minor: null });
      expect(await customersOf(biz.id)).toEqual([]);
      expect(await eventsOf(t, session.id)).toEqual([]);
    });

    it('rule 2: the email at creation made the customer; a start without email uses it', async () => {
      const { biz, key } = await account(t);
      const session = await createSession(key, { customer_email: 'ann@buyer.example' });
      const started = await startOk(key, session.id, {});
      expect(started).toMatchObject({ customer_email: 'ann@buyer.example', customer_id: session.customer_id, status: 'open', started_at: nowSeconds(t) });
      expect(await customersOf(biz.id)).toHaveLength(1);
    });

    it('rule 4: a session created without email keeps name, phone and addresses on the order and saves them to the customer at start', async () => {
      const { biz, key } = await account(t);
      const session = await createSession(key, { customer: { name: 'Ann Buyer', phone: '+1 503 555 0100' }, shipping_address: US, billing_address: GB });
      expect(await customersOf(biz.id)).toEqual([]);
      expect(await orderRow(session.order_id)).toMatchObject({
        customer_id: null, customer_name: 'Ann Buyer', customer_phone: '+1 503 555 0100', ship_to: stored(US), bill_to: stored(GB),
      });
      const started = await startOk(key, session.id, { email: 'Ann@Buyer.example' });
      expect(started).toMatchObject({ customer_email: 'ann@buyer.example', customer_id: expect.stringMatching(/^cus_/) });
      const customer = await get(key, `/v1/customers/${started.customer_id}`);
      expect(customer).toMatchObject({
        email: 'ann@buyer.example', name: 'Ann Buyer', phone: '+1 503 555 0100', shipping_address: stored(US), billing_address: stored(GB), orders_count: 1,
      });
      expect((await orderRow(session.order_id)).customer_id).toBe(started.customer_id);
      const [event] = await eventsOf(t, session.id);
      expect(event?.data.customer).toMatchObject({ id: started.customer_id, email: 'ann@buyer.example', name: 'Ann Buyer' });
    });

    it('rule 5: starting with another email moves the order to that customer', async () => {
      const { key } = await account(t);
      const session = await createSession(key, { customer_email: 'ann@buyer.example' });
      const before = await get(key, `/v1/customers/${session.customer_id}`);
      expect(before.orders_count).toBe(1);
      const started = await startOk(key, session.id, { email: 'bo@buyer.example' });
      expect(started.customer_email).toBe('bo@buyer.example');
      expect(started.customer_id).not.toBe(session.customer_id);
      expect((await orderRow(session.order_id)).customer_id).toBe(started.customer_id);
      expect((await get(key, `/v1/customers/${session.customer_id}`)).orders_count).toBe(0);
      expect(await get(key, `/v1/customers/${started.customer_id}`)).toMatchObject({ email: 'bo@buyer.example', orders_count: 1 });
      expect(await get(key, `${SESSIONS}/${session.id}`)).toMatchObject({ customer_email: 'bo@buyer.example', customer_id: started.customer_id });
    });

    it('finds an existing customer case-insensitively at start', async () => {
      const { biz, key } = await account(t);
      const first = await createSession(key, { customer_email: 'ann@buyer.example' });
      const session = await createSession(key);
      const started = await startOk(key, session.id, { email: 'ANN@Buyer.Example' });
      expect(started).toMatchObject({ customer_email: 'ann@buyer.example', customer_id: first.customer_id });
      expect(await customersOf(biz.id)).toHaveLength(1);
      expect((await get(key, `/v1/customers/${first.customer_id}`)).orders_count).toBe(2);
    });
  });

  describe('what start locks (spec 1.1, 3)', () => {
    it('locks fee_bps and payout_wallet from the business at start; later changes leave the payment alone', async () => {
      const { biz, key } = await account(t, { feeBps: 120 });
      const session = await createSession(key);
      // Changes before the start count: the fee and wallet are those of the moment it starts.
      const wallet = '0x2222222222222222222222222222222222222222';
      await biz.update({ feeBps: 150, payoutWallet: wallet });
      await startOk(key, session.id);
      expect(await paymentRow(session.id)).toMatchObject({ fee_bps: 150, payout_wallet: wallet });
      await biz.update({ feeBps: 250, payoutWallet: LIVE_WALLET });
      const payment = await get(key, `/v1/payments/${session.id}`);
      expect(payment).toMatchObject({ fee_bps: 150, payout_wallet: wallet });
      await simulate(key, session.id, 'paid');
      // 40.00 arrived, 1.5% kept: 39.40 forwarded.
      expect((await simulate(key, session.id, 'settled')).merchant_received).toBe('39.400000');
      const events = await eventsOf(t, session.id);
      expect(events.map((e) => [e.type, e.data.payment.feeBps, e.data.payment.payoutWallet])).toEqual([
        ['payment.started', 150, wallet], ['payment.paid', 150, wallet], ['payment.updated', 150, wallet],
      ]);
    });

    it('locks the USD value from fx_rates: EUR 50.00 is 54.00 USD, and the 90% hold threshold is 48.60', async () => {
      const { key } = await account(t);
      const arrive = async (received: string) => {
        const session = await createSession(key, { amount: '50.00', currency: 'EUR' });
        await startOk(key, session.id);
        expect((await paymentRow(session.id)).usd_value_minor).toBe(5400);
        return simulate(key, session.id, 'underpaid', { amount_received: received });
      };
      // 45.00 is 90% of the face amount 50.00, but only 83% of the USD value: held.
      expect(await arrive('45.00')).toMatchObject({ status: 'held', hold_acceptable: true });
      expect(await arrive('48.59')).toMatchObject({ status: 'held', hold_acceptable: true });
      expect(await arrive('48.60')).toMatchObject({ status: 'paid', hold_reason: null });
    });

    it('uses the rate at the time of the start', async () => {
      const { key } = await account(t);
      const session = await createSession(key, { amount: '10.00', currency: 'GBP' });
      const before = await t.db.selectFrom('fx_rates').select('usd_per_unit').where('currency', '=', 'GBP').executeTakeFirstOrThrow();
      try {
        await t.db.updateTable('fx_rates').set({ usd_per_unit: '1.30' }).where('currency', '=', 'GBP').execute();
        await startOk(key, session.id);
        expect((await paymentRow(session.id)).usd_value_minor).toBe(1300);
      } finally {
        await t.db.updateTable('fx_rates').set({ usd_per_unit: before.usd_per_unit }).where('currency', '=', 'GBP').execute();
      }
    });
  });

  describe('card_providers and crypto', () => {
    const ALL_USD = [
      { id: 'moonpay', name: 'MoonPay' }, { id: 'transak', name: 'Transak' }, { id: 'ramp', name: 'Ramp Network' },
      { id: 'banxa', name: 'Banxa' }, { id: 'mercuryo', name: 'Mercuryo' }, { id: 'wert', name: 'Wert' },
    ];

    async function offered(body: Record<string, unknown>, changes: BusinessChanges = {}) {
      const { key } = await account(t, changes);
      const session = await createSession(key, body);
      const started = await startOk(key, session.id);
      return { providers: started.card_providers as Array<{ id: string; name: string; recommended: boolean }>, crypto: started.crypto as boolean };
    }
    const idsOf = (providers: Array<{ id: string }>) => providers.map((p) => p.id);

    it('smart routing: every card provider that can take the buyer, best first, the first recommended', async () => {
      const { providers } = await offered({ amount: '40.00', currency: 'USD' });
      expect(providers).toEqual(ALL_USD.map((p, i) => ({ ...p, recommended: i === 0 })));
    });

    it('buyer routing: the same list, none recommended', async () => {
      const { providers } = await offered({ routing: { choice: 'buyer' } });
      expect(providers).toEqual(ALL_USD.map((p) => ({ ...p, recommended: false })));
    });

    it('fixed routing: only its provider when it can take the buyer', async () => {
      expect((await offered({ routing: { choice: 'fixed', provider: 'wert', fallback: false } })).providers)
        .toEqual([{ id: 'wert', name: 'Wert', recommended: true }]);
    });

    it('fixed routing whose provider cannot take the currency: smart list with fallback, none without', async () => {
      const gbp = { amount: '100.00', currency: 'GBP' };
      const smart = (await offered(gbp)).providers;
      expect(idsOf(smart)).toEqual(['moonpay', 'transak', 'ramp', 'mercuryo']);
      expect((await offered({ ...gbp, routing: { choice: 'fixed', provider: 'wert', fallback: true } })).providers).toEqual(smart);
      expect((await offered({ ...gbp, routing: { choice: 'fixed', provider: 'wert', fallback: false } })).providers).toEqual([]);
    });

    it.each([
      ['USD 12.00: under the 15 and 20 USD minimums', { amount: '12.00', currency: 'USD' }, ['ramp', 'mercuryo', 'wert']],
      ['EUR 13.89 (15.00 USD): at transak\'s minimum after conversion', { amount: '13.89', currency: 'EUR' }, ['transak', 'ramp', 'mercuryo', 'wert']],
      ['EUR 13.88 (14.99 USD): just under it', { amount: '13.88', currency: 'EUR' }, ['ramp', 'mercuryo', 'wert']],
      ['USD 5000.00: at mercuryo\'s maximum', { amount: '5000.00', currency: 'USD' }, ['moonpay', 'transak', 'ramp', 'banxa', 'mercuryo', 'wert']],
      ['USD 5000.01: over mercuryo\'s maximum', { amount: '5000.01', currency: 'USD' }, ['moonpay', 'transak', 'ramp', 'banxa', 'wert']],
      ['USD 60000.00: only moonpay goes so high', { amount: '60000.00', currency: 'USD' }, ['moonpay']],
      ['AUD 100.00: providers taking AUD', { amount: '100.00', currency: 'AUD' }, ['moonpay', 'transak', 'banxa']],
      ['CAD 20.00 (14.60 USD): none', { amount: '20.00', currency: 'CAD' }, []],
    ])('filters by currency and USD min/max: %s', async (_case, body, expected) => {
      const { providers, crypto } = await offered(body);
      expect(idsOf(providers)).toEqual(expected);
      expect(providers.map((p) => p.recommended)).toEqual(expected.map((_, i) => i === 0));
      expect(crypto).toBe(true);
    });

    it('crypto follows the business\'s crypto setting', async () => {
      expect((await offered({})).crypto).toBe(true);
      expect((await offered({}, { cryptoEnabled: false })).crypto).toBe(false);
    });
  });

  describe('deposit addresses', () => {
    function derived(index: number): string {
      const publicKey = TEST_DEPOSIT_WALLET.deriveChild(index).publicKey;
      if (!publicKey) throw new Error('no public key');
      return addressOfPublicKey(publicKey);
    }
    async function nextIndex(): Promise<number> {
      const { rows } = await sql<{ next: string }>`SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END AS next FROM deposit_address_index`.execute(t.db);
      return Number(rows[0]?.next);
    }

    it('a Live start assigns the next derived deposit address; a restart keeps it', async () => {
      const { key } = await account(t, {}, 'live');
      const [a, b] = [await createSession(key), await createSession(key)];
      expect(a.deposit_address).toBeNull();
      const index = await nextIndex();
      const startedA = await startOk(key, a.id);
      const startedB = await startOk(key, b.id);
      expect(startedA.deposit_address).toBe(derived(index));
      expect(startedB.deposit_address).toBe(derived(index + 1));
      expect(startedA.deposit_address).not.toBe(startedB.deposit_address);
      expect((await paymentRow(a.id)).deposit_address).toBe(derived(index));
      expect((await get(key, `${SESSIONS}/${b.id}`)).deposit_address).toBe(derived(index + 1));
      const [event] = await eventsOf(t, a.id);
      expect(event?.data.payment).toMatchObject({ mode: 'live', depositAddress: derived(index) });
      // Starting again (the buyer came back) keeps the address and uses no new index.
      expect((await startOk(key, a.id)).deposit_address).toBe(derived(index));
      expect(await nextIndex()).toBe(index + 2);
    });

    it('a Test start assigns none', async () => {
      const { key } = await account(t);
      const session = await createSession(key);
      const index = await nextIndex();
      expect((await startOk(key, session.id)).deposit_address).toBeNull();
      expect((await paymentRow(session.id)).deposit_address).toBeNull();
      expect(await nextIndex()).toBe(index);
    });
  });

  describe('many at once', () => {
    // A start holds one connection from its read to its write (checkout-sessions/start.ts), and
    // everything it reads in between goes through that connection: the checkout it sells, a Live
    // deposit address, the networks served. Were one taken from the pool while holding another,
    // more starts at once than the pool has connections (five here) would wait on each other for ever.
    it.each(['test', 'live'] as const)('%s: more starts than the pool has connections all go through, each once', async (mode) => {
      const { key } = await account(t, {}, mode);
      const checkout = await t.request('POST', '/v1/checkouts', { key, body: { name: 'Tea set', amount: '30.00', currency: 'USD' } });
      expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
      const sessions = await Promise.all(Array.from({ length: 12 }, (_, n) => createSession(key, { checkout_id: checkout.body.id, amount: undefined, customer_email: `buyer${n}@buyer.example` })));
      const ids = sessions.map((session) => session.id as string);
      await reportProcessorStatus(t);
      const started = await Promise.all(ids.map((id) => t.request('POST', `${SESSIONS}/${id}/start`, { key, body: {} })));
      expect(started.map((res) => res.status)).toEqual(ids.map(() => 200));
      const rows = await t.db.selectFrom('payments').select(['started_at', 'deposit_address']).where('id', 'in', ids).execute();
      expect(rows.every((row) => row.started_at !== null)).toBe(true);
      expect(new Set(rows.map((row) => row.deposit_address)).size).toBe(mode === 'live' ? 12 : 1);
      const events = await t.db.selectFrom('events').select('payment_id').where('type', '=', 'payment.started').where('payment_id', 'in', ids).execute();
      expect(events).toHaveLength(12);
    });
  });

  describe('state', () => {
    it('answers 409 invalid_state for a paid session', async () => {
      const { key } = await account(t);
      const session = await createSession(key);
      await startOk(key, session.id);
      await simulate(key, session.id, 'paid');
      expectError(await start(key, session.id, { email: 'bo@buyer.example' }), 409, 'invalid_state');
      expect((await paymentRow(session.id)).customer_email).toBe('ann@buyer.example');
    });

    it('answers 409 invalid_state for a session expired by the sweep or only by time', async () => {
      const { key } = await account(t);
      const swept = await createSession(key);
      await simulate(key, swept.id, 'expired');
      expectError(await start(key, swept.id, { email: 'ann@buyer.example' }), 409, 'invalid_state');
      const timedOut = await createSession(key);
      t.clock.advance(DAY);
      expectError(await start(key, timedOut.id, { email: 'ann@buyer.example' }), 409, 'invalid_state');
      expect(await paymentRow(timedOut.id)).toMatchObject({ started_at: null, customer_email: null });
      expect((await eventsOf(t, timedOut.id)).filter((e) => e.type === 'payment.started')).toEqual([]);
    });

    it('answers 404 not_found for another business\'s or the other mode\'s session', async () => {
      const biz = await t.business();
      const key = (await biz.key()).secret;
      const other = await createSession((await account(t)).key);
      const live = await createSession((await biz.key({ mode: 'live' })).secret);
      expectError(await start(key, other.id, { email: 'ann@buyer.example' }), 404, 'not_found');
      expectError(await start(key, live.id, { email: 'ann@buyer.example' }), 404, 'not_found');
    });

    it('writes payment.started at the first start and when the buyer changes, nothing at creation or on a repeat', async () => {
      const { key } = await account(t);
      const session = await createSession(key, { customer_email: 'ann@buyer.example' });
      expect(await eventsOf(t, session.id)).toEqual([]);
      const started = await startOk(key, session.id);
      const events = await eventsOf(t, session.id);
      expect(events.map((e) => e.type)).toEqual(['payment.started']);
      expect(events[0]?.data.payment).toMatchObject({ id: session.id, status: 'open', customerEmail: 'ann@buyer.example', feeBps: 100 });
      expect(events[0]?.data.customer).toMatchObject({ id: started.customer_id, email: 'ann@buyer.example' });
      t.clock.advance(MINUTE);
      await startOk(key, session.id);
      expect((await eventsOf(t, session.id)).map((e) => e.type)).toEqual(['payment.started']);
      await startOk(key, session.id, { email: 'bea@buyer.example' });
      const all = await eventsOf(t, session.id);
      expect(all.map((e) => e.type)).toEqual(['payment.started', 'payment.started']);
      expect(all[1]?.data.customer).toMatchObject({ email: 'bea@buyer.example' });
    });

    it('answers the account rules at start too (commerce paused)', async () => {
      const { biz, key } = await account(t);
      const session = await createSession(key);
      await biz.update({ commerce: 'paused' });
      expectError(await start(key, session.id, { email: 'ann@buyer.example' }), 409, 'commerce_paused');
      expect((await paymentRow(session.id)).started_at).toBeNull();
    });
  });
});

describe('session starts rate limit (spec 8: 12 per minute per account)', () => {
  let r: TestApp;
  beforeAll(async () => { r = await startTestApp({ RATE_LIMIT_BUSINESS_PER_MINUTE: '100000' }); });
  afterAll(async () => { await r?.close(); });

  async function sessions(acct: Account, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await r.request('POST', SESSIONS, { key: acct.key, body: VALID });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    return ids;
  }
  const startIn = (acct: Account, id: string) => r.request('POST', `${SESSIONS}/${id}/start`, { key: acct.key, body: { email: 'ann@buyer.example' } });

  it('answers the 13th start within a minute with 429 rate_limited and Retry-After 60, and takes starts again the next minute', async () => {
    const biz = await r.business();
    const acct = { biz, key: (await biz.key()).secret };
    const ids = await sessions(acct, 13);
    for (const id of ids.slice(0, 12)) expect((await startIn(acct, id)).status).toBe(200);
    const refused = await startIn(acct, ids[12] ?? '');
    expectError(refused, 429, 'rate_limited');
    expect(refused.body.error.message).toBe('This account passed its limit of 12 Test payment starts a minute. Retry after 60 seconds.');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((await r.db.selectFrom('payments').select('started_at').where('id', '=', ids[12] ?? '').executeTakeFirstOrThrow()).started_at).toBeNull();
    // Another account is not limited by this one.
    const otherBiz = await r.business();
    const other = { biz: otherBiz, key: (await otherBiz.key()).secret };
    expect((await startIn(other, (await sessions(other, 1))[0] ?? '')).status).toBe(200);
    r.clock.advance(60_000);
    const res = await startIn(acct, ids[12] ?? '');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});
