import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../src/core/clock.ts';
import { call, eventsOf } from '../flows/support.ts';
import { accountInBothModes, expectError, nowSeconds } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The customer rules of spec 2.3 (1 to 7 but erasure, which has its own file), driven through
// checkout sessions, their start and Test simulations, and read back through the customers API,
// the orders API and the database.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

// ---- calls -------------------------------------------------------------------------------

async function session(key: string, body: Record<string, unknown> = {}): Promise<any> {
  return call(t, key, 'POST', '/v1/checkout_sessions', { amount: '40.00', currency: 'USD', ...body });
}
async function start(key: string, id: string, body: Record<string, unknown> = {}): Promise<any> {
  return call(t, key, 'POST', `/v1/checkout_sessions/${id}/start`, body);
}
async function simulate(key: string, id: string, outcome: string, extra: Record<string, unknown> = {}): Promise<any> {
  return call(t, key, 'POST', `/v1/payments/${id}/simulate`, { outcome, ...extra });
}
async function customer(key: string, id: string): Promise<any> {
  const response = await t.request('GET', `/v1/customers/${id}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}
async function order(key: string, id: string): Promise<any> {
  const response = await t.request('GET', `/v1/orders/${id}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}
async function byEmail(key: string, email: string): Promise<any[]> {
  const response = await t.request('GET', `/v1/customers?email=${encodeURIComponent(email)}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.has_more).toBe(false);
  return response.body.data;
}
async function customerRows(businessId: string) {
  return t.db.selectFrom('customers').selectAll().where('business_id', '=', businessId).orderBy('created_at').orderBy('id').execute();
}
async function orderCustomerId(orderId: string): Promise<string | null> {
  return (await t.db.selectFrom('orders').select('customer_id').where('id', '=', orderId).executeTakeFirstOrThrow()).customer_id;
}

// ---- data --------------------------------------------------------------------------------

const PORTLAND = { name: 'Ann Buyer', line1: '1 Main St', city: 'Portland', region: 'OR', postal_code: '97201', country: 'US' };
const PORTLAND_OUT = { name: 'Ann Buyer', line1: '1 Main St', line2: null, city: 'Portland', region: 'OR', postal_code: '97201', country: 'US' };
const SPRINGFIELD = { line1: '5 Elm St', line2: 'Suite 2', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const SPRINGFIELD_OUT = { name: null, line1: '5 Elm St', line2: 'Suite 2', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const LONDON = { name: 'Ann Smith', line1: '10 Downing St', city: 'London', postal_code: 'SW1A 2AA', country: 'GB' };
const LONDON_OUT = { name: 'Ann Smith', line1: '10 Downing St', line2: null, city: 'London', region: null, postal_code: 'SW1A 2AA', country: 'GB' };

const CUSTOMER_KEYS = [
  'billing_address', 'created', 'email', 'erased', 'id', 'last_order_at', 'livemode', 'name', 'object', 'orders_count',
  'paid_orders_count', 'phone', 'shipping_address', 'spent', 'store_accounts',
].sort();

describe('rule 1: one customer per email address per mode, case-insensitive', () => {
  it('customer_email and customer.email in any letter case find one customer; Test and Live customers are separate', async () => {
    const { biz, test, live } = await accountInBothModes(t);
    const first = await session(test, { customer_email: 'Ann@Shop.Example' });
    expect(first.customer_id).toMatch(/^cus_/);
    expect(first.customer_email).toBe('ann@shop.example');
    const second = await session(test, { customer: { email: 'ANN@shop.EXAMPLE', name: 'Ann' } });
    const third = await session(test, { customer_email: 'aNn@sHoP.eXaMpLe' });
    expect(second.customer_id).toBe(first.customer_id);
    expect(third.customer_id).toBe(first.customer_id);

    const liveSession = await session(live, { customer_email: 'ann@SHOP.example' });
    expect(liveSession.customer_id).toMatch(/^cus_/);
    expect(liveSession.customer_id).not.toBe(first.customer_id);

    const rows = (await customerRows(biz.id)).sort((a, b) => Number(a.livemode) - Number(b.livemode));
    expect(rows.map((row) => ({ id: row.id, livemode: row.livemode, email: row.email }))).toEqual([
      { id: first.customer_id, livemode: false, email: 'ann@shop.example' },
      { id: liveSession.customer_id, livemode: true, email: 'ann@shop.example' },
    ]);
    expect(await customer(test, first.customer_id)).toMatchObject({ livemode: false, email: 'ann@shop.example', orders_count: 3 });
    expect(await customer(live, liveSession.customer_id)).toMatchObject({ livemode: true, email: 'ann@shop.example', orders_count: 1 });

    // Each mode sees only its own customer.
    expectError(await t.request('GET', `/v1/customers/${liveSession.customer_id}`, { key: test }), 404, 'not_found');
    expectError(await t.request('GET', `/v1/customers/${first.customer_id}`, { key: live }), 404, 'not_found');
    expect((await byEmail(test, 'ANN@SHOP.EXAMPLE')).map((c) => c.id)).toEqual([first.customer_id]);
    expect((await byEmail(live, 'ann@shop.example')).map((c) => c.id)).toEqual([liveSession.customer_id]);

    // Another business with the same email has its own customer.
    const otherKey = (await (await t.business()).key()).secret;
    const other = await session(otherKey, { customer_email: 'ann@shop.example' });
    expect([first.customer_id, liveSession.customer_id]).not.toContain(other.customer_id);
    expect((await byEmail(test, 'ann@shop.example'))).toHaveLength(1);
  });

  it('an email given at start in another letter case finds the existing customer', async () => {
    const { biz, test } = await accountInBothModes(t);
    const known = await session(test, { customer_email: 'bo@shop.example' });
    const anonymous = await session(test);
    const started = await start(test, anonymous.id, { email: 'BO@Shop.Example' });
    expect(started.customer_id).toBe(known.customer_id);
    expect(started.customer_email).toBe('bo@shop.example');
    expect(await customerRows(biz.id)).toHaveLength(1);
    expect((await customer(test, known.customer_id)).orders_count).toBe(2);
  });
});

describe('rule 2: when the customer is made or found', () => {
  it('a session with customer_email or customer.email makes or finds its customer at creation, before any start', async () => {
    const { biz, test } = await accountInBothModes(t);
    const created = nowSeconds(t);
    const viaField = await session(test, { customer_email: 'cy@shop.example' });
    const viaObject = await session(test, { customer: { email: 'dee@shop.example' } });
    for (const [made, email] of [[viaField, 'cy@shop.example'], [viaObject, 'dee@shop.example']] as const) {
      expect(made.status).toBe('open');
      expect(made.started_at).toBeNull();
      expect(made.customer_id).toMatch(/^cus_/);
      expect(made.customer_email).toBe(email);
      expect(await customer(test, made.customer_id)).toMatchObject({
        email, orders_count: 1, paid_orders_count: 0, spent: {}, created, last_order_at: created, erased: false,
      });
      expect(await orderCustomerId(made.order_id)).toBe(made.customer_id);
      expect((await order(test, made.order_id)).customer).toEqual({ id: made.customer_id, email, name: null, erased: false });
      expect((await byEmail(test, email)).map((c) => c.id)).toEqual([made.customer_id]);
    }
    expect(await customerRows(biz.id)).toHaveLength(2);

    t.clock.advance(MINUTE);
    const again = await session(test, { customer_email: 'cy@shop.example' });
    expect(again.customer_id).toBe(viaField.customer_id);
    expect(await customerRows(biz.id)).toHaveLength(2);
    const read = await customer(test, viaField.customer_id);
    expect(read).toMatchObject({ orders_count: 2, created, last_order_at: nowSeconds(t) });
  });

  it('a session created without an email has no customer until it starts with one', async () => {
    const { biz, test } = await accountInBothModes(t);
    const made = await session(test);
    expect(made.customer_id).toBeNull();
    expect(made.customer_email).toBeNull();
    expect(await customerRows(biz.id)).toEqual([]);
    expect(await orderCustomerId(made.order_id)).toBeNull();
    expect((await order(test, made.order_id)).customer).toBeNull();
    expect((await t.request('GET', `/v1/customers`, { key: test })).body.data).toEqual([]);

    // Starting needs an email when the session has none.
    expectError(await t.request('POST', `/v1/checkout_sessions/${made.id}/start`, { key: test, body: {} }), 400, 'invalid_email', 'email');
    expect(await customerRows(biz.id)).toEqual([]);

    t.clock.advance(MINUTE);
    const startedAt = nowSeconds(t);
    const started = await start(test, made.id, { email: 'Eve@Shop.Example' });
    expect(started.customer_id).toMatch(/^cus_/);
    expect(started.customer_email).toBe('eve@shop.example');
    expect(await orderCustomerId(made.order_id)).toBe(started.customer_id);
    expect(await customer(test, started.customer_id)).toMatchObject({ email: 'eve@shop.example', orders_count: 1, created: startedAt });
    const read = await call(t, test, 'GET', `/v1/checkout_sessions/${made.id}`);
    expect(read).toMatchObject({ customer_id: started.customer_id, customer_email: 'eve@shop.example' });
    const [startedEvent] = await eventsOf(t, made.id);
    expect(startedEvent?.data.customer).toMatchObject({ id: started.customer_id, email: 'eve@shop.example' });
  });
});

describe('rule 3: the latest order replaces details; details it leaves out keep their value', () => {
  it('replaces name, phone and each address separately, order after order', async () => {
    const { test } = await accountInBothModes(t);
    const email = 'fay@shop.example';
    const first = await session(test, {
      customer_email: email, customer: { name: 'Fay', phone: '+1 555 0100' },
      order: { id: 'r3-1', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }], ship_to: PORTLAND, bill_to: SPRINGFIELD },
    });
    const id = first.customer_id;
    expect(await customer(test, id)).toMatchObject({
      name: 'Fay', phone: '+1 555 0100', shipping_address: PORTLAND_OUT, billing_address: SPRINGFIELD_OUT,
    });

    // Only a name: the rest stays.
    t.clock.advance(MINUTE);
    await session(test, { customer: { email, name: 'Fay Smith' } });
    expect(await customer(test, id)).toMatchObject({
      name: 'Fay Smith', phone: '+1 555 0100', shipping_address: PORTLAND_OUT, billing_address: SPRINGFIELD_OUT, orders_count: 2,
    });

    // Only a phone and a shipping address (session-level): name and billing address stay.
    t.clock.advance(MINUTE);
    await session(test, { customer_email: email, customer: { phone: '+44 20 7946 0000' }, shipping_address: LONDON });
    expect(await customer(test, id)).toMatchObject({
      name: 'Fay Smith', phone: '+44 20 7946 0000', shipping_address: LONDON_OUT, billing_address: SPRINGFIELD_OUT, orders_count: 3,
    });

    // Only a billing address on a store order: the rest stays.
    t.clock.advance(MINUTE);
    await session(test, { customer_email: email, order: { id: 'r3-4', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }], bill_to: PORTLAND } });
    expect(await customer(test, id)).toMatchObject({
      name: 'Fay Smith', phone: '+44 20 7946 0000', shipping_address: LONDON_OUT, billing_address: PORTLAND_OUT, orders_count: 4,
    });

    // An order with no details at all changes nothing.
    t.clock.advance(MINUTE);
    await session(test, { customer_email: email });
    expect(await customer(test, id)).toMatchObject({
      name: 'Fay Smith', phone: '+44 20 7946 0000', shipping_address: LONDON_OUT, billing_address: PORTLAND_OUT, orders_count: 5,
    });

    // Details the buyer gives when starting the latest order replace the saved ones too.
    t.clock.advance(MINUTE);
    const latest = await session(test, { customer_email: email });
    await start(test, latest.id, { name: 'Fay S.', phone: '+1 555 0199', billing_address: SPRINGFIELD });
    expect(await customer(test, id)).toMatchObject({
      name: 'Fay S.', phone: '+1 555 0199', shipping_address: LONDON_OUT, billing_address: SPRINGFIELD_OUT, orders_count: 6,
    });
  });

  it('starting an older session later does not put its older details over those of a newer order', async () => {
    const { test } = await accountInBothModes(t);
    const email = 'gus@shop.example';
    const older = await session(test, { customer_email: email, customer: { name: 'Gus Old', phone: '+1 555 0001' }, shipping_address: SPRINGFIELD });
    t.clock.advance(MINUTE);
    const newer = await session(test, { customer_email: email, customer: { name: 'Gus New', phone: '+1 555 0002' }, shipping_address: PORTLAND });
    expect(newer.customer_id).toBe(older.customer_id);
    expect(await customer(test, older.customer_id)).toMatchObject({ name: 'Gus New', phone: '+1 555 0002', shipping_address: PORTLAND_OUT });

    // The buyer comes back to the first (older) session and pays it: the latest order is still
    // the newer one, so its details stay (spec 2.3 rule 3, "the latest order's ... replace").
    t.clock.advance(MINUTE);
    await start(test, older.id);
    expect(await customer(test, older.customer_id)).toMatchObject({ name: 'Gus New', phone: '+1 555 0002', shipping_address: PORTLAND_OUT });
  });
});

describe('rule 4: a session without an email keeps the details on its order until it starts', () => {
  it('keeps name, phone and addresses on the order, then saves them to the customer at start', async () => {
    const { biz, test } = await accountInBothModes(t);
    const made = await session(test, {
      customer: { name: 'Hal Buyer', phone: '+1 555 0142' },
      order: {
        id: 'r4-1', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }], ship_to: PORTLAND, bill_to: SPRINGFIELD,
        store: { platform: 'woocommerce', id: 'shop-4', name: 'Tea Shop', url: 'https://tea.example' }, customer_id: 'wc-44',
      },
    });
    expect(made.customer_id).toBeNull();
    expect(await customerRows(biz.id)).toEqual([]);
    expect(await order(test, made.order_id)).toMatchObject({
      customer_id: null, customer: null, customer_name: 'Hal Buyer', customer_phone: '+1 555 0142',
      ship_to: PORTLAND_OUT, bill_to: SPRINGFIELD_OUT,
    });

    const started = await start(test, made.id, { email: 'hal@shop.example' });
    expect(await customer(test, started.customer_id)).toMatchObject({
      email: 'hal@shop.example', name: 'Hal Buyer', phone: '+1 555 0142', shipping_address: PORTLAND_OUT, billing_address: SPRINGFIELD_OUT,
      store_accounts: [{ platform: 'woocommerce', store_id: 'shop-4', store_name: 'Tea Shop', customer_id: 'wc-44' }],
      orders_count: 1,
    });
    expect(await order(test, made.order_id)).toMatchObject({
      customer_id: started.customer_id, customer: { id: started.customer_id, email: 'hal@shop.example', name: 'Hal Buyer', erased: false },
      customer_name: 'Hal Buyer', customer_phone: '+1 555 0142', ship_to: PORTLAND_OUT, bill_to: SPRINGFIELD_OUT,
    });
    const [startedEvent] = await eventsOf(t, made.id);
    expect(startedEvent?.data.customer).toMatchObject({
      email: 'hal@shop.example', name: 'Hal Buyer', phone: '+1 555 0142', location: 'Portland, OR, US',
    });
  });

  it('does the same with session-level addresses and no store order', async () => {
    const { biz, test } = await accountInBothModes(t);
    const made = await session(test, { customer: { name: 'Ida', phone: '+1 555 0143' }, shipping_address: LONDON, billing_address: SPRINGFIELD });
    expect(await customerRows(biz.id)).toEqual([]);
    expect(await order(test, made.order_id)).toMatchObject({ customer_name: 'Ida', customer_phone: '+1 555 0143', ship_to: LONDON_OUT, bill_to: SPRINGFIELD_OUT });
    const started = await start(test, made.id, { email: 'ida@shop.example' });
    expect(await customer(test, started.customer_id)).toMatchObject({
      name: 'Ida', phone: '+1 555 0143', shipping_address: LONDON_OUT, billing_address: SPRINGFIELD_OUT, store_accounts: [],
    });
  });
});

describe('rule 5: starting with a different email moves the order', () => {
  it('moves the order and its counts to the customer of the new email, but not the first buyer\'s name and phone', async () => {
    const { biz, test } = await accountInBothModes(t);
    const made = await session(test, { customer_email: 'jo@shop.example', customer: { name: 'Jo', phone: '+1 555 0150' }, shipping_address: PORTLAND });
    const first = made.customer_id;
    expect((await customer(test, first)).orders_count).toBe(1);

    const started = await start(test, made.id, { email: 'Kim@Shop.Example' });
    const second = started.customer_id;
    expect(second).toMatch(/^cus_/);
    expect(second).not.toBe(first);
    expect(started.customer_email).toBe('kim@shop.example');
    expect(await orderCustomerId(made.order_id)).toBe(second);
    expect((await order(test, made.order_id)).customer).toMatchObject({ id: second, email: 'kim@shop.example' });
    expect((await call(t, test, 'GET', `/v1/payments/${made.id}`))).toMatchObject({ customer_email: 'kim@shop.example', customer_id: second });

    expect(await customer(test, first)).toMatchObject({ email: 'jo@shop.example', orders_count: 0, paid_orders_count: 0, spent: {} });
    expect(await customer(test, second)).toMatchObject({
      email: 'kim@shop.example', orders_count: 1, name: null, phone: null, shipping_address: null,
    });
    // The order still ships where it was going.
    expect((await order(test, made.order_id)).ship_to).toEqual(PORTLAND_OUT);
    expect(ids(await call(t, test, 'GET', `/v1/orders?customer_id=${first}`))).toEqual([]);
    expect(ids(await call(t, test, 'GET', `/v1/orders?customer_id=${second}`))).toEqual([made.order_id]);

    // The money follows the order.
    await simulate(test, made.id, 'paid');
    expect(await customer(test, first)).toMatchObject({ orders_count: 0, paid_orders_count: 0, spent: {} });
    expect(await customer(test, second)).toMatchObject({ orders_count: 1, paid_orders_count: 1, spent: { USD: '40.00' } });
    expect(await customerRows(biz.id)).toHaveLength(2);
  });
});

function ids(page: { data: Array<{ id: string }> }): string[] {
  return page.data.map((item) => item.id);
}

describe('counts and spend', () => {
  it('orders_count counts every order, paid_orders_count the paid ones', async () => {
    const { test } = await accountInBothModes(t);
    const email = 'lu@shop.example';
    const sessions = [];
    for (let i = 0; i < 5; i++) sessions.push(await session(test, { customer_email: email }));
    const id = sessions[0].customer_id;
    expect(await customer(test, id)).toMatchObject({ orders_count: 5, paid_orders_count: 0, spent: {} });
    for (const s of sessions) await start(test, s.id);
    expect(await customer(test, id)).toMatchObject({ orders_count: 5, paid_orders_count: 0, spent: {} });

    await simulate(test, sessions[0].id, 'paid');
    await simulate(test, sessions[1].id, 'expired');
    await simulate(test, sessions[2].id, 'failed');
    await simulate(test, sessions[3].id, 'underpaid');
    expect(await customer(test, id)).toMatchObject({ orders_count: 5, paid_orders_count: 1 });
    // An accepted held payment makes its order paid.
    await simulate(test, sessions[3].id, 'accepted');
    expect(await customer(test, id)).toMatchObject({ orders_count: 5, paid_orders_count: 2, spent: { USD: '80.00' } });
  });

  it('spent is {} until a payment is paid, then sums paid payments per currency, part-payments on held orders and both payments of an order paid twice', async () => {
    const { test } = await accountInBothModes(t);
    const email = 'mo@shop.example';
    const usd = await session(test, { customer_email: email });
    const id = usd.customer_id;
    const eurPaid = await session(test, { amount: '25.00', currency: 'EUR', customer_email: email });
    const eurHeld = await session(test, { amount: '40.00', currency: 'EUR', customer_email: email });
    const storeOrder = { id: 'paid-twice', items: [{ name: 'Mug', quantity: 1, unit_amount: '15.00', amount: '15.00' }] };
    const twiceA = await session(test, { amount: '15.00', customer_email: email, order: storeOrder });
    const open = await session(test, { amount: '10.00', customer_email: email });
    for (const s of [usd, eurPaid, eurHeld, twiceA, open]) await start(test, s.id);
    expect(await customer(test, id)).toMatchObject({ orders_count: 5, paid_orders_count: 0, spent: {} });

    await simulate(test, usd.id, 'paid');
    expect((await customer(test, id)).spent).toEqual({ USD: '40.00' });

    await simulate(test, eurPaid.id, 'paid');
    expect((await customer(test, id)).spent).toEqual({ EUR: '25.00', USD: '40.00' });

    await simulate(test, twiceA.id, 'paid');
    t.clock.advance(MINUTE);
    const twiceB = await session(test, { amount: '15.00', customer_email: email, order: storeOrder });
    expect(twiceB.order_id).toBe(twiceA.order_id);
    await start(test, twiceB.id);
    await simulate(test, twiceB.id, 'paid');
    expect((await order(test, twiceA.order_id)).payment_ids).toEqual([twiceA.id, twiceB.id]);
    // One order, two paid payments: both count.
    expect(await customer(test, id)).toMatchObject({ orders_count: 5, paid_orders_count: 3, spent: { EUR: '25.00', USD: '70.00' } });

    // A part-payment: 21.60 USD of the 43.20 USD the 40.00 EUR order was worth at start leaves it
    // held; what arrived, 20.00 EUR in the order currency, counts as spent.
    const held = await simulate(test, eurHeld.id, 'underpaid', { amount_received: '21.60' });
    expect(held).toMatchObject({ status: 'held', value_coin: '21.600000' });
    expect((await t.db.selectFrom('payments').select('received_minor').where('id', '=', eurHeld.id).executeTakeFirstOrThrow()).received_minor)
      .toBe(2000);
    expect(await order(test, eurHeld.order_id)).toMatchObject({ status: 'held', amount_paid: '20.00', total: '40.00', currency: 'EUR' });
    expect(await customer(test, id)).toMatchObject({
      orders_count: 5, paid_orders_count: 3, spent: { EUR: '45.00', USD: '70.00' },
    });

    // Accepting it as paid counts its full amount instead.
    await simulate(test, eurHeld.id, 'accepted');
    expect(await customer(test, id)).toMatchObject({ orders_count: 5, paid_orders_count: 4, spent: { EUR: '65.00', USD: '70.00' } });
  });
});

describe('store_accounts', () => {
  it('has one entry per store from order.store and order.customer_id, the latest customer id winning', async () => {
    const { test } = await accountInBothModes(t);
    const email = 'ned@shop.example';
    const woo = { platform: 'woocommerce', id: 'shop-1', name: 'Shop One', url: 'https://one.example' };
    const shopify = { platform: 'shopify', id: 'shop-2', name: 'Shop Two', url: 'https://two.example' };
    const items = [{ name: 'Tea', quantity: 1, amount: '40.00' }];

    const plain = await session(test, { customer_email: email });
    expect((await customer(test, plain.customer_id)).store_accounts).toEqual([]);
    // A store order without the store's customer id adds nothing.
    await session(test, { customer_email: email, order: { id: 'sa-0', items, store: woo } });
    expect((await customer(test, plain.customer_id)).store_accounts).toEqual([]);

    await session(test, { customer_email: email, order: { id: 'sa-1', items, store: woo, customer_id: 'wc-1' } });
    expect((await customer(test, plain.customer_id)).store_accounts).toEqual([
      { platform: 'woocommerce', store_id: 'shop-1', store_name: 'Shop One', customer_id: 'wc-1' },
    ]);

    await session(test, { customer_email: email, order: { id: 'sa-2', items, store: shopify, customer_id: 'sh-9' } });
    t.clock.advance(MINUTE);
    await session(test, { customer_email: email, order: { id: 'sa-3', items, store: woo, customer_id: 'wc-2' } });
    const accounts = (await customer(test, plain.customer_id)).store_accounts;
    expect(accounts).toHaveLength(2);
    expect(accounts).toEqual(expect.arrayContaining([
      { platform: 'woocommerce', store_id: 'shop-1', store_name: 'Shop One', customer_id: 'wc-2' },
      { platform: 'shopify', store_id: 'shop-2', store_name: 'Shop Two', customer_id: 'sh-9' },
    ]));

    // Orders without a store id leave the entries as they are.
    await session(test, { customer_email: email, order: { id: 'sa-4', items, store: woo } });
    expect((await customer(test, plain.customer_id)).store_accounts).toEqual(accounts);
  });
});

describe('last_order_at', () => {
  it('is the creation time of the latest order', async () => {
    const { test } = await accountInBothModes(t);
    const email = 'ola@shop.example';
    const firstAt = nowSeconds(t);
    const first = await session(test, { customer_email: email });
    expect((await customer(test, first.customer_id)).last_order_at).toBe(firstAt);
    t.clock.advance(HOUR);
    const secondAt = nowSeconds(t);
    await session(test, { customer_email: email });
    expect((await customer(test, first.customer_id)).last_order_at).toBe(secondAt);
    // A payment link is an order too.
    t.clock.advance(HOUR);
    const linkAt = nowSeconds(t);
    await call(t, test, 'POST', '/v1/payment_links', { amount: '5.00', currency: 'USD', description: 'Tea', customer_email: email });
    expect((await customer(test, first.customer_id)).last_order_at).toBe(linkAt);
  });

  it('stays the creation time of the latest order when a session starts or an order is paid later', async () => {
    const { test } = await accountInBothModes(t);
    const createdAt = nowSeconds(t);
    const made = await session(test, { customer_email: 'pia@shop.example' });
    t.clock.advance(HOUR);
    await start(test, made.id);
    t.clock.advance(HOUR);
    await simulate(test, made.id, 'paid');
    expect((await customer(test, made.customer_id)).last_order_at).toBe(createdAt);
  });

  it('for a session without an email, is its order creation time, not the start time', async () => {
    const { test } = await accountInBothModes(t);
    const createdAt = nowSeconds(t);
    const made = await session(test);
    t.clock.advance(HOUR);
    const startedAt = nowSeconds(t);
    const started = await start(test, made.id, { email: 'quin@shop.example' });
    expect(await customer(test, started.customer_id)).toMatchObject({ created: startedAt, last_order_at: createdAt });
  });

  it('a second session on the same store order does not make a newer order', async () => {
    const { test } = await accountInBothModes(t);
    const storeOrder = { id: 'lo-1', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }] };
    const createdAt = nowSeconds(t);
    const first = await session(test, { customer_email: 'ray@shop.example', order: storeOrder });
    t.clock.advance(HOUR);
    const second = await session(test, { customer_email: 'ray@shop.example', order: storeOrder });
    expect(second.order_id).toBe(first.order_id);
    expect((await order(test, first.order_id)).created).toBe(createdAt);
    expect(await customer(test, first.customer_id)).toMatchObject({ orders_count: 1, last_order_at: createdAt });
  });
});

describe('what the API shows', () => {
  it('has exactly the customer fields of spec 2.3 and no private note; webhooks carry no counts, spend or note', async () => {
    const { test } = await accountInBothModes(t);
    const made = await session(test, { customer_email: 'sol@shop.example', customer: { name: 'Sol' } });
    const read = await customer(test, made.customer_id);
    expect(Object.keys(read).sort()).toEqual(CUSTOMER_KEYS);
    expect(read).not.toHaveProperty('note');
    const [listed] = await byEmail(test, 'sol@shop.example');
    expect(Object.keys(listed).sort()).toEqual(CUSTOMER_KEYS);
    await start(test, made.id);
    const [started] = await eventsOf(t, made.id);
    const sent = started?.data.customer ?? {};
    for (const key of ['note', 'orders_count', 'ordersCount', 'paid_orders_count', 'paidOrdersCount', 'spent']) expect(sent).not.toHaveProperty(key);
  });

  it('lists by email in any letter case: one full customer object, the same as retrieving it', async () => {
    const { test } = await accountInBothModes(t);
    await session(test, { customer_email: 'tam@shop.example' });
    const made = await session(test, { customer_email: 'Uma.Long@Shop.Example', customer: { name: 'Uma' } });
    await session(test, { customer_email: 'vic@shop.example' });
    const single = await customer(test, made.customer_id);
    for (const email of ['uma.long@shop.example', 'UMA.LONG@SHOP.EXAMPLE', 'Uma.Long@shop.example', ' uma.long@shop.example ']) {
      expect(await byEmail(test, email), email).toEqual([single]);
    }
    expect(await byEmail(test, 'uma@shop.example')).toEqual([]);
  });
});
