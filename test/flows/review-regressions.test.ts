import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { eraseCustomer } from '../../src/resources/customers/erase.ts';
import { asOperatorOn } from '../support/operator.ts';
import { account, expectError } from '../support/api.ts';
import { LIVE_WALLET, startTestApp, TEST_PROCESSOR_SECRET, type ApiResponse, type TestApp } from '../support/harness.ts';
import { call, eventsOf, firstAttemptJobsFor, typesOf, type StoredEvent } from './support.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

/** Erases as the operator does (`customers erase`): in the customer's own business and mode. */
const erase = async (id: string) => eraseCustomer.run(await asOperatorOn(t.context, 'customer', id), { id });

// Regressions for defects a code review found (and that are fixed): each test reproduces the
// defect as it was reported (races actually racing, repeated with fresh rows) and checks what
// the database holds afterwards, not only the status codes.

let t: TestApp;
let key: string;
let live: string;
let businessId: string;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  const biz = await t.business();
  businessId = biz.id;
  key = (await biz.key({ mode: 'test' })).secret;
  live = (await biz.key({ mode: 'live' })).secret;
});
afterAll(async () => t?.close());

/** A suffix that keeps store order ids and emails of one run apart. */
const unique = () => randomBytes(4).toString('hex');

const session = (body: Record<string, unknown> = {}, as = key) =>
  call(t, as, 'POST', '/v1/checkout_sessions', { amount: '40.00', currency: 'USD', ...body });
const start = (id: string, body: Record<string, unknown> = {}, as = key) => call(t, as, 'POST', `/v1/checkout_sessions/${id}/start`, body, [200]);
const simulate = (id: string, outcome: string, as = key) => call(t, as, 'POST', `/v1/payments/${id}/simulate`, { outcome }, [200]);
const get = (path: string, as = key) => call(t, as, 'GET', path, undefined, [200]);

const paymentRow = (id: string) => t.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const orderRow = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Every string anywhere in `value`. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

/** Sessions of this app's database waiting for a lock (row or transaction), other than the asking one. */
async function lockWaiters(): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.execute(t.db);
  return rows[0]?.n ?? 0;
}

/**
 * Runs `requests` into each other: a transaction of the test holds the row `lock` takes while the
 * requests are sent, each one only once the one before it waits on a lock, then lets them all go
 * at once. They run concurrently, and the first sent is the first to get the row: the
 * interleaving a free race produces only sometimes, every time.
 */
async function collide<T>(lock: (trx: Db) => Promise<unknown>, requests: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const sent: Array<Promise<T>> = [];
  await t.db.transaction().execute(async (trx) => {
    await lock(trx);
    const before = await lockWaiters();
    for (const [index, request] of requests.entries()) {
      const pending = request();
      pending.catch(() => undefined);
      sent.push(pending);
      await vi.waitFor(async () => expect(await lockWaiters(), 'the request waits on the held row').toBeGreaterThanOrEqual(before + index + 1),
        { timeout: 10_000, interval: 2 });
    }
  });
  return Promise.all(sent);
}

/** A store order of one line costing `total`. */
const storeOrder = (id: string, total = '40.00', name = 'Kettle') => ({ id, items: [{ name, quantity: 1, amount: total }], total });

// ---- 1. the order's status is derived under the order's lock ----

describe('two payments of one order moving at once', () => {
  it('paid on one session and underpaid on the other at the same time: the stored order status is the one the API shows', async () => {
    for (let round = 0; round < 15; round++) {
      const email = `race-${round}-${unique()}@buyer.example`;
      const order = storeOrder(`race-order-${unique()}`);
      const a = await session({ order, customer_email: email });
      const b = await session({ order, customer_email: email });
      expect(b.order_id, 'the second session attaches to the same store order').toBe(a.order_id);
      await start(a.id, { email });
      await start(b.id, { email });

      // Both moves run at once; the order row is held until both are under way, and the paid
      // one goes first in every other round (the interleaving that left the order held).
      const moves = [() => simulate(a.id, 'paid'), () => simulate(b.id, 'underpaid')];
      const answers = await collide((trx) => trx.selectFrom('orders').select('id').where('id', '=', a.order_id).forUpdate().execute(),
        round % 2 === 0 ? moves : [...moves].reverse());
      const [paid, held] = round % 2 === 0 ? answers : [...answers].reverse();
      expect(paid.status).toBe('paid');
      expect(held.status).toBe('held');

      const shown = await get(`/v1/orders/${a.order_id}`);
      expect(shown.status).toBe('paid');
      const stored = await orderRow(a.order_id);
      expect(stored.status, `round ${round}: orders.status column`).toBe(shown.status);
      const customer = await get(`/v1/customers/${a.customer_id}`);
      expect(customer.paid_orders_count, `round ${round}`).toBe(1);
    }
  });
});

// ---- 2. refunds checked under the order's lock ----

describe('concurrent refunds', () => {
  it('eight refunds of the whole 10.00 at once: exactly one is recorded', async () => {
    for (let round = 0; round < 3; round++) {
      const { id, order_id: orderId } = await session({ amount: '10.00' });
      await start(id, { email: `refund-${unique()}@buyer.example` });
      await simulate(id, 'paid');
      expect((await get(`/v1/orders/${orderId}`)).amount_paid).toBe('10.00');

      const answers = await Promise.all(Array.from({ length: 8 }, () =>
        t.request('POST', `/v1/orders/${orderId}/events`, { key, body: { type: 'refunded', amount: '10.00' } })));
      const created = answers.filter((answer) => answer.status === 201);
      expect(created, `round ${round}: ${answers.map((answer) => answer.status).join(', ')}`).toHaveLength(1);
      for (const answer of answers.filter((item) => item.status !== 201)) expectError(answer, 400, 'invalid_amount', 'amount');

      const refunds = await t.db.selectFrom('order_timeline').select('amount_minor')
        .where('order_id', '=', orderId).where('type', '=', 'refunded').execute();
      expect(refunds.reduce((sum, row) => sum + Number(row.amount_minor ?? 0), 0), `round ${round}: refunded in minor units`).toBe(1000);
      expect(refunds).toHaveLength(1);
      const timeline = (await get(`/v1/orders/${orderId}`)).timeline.filter((entry: { type: string }) => entry.type === 'refunded');
      expect(timeline.map((entry: { amount: string }) => entry.amount)).toEqual(['10.00']);
    }
  });
});

// ---- 3. erasure scrubs free text word-wise and reaches order items ----

describe('erasure', () => {
  it('a buyer named "paid": types, states and the rest of every event survive; the name leaves the customer fields', async () => {
    const email = `paid-name-${unique()}@buyer.example`;
    const { id, order_id: orderId } = await session({ description: 'Prepaid tea card', order: storeOrder(`paid-name-${unique()}`) });
    const started = await start(id, { email, name: 'paid' });
    await simulate(id, 'paid');
    await simulate(id, 'settled');
    const before = await eventsOf(t, id);
    expect(before.map((event) => event.type)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    expect(before[0]?.data.customer.name).toBe('paid');

    await erase(started.customer_id);

    const after = await eventsOf(t, id);
    expect(after.map((event) => event.type)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    expect(after.map((event) => event.id)).toEqual(before.map((event) => event.id));
    const [startedEvent, paidEvent, updatedEvent] = after as [StoredEvent, StoredEvent, StoredEvent];
    expect(startedEvent.data.payment).toMatchObject({ id, status: 'open', amount: '40.00', currency: 'USD', description: 'Prepaid tea card' });
    expect(startedEvent.data.order).toMatchObject({ id: orderId, status: 'open' });
    for (const event of [paidEvent, updatedEvent]) {
      expect(event.data.payment, event.type).toMatchObject({
        id, status: 'paid', amount: '40.00', currency: 'USD', valueCoin: '40.000000', coin: 'polygon_usdc', description: 'Prepaid tea card',
      });
      expect(event.data.payment.paidAt, event.type).toEqual(expect.any(Number));
      expect(event.data.order, event.type).toMatchObject({ id: orderId, status: 'paid', amountPaid: '40.00', total: '40.00', summary: 'Kettle' });
      expect(event.data.order.items, event.type).toEqual([expect.objectContaining({ name: 'Kettle', amount: '40.00' })]);
    }
    expect(updatedEvent.data.payment.merchantReceived).toBe('39.600000');
    for (const event of after) {
      expect(event.data.customer, event.type).toMatchObject({ id: started.customer_id, name: null, email: null, erased: true });
      expect(event.data.order.customer, event.type).toEqual({ id: started.customer_id, email: null, name: null, erased: true });
      expect(event.data.payment.customerName, event.type).toBeNull();
      expect(event.data.payment.customerEmail, event.type).toBeNull();
      const customerFields = [...stringsIn(event.data.customer), ...stringsIn(event.data.order.customer), event.data.payment.customerName];
      expect(customerFields, event.type).not.toContain('paid');
    }
    const customer = await t.db.selectFrom('customers').selectAll().where('id', '=', started.customer_id).executeTakeFirstOrThrow();
    expect(customer).toMatchObject({ name: null, email: null, erased: true });
    expect(await get(`/v1/orders/${orderId}`)).toMatchObject({ status: 'paid', customer_name: null, amount_paid: '40.00' });
    expect((await paymentRow(id)).status).toBe('paid');
  });

  it('a payment link whose description holds the email: the order item, summary and description keep their words with [erased]', async () => {
    const email = 'jane.x@example.com';
    const link = await call(t, key, 'POST', '/v1/payment_links', {
      amount: '25.00', currency: 'USD', description: `Invoice for ${email}`, customer_email: email,
    });
    await start(link.id);
    const before = await get(`/v1/orders/${link.order_id}`);
    expect(before.items[0].name).toBe(`Invoice for ${email}`);
    expect(before.summary).toBe(`Invoice for ${email}`);
    const customers = await get(`/v1/customers?email=${encodeURIComponent(email)}`);
    expect(customers.data).toHaveLength(1);

    await erase(customers.data[0].id);

    const order = await get(`/v1/orders/${link.order_id}`);
    for (const [what, text] of [
      ['items[0].name', order.items[0].name], ['summary', order.summary],
      ['link description', (await get(`/v1/payment_links/${link.id}`)).description],
      ['payment description', (await get(`/v1/payments/${link.id}`)).description],
      ['stored payment description', (await paymentRow(link.id)).description],
      ['stored item name', (await orderRow(link.order_id)).items[0]?.name],
    ] as const) {
      expect(text, what).toBe('Invoice for [erased]');
      expect(String(text).toLowerCase(), what).not.toContain(email);
    }
    const [event] = await eventsOf(t, link.id);
    expect(event?.type).toBe('payment.started');
    expect(event?.data.payment.description).toBe('Invoice for [erased]');
    expect(event?.data.order.summary).toBe('Invoice for [erased]');
    expect(event?.data.order.items[0]).toMatchObject({ name: 'Invoice for [erased]', amount: '25.00' });
    expect(JSON.stringify(event).toLowerCase()).not.toContain(email);
  });

  it('metadata: a value that is exactly the email becomes null; one that contains it keeps the rest with [erased]', async () => {
    const email = `mia.meta-${unique()}@example.com`;
    const { id, customer_id: customerId } = await session({
      customer_email: email,
      metadata: { contact: email, note: `Call ${email} before shipping`, cart: 'c-9' },
    });
    await start(id);
    const expected = { contact: null, note: 'Call [erased] before shipping', cart: 'c-9' };

    await erase(customerId);

    expect((await get(`/v1/payments/${id}`)).metadata).toEqual(expected);
    expect((await paymentRow(id)).metadata).toEqual(expected);
    const [event] = await eventsOf(t, id);
    expect(event?.data.payment.metadata).toEqual(expected);
  });
});

// ---- 4. lone surrogates are not valid JSON text ----

describe('a lone surrogate in a body', () => {
  const LONE = String.raw`\ud800`;
  const rawPost = (path: string, raw: string): Promise<ApiResponse> =>
    t.request('POST', path, { key, rawBody: raw, headers: { 'content-type': 'application/json' } });
  const countOf = async (table: 'payments' | 'orders') =>
    Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('business_id', '=', businessId).executeTakeFirstOrThrow()).n);

  it.each(['/v1/checkout_sessions', '/v1/payment_links'])('POST %s: 400 invalid_json, nothing stored', async (path) => {
    const raw = `{"amount":"10.00","currency":"USD","description":"${LONE}"}`;
    expect(raw).toContain('\\ud800');
    const [payments, orders] = [await countOf('payments'), await countOf('orders')];
    expectError(await rawPost(path, raw), 400, 'invalid_json');
    expect(await countOf('payments')).toBe(payments);
    expect(await countOf('orders')).toBe(orders);
  });

  it('a start whose shipping_address name is a lone surrogate: 400 invalid_json, the session stays unstarted', async () => {
    const { id, order_id: orderId } = await session({ amount: '10.00' });
    const email = `surrogate-${unique()}@buyer.example`;
    const raw = `{"email":"${email}","shipping_address":{"name":"${LONE}","line1":"1 Main St","city":"Portland","region":"OR","postal_code":"97201","country":"US"}}`;
    expectError(await rawPost(`/v1/checkout_sessions/${id}/start`, raw), 400, 'invalid_json');
    expect(await paymentRow(id)).toMatchObject({ started_at: null, customer_email: null, usd_value_minor: null });
    expect(await orderRow(orderId)).toMatchObject({ customer_id: null, ship_to: null });
    expect(await typesOf(t, id)).toEqual([]);
    expect(await t.db.selectFrom('customers').select('id').where('email', '=', email).execute()).toHaveLength(0);
  });
});

// ---- 5. start locks, then reads ----

describe('two starts of one session at once', () => {
  it('with different emails: the payment, the order\'s customer and the last payment.started agree', async () => {
    for (let round = 0; round < 20; round++) {
      const a = `a-${round}-${unique()}@race.example`;
      const b = `b-${round}-${unique()}@race.example`;
      const { id, order_id: orderId } = await session({ customer_email: a });
      // Both starts run at once; the payment row is held until both wait on it, and b's goes
      // first in every other round (the interleaving in which a's start read the order as it
      // was before b's start moved it).
      const starts = [() => start(id, { email: b }), () => start(id, { email: a })];
      await collide((trx) => trx.selectFrom('payments').select('id').where('id', '=', id).forUpdate().execute(),
        round % 2 === 0 ? starts : [...starts].reverse());

      const payment = await paymentRow(id);
      expect([a, b]).toContain(payment.customer_email);
      const owner = await t.db.selectFrom('orders as o').innerJoin('customers as c', 'c.id', 'o.customer_id')
        .select(['c.email']).where('o.id', '=', orderId).executeTakeFirstOrThrow();
      expect(owner.email, `round ${round}: the order's customer`).toBe(payment.customer_email);
      const startedEvents = (await eventsOf(t, id)).filter((event) => event.type === 'payment.started');
      expect(startedEvents.length).toBeGreaterThanOrEqual(1);
      const last = startedEvents.at(-1);
      expect(last?.data.customer.email, `round ${round}: the last payment.started`).toBe(payment.customer_email);
      expect(last?.data.payment.customerEmail).toBe(payment.customer_email);
      expect(last?.data.order.customer.email).toBe(payment.customer_email);
    }
  });
});

describe('starts that move only the payment (read without locks, written for the row version read)', () => {
  it('three starts of one session at once by its own buyer: one payment.started, one delivery and one job for the endpoint', async () => {
    const own = await account(t);
    await call(t, own.key, 'POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.com/race' });
    const email = `same-${unique()}@race.example`;
    const { id } = await session({ customer_email: email }, own.key);
    const answers = await collide((trx) => trx.selectFrom('payments').select('id').where('id', '=', id).forUpdate().execute(),
      Array.from({ length: 3 }, () => () => start(id, {}, own.key)));
    for (const answer of answers) expect(answer).toMatchObject({ id, status: 'open', customer_email: email });
    const events = await eventsOf(t, id);
    expect(events.map((event) => event.type)).toEqual(['payment.started']);
    const deliveries = await t.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', events[0]?.id ?? '').execute();
    expect(deliveries).toHaveLength(1);
    expect(await firstAttemptJobsFor(t, events[0]?.id ?? '')).toBe(1);
    expect(await paymentRow(id)).toMatchObject({ customer_email: email, started_at: expect.any(Date) });
  });

  it('a start and a failure at once: the start applies first, or it finds the payment failed and is refused; nothing is half written', async () => {
    for (const failureFirst of [false, true]) {
      const email = `failed-${unique()}@race.example`;
      const { id } = await session({ customer_email: email });
      const requests = [
        () => t.request('POST', `/v1/checkout_sessions/${id}/start`, { key, body: {} }),
        () => t.request('POST', `/v1/payments/${id}/simulate`, { key, body: { outcome: 'failed' } }),
      ];
      const answers: ApiResponse[] = await collide((trx) => trx.selectFrom('payments').select('id').where('id', '=', id).forUpdate().execute(),
        failureFirst ? [...requests].reverse() : requests);
      const [startAnswer, failedAnswer] = failureFirst ? [answers[1], answers[0]] : answers;
      expect(failedAnswer?.status, JSON.stringify(failedAnswer?.body)).toBe(200);
      if (failureFirst) {
        expectError(startAnswer as ApiResponse, 409, 'invalid_state');
        expect(await typesOf(t, id)).toEqual(['payment.failed']);
        expect(await t.db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id').select('d.id')
          .where('e.payment_id', '=', id).where('e.type', '=', 'payment.started').execute()).toEqual([]);
      } else {
        expect(startAnswer?.status, JSON.stringify(startAnswer?.body)).toBe(200);
        expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.failed']);
      }
      expect(await paymentRow(id)).toMatchObject({ status: 'failed' });
    }
  });
});

describe('first starts of one Live session at once', () => {
  it('every answer shows the deposit address the payment keeps (a drawn address never replaces one already given)', async () => {
    for (let round = 0; round < 8; round++) {
      const { id } = await session({}, live);
      await reportProcessorStatus(t);
      const answers = await Promise.all([0, 1, 2, 3].map((i) =>
        t.request('POST', `/v1/checkout_sessions/${id}/start`, { key: live, body: { email: `live-${i}-${unique()}@race.example` } })));
      const stored = (await paymentRow(id)).deposit_address;
      expect(stored).toEqual(expect.any(String));
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect((answer.body as { deposit_address: string }).deposit_address, `round ${round}`).toBe(stored);
      }
      for (const event of await eventsOf(t, id)) expect(event.data.payment.depositAddress).toBe(stored);
    }
  });
});

// ---- 6. the money facts are locked at the first start ----

describe('a repeated start', () => {
  it('keeps fee_bps and the USD value; the same buyer with nothing new sends nothing, another buyer sends payment.started', async () => {
    const own = await account(t);
    const email = `repeat-${unique()}@buyer.example`;
    const { id } = await session({ amount: '100.00', currency: 'EUR', customer_email: email }, own.key);
    await start(id, { email }, own.key);
    const first = await paymentRow(id);
    expect(first.fee_bps).not.toBe(900);
    expect(first.usd_value_minor).toEqual(expect.any(Number));
    expect(await typesOf(t, id)).toEqual(['payment.started']);

    await own.biz.update({ feeBps: 900 });
    const again = await t.request('POST', `/v1/checkout_sessions/${id}/start`, { key: own.key, body: { email } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await typesOf(t, id)).toEqual(['payment.started']);
    expect(await paymentRow(id)).toMatchObject({ fee_bps: first.fee_bps, usd_value_minor: first.usd_value_minor, customer_email: email });
    expect((await get(`/v1/payments/${id}`, own.key)).fee_bps).toBe(first.fee_bps);

    const rate = await t.db.selectFrom('fx_rates').select('usd_per_unit').where('currency', '=', 'EUR').executeTakeFirstOrThrow();
    await t.db.updateTable('fx_rates').set({ usd_per_unit: '1.5' }).where('currency', '=', 'EUR').execute();
    try {
      const other = `other-${unique()}@buyer.example`;
      await start(id, { email: other }, own.key);
      expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.started']);
      expect(await paymentRow(id)).toMatchObject({ fee_bps: first.fee_bps, usd_value_minor: first.usd_value_minor, customer_email: other });
      const [, second] = await eventsOf(t, id);
      expect(second?.data.payment).toMatchObject({ feeBps: first.fee_bps, customerEmail: other });
    } finally {
      await t.db.updateTable('fx_rates').set({ usd_per_unit: rate.usd_per_unit }).where('currency', '=', 'EUR').execute();
    }
  });
});

// ---- 7. a session's amount is its order's total ----

describe('the amount of a session for a store order', () => {
  it('an amount other than the order total is refused; without one the session takes the total', async () => {
    const order = storeOrder(`sofa-${unique()}`, '900.00', 'Sofa');
    const wrong = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '1.00', currency: 'USD', order } });
    expectError(wrong, 400, 'invalid_amount', 'amount');
    expect(await t.db.selectFrom('orders').select('id').where('business_id', '=', businessId)
      .where('store_order_key', '=', JSON.stringify([null, null, order.id])).execute()).toHaveLength(0);

    const made = await session({ amount: undefined, order });
    expect(made.amount).toBe('900.00');
    expect((await paymentRow(made.id)).amount_minor).toBe(90000);
    expect((await get(`/v1/orders/${made.order_id}`)).total).toBe('900.00');
  });
});

// ---- 8. a store order keeps its currency ----

describe('a further session for a store order in another currency', () => {
  it('is refused with invalid_currency; the order keeps its currency and what was paid', async () => {
    const order = storeOrder(`teapot-${unique()}`, '30.00', 'Teapot');
    const first = await session({ amount: '30.00', currency: 'EUR', order });
    await start(first.id, { email: `eur-${unique()}@buyer.example` });
    await simulate(first.id, 'paid');
    const before = await get(`/v1/orders/${first.order_id}`);
    expect(before).toMatchObject({ currency: 'EUR', amount_paid: '30.00', status: 'paid' });

    const second = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '30.00', currency: 'USD', order } });
    expectError(second, 400, 'invalid_currency', 'currency');

    const after = await get(`/v1/orders/${first.order_id}`);
    expect(after).toMatchObject({ currency: 'EUR', amount_paid: '30.00', status: 'paid', payment_ids: [first.id] });
    expect(await orderRow(first.order_id)).toMatchObject({ currency: 'EUR' });
    expect(await t.db.selectFrom('payments').select('id').where('order_id', '=', first.order_id).execute()).toHaveLength(1);
  });
});

// ---- 9. Live processor notices ----

describe('Live notices', () => {
  // Signing as test/processor/notices.test.ts does: HMAC-SHA256 of `${t}.${raw}` with the processor secret.
  const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);
  const sign = (raw: string, timestamp = nowSeconds()) =>
    `t=${timestamp},v1=${createHmac('sha256', TEST_PROCESSOR_SECRET).update(`${timestamp}.${raw}`, 'utf8').digest('hex')}`;

  async function send(notice: Record<string, unknown>): Promise<ApiResponse> {
    const raw = JSON.stringify(notice);
    const response = await fetch(`${t.url}/processor/notices`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'processor-signature': sign(raw) }, body: raw,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  const txid = () => `0x${randomBytes(32).toString('hex')}`;
  const deposit = (address: string, fields: Record<string, unknown> = {}) => ({
    id: `ntc_${randomBytes(8).toString('hex')}`, type: 'deposit.confirmed', deposit_address: address,
    coin: 'polygon_usdc', network: 'polygon', amount: '40.000000', txid: txid(), forwarded_to: LIVE_WALLET, ...fields,
  });

  async function started(): Promise<{ id: string; address: string }> {
    const made = await session({}, live);
    await reportProcessorStatus(t);
    const begun = await start(made.id, { email: 'ann@buyer.example' }, live);
    expect(begun.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    return { id: made.id, address: begun.deposit_address };
  }

  it('a deposit address sent in lowercase is found and the deposit applied', async () => {
    let found = await started();
    // A checksummed address with no letter in it would be its own lowercase: take another.
    while (found.address === found.address.toLowerCase()) found = await started();
    const { id, address } = found;
    const notice = deposit(address.toLowerCase());
    const answer = await send(notice);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ received: true, outcome: 'applied', payment_id: id });
    expect(await paymentRow(id)).toMatchObject({ status: 'paid', txid_in: notice.txid, deposit_address: address });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
  });

  it('coin "constructor": 200, the payment held and acceptable (not a dollar coin)', async () => {
    const { id, address } = await started();
    const answer = await send(deposit(address, { coin: 'constructor' }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ outcome: 'applied', payment_id: id });
    const read = await get(`/v1/payments/${id}`, live);
    expect(read).toMatchObject({ status: 'held', hold_acceptable: true, coin: 'constructor' });
    expect(read.hold_reason).toMatch(/not a dollar coin/i);
    expect(await paymentRow(id)).toMatchObject({ status: 'held', hold_acceptable: true, provider_name: 'constructor' });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held']);
  });

  it('two deposits with one txid for two payments at once: no 500, one paid with it, the other held and not acceptable', async () => {
    for (let round = 0; round < 10; round++) {
      const a = await started();
      const b = await started();
      const shared = txid();
      const answers = await Promise.all([send(deposit(a.address, { txid: shared })), send(deposit(b.address, { txid: shared }))]);
      for (const answer of answers) {
        expect(answer.status, `round ${round}: ${JSON.stringify(answer.body)}`).toBe(200);
        expect(answer.body.outcome).toBe('applied');
      }
      const rows = [await paymentRow(a.id), await paymentRow(b.id)];
      const paid = rows.filter((row) => row.status === 'paid');
      const held = rows.filter((row) => row.status === 'held');
      expect(paid, `round ${round}`).toHaveLength(1);
      expect(held, `round ${round}`).toHaveLength(1);
      expect(paid[0]?.txid_in).toBe(shared);
      expect(held[0]).toMatchObject({ hold_acceptable: false, txid_in: null });
      expect(held[0]?.hold_reason).toContain(shared);
      expect(await t.db.selectFrom('payments').select('id').where('txid_in', '=', shared).execute()).toHaveLength(1);
    }
  });
});

// ---- 10. a payment settles once ----

describe('settlement', () => {
  it('simulate settled twice: the second answers 409 invalid_state and only one payment.updated exists', async () => {
    const { id } = await session();
    await start(id, { email: `settle-${unique()}@buyer.example` });
    await simulate(id, 'paid');
    const settled = await simulate(id, 'settled');
    expect(settled.merchant_received).toBe('39.600000');
    const once = await paymentRow(id);
    expect(once.txid_out).toMatch(/^0x[0-9a-f]{64}$/);

    const again = await t.request('POST', `/v1/payments/${id}/simulate`, { key, body: { outcome: 'settled' } });
    expectError(again, 409, 'invalid_state');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    expect(await paymentRow(id)).toMatchObject({ status: 'paid', txid_out: once.txid_out, merchant_received: once.merchant_received });
  });
});
