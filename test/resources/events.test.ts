import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY, SECOND } from '../../src/core/clock.ts';
import { PaymentEvent } from '../../src/events/payloads.ts';
import { eraseCustomer } from '../../src/resources/customers/erase.ts';
import { eventBodyForCaller } from '../../src/resources/events/for-caller.ts';
import { asOperatorOn } from '../support/operator.ts';
import { expectError, ids } from '../support/api.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';
import { connectAgent } from '../support/agents.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { webhookBench } from '../webhooks/support.ts';

// GET /v1/events and GET /v1/events/:id (issue 24): what happened since, each event exactly as
// a real receiver got it, filtered and paged, of the caller's business and mode only, the last
// 30 days, an erased customer's details erased.

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const { merchant, startPayment, at } = webhookBench(() => t, () => receiver);
const get = (key: string, path: string) => t.request('GET', path, { key });

/** A started Test payment moved to paid: payment.started, payment.paid. */
async function paidPayment(key: string, email = 'buyer@example.com'): Promise<string> {
  const session = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '12.00', currency: 'USD', customer_email: email, customer: { name: 'Ada Lovelace' } } });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  expect((await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key, body: {} })).status).toBe(200);
  await t.jump(SECOND);
  const paid = await t.request('POST', `/v1/payments/${session.body.id}/simulate`, { key, body: { outcome: 'paid' } });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return session.body.id;
}

describe('list and retrieve', () => {
  it('lists events newest first, each equal to the body the receiver got; retrieves one as delivered', async () => {
    const shop = await merchant('/events-equal');
    await t.jump(SECOND);
    const payment = await paidPayment(shop.key);
    await vi.waitFor(() => expect(at('/events-equal')).toHaveLength(2), { timeout: 10_000 });
    const listed = await get(shop.key, '/v1/events');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((event: { type: string }) => event.type)).toEqual(['payment.paid', 'payment.started']);
    expect(listed.body.has_more).toBe(false);
    for (const received of at('/events-equal')) {
      const body = JSON.parse(received.body);
      expect(listed.body.data).toContainEqual(body);
      const one = await get(shop.key, `/v1/events/${body.id}`);
      expect(one.status).toBe(200);
      // Exactly as delivered: the same JSON text.
      expect(JSON.stringify(one.body)).toBe(received.body);
      expect(PaymentEvent.safeParse(one.body).success).toBe(true);
    }
    expect(listed.body.data[0].data.payment).toMatchObject({ id: payment, status: 'paid' });
  });

  it('filters by type, payment_id and creation time; pages with limit and starting_after', async () => {
    const { key } = await merchant('/events-filter');
    const first = await paidPayment(key);
    await t.jump(10 * SECOND);
    const middle = Math.floor(t.clock.now().getTime() / 1000);
    const second = await paidPayment(key);
    const all = await get(key, '/v1/events?limit=100');
    expect(all.body.data).toHaveLength(4);
    const paid = await get(key, '/v1/events?type=payment.paid');
    expect(paid.body.data.map((event: { data: { payment: { id: string } } }) => event.data.payment.id)).toEqual([second, first]);
    const ofFirst = await get(key, `/v1/events?payment_id=${first}`);
    expect(ofFirst.body.data.map((event: { type: string }) => event.type)).toEqual(['payment.paid', 'payment.started']);
    const since = await get(key, `/v1/events?created_gte=${middle}`);
    expect(since.body.data.every((event: { data: { payment: { id: string } } }) => event.data.payment.id === second)).toBe(true);
    const before = await get(key, `/v1/events?created_lte=${middle - 1}`);
    expect(before.body.data.every((event: { data: { payment: { id: string } } }) => event.data.payment.id === first)).toBe(true);
    // Pages of one, following next_cursor, give the whole list in order.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof get>> = await get(key, `/v1/events?limit=1${cursor ? `&starting_after=${cursor}` : ''}`);
      paged.push(...ids(page));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(paged).toEqual(ids(all));
  });

  it('refuses a bad filter, limit or cursor with the list errors', async () => {
    const { key } = await merchant('/events-errors');
    expectError(await get(key, '/v1/events?type=payment.refunded'), 400, 'invalid_filter', 'type');
    expectError(await get(key, '/v1/events?limit=0'), 400, 'invalid_limit', 'limit');
    expectError(await get(key, '/v1/events?created_gte=yesterday'), 400, 'invalid_filter', 'created_gte');
    expectError(await get(key, '/v1/events?starting_after=evt_nothing'), 400, 'invalid_cursor', 'starting_after');
    expectError(await get(key, '/v1/events/evt_nothing'), 404, 'not_found');
  });
});

describe('what a caller\'s scopes let it read inside an event (issue 31)', () => {
  it('an agent with payments:read alone gets no customer or order details; with orders:read the order, with customers:read the customer (the MCP tools are these operations)', async () => {
    const shop = await merchant('/events-scopes');
    const payment = await paidPayment(shop.key, 'scoped@example.com');
    const business = (await t.db.selectFrom('payments').select('business_id').where('id', '=', payment).executeTakeFirstOrThrow()).business_id;
    const agent = async (scopes: Scope[]) => (await connectAgent(t, { id: business } as TestBusiness, { scopes })).token;
    const paid = async (token: string) => {
      const listed = await get(token, `/v1/events?type=payment.paid&payment_id=${payment}`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      const one = await get(token, `/v1/events/${listed.body.data[0].id}`);
      expect(one.body).toEqual(listed.body.data[0]);
      return one.body.data;
    };
    const alone = await paid(await agent(['payments:read']));
    expect(alone).toMatchObject({ payment: { id: payment }, order: null, customer: null });
    expect(JSON.stringify(alone)).not.toContain('Ada Lovelace');
    const withOrders = await paid(await agent(['payments:read', 'orders:read']));
    expect(withOrders.order).toMatchObject({ paymentId: payment });
    expect(withOrders.customer).toBeNull();
    const all = await paid(await agent(['payments:read', 'orders:read', 'customers:read']));
    expect(all.customer).toMatchObject({ email: 'scoped@example.com', name: 'Ada Lovelace' });
    // The order's own customer summary too: only with customers:read.
    const order = (token: string) => get(token, `/v1/orders/${withOrders.order.id}`);
    expect((await order(await agent(['orders:read']))).body).toMatchObject({ customer: null, customer_id: all.customer.id });
    expect((await order(await agent(['orders:read', 'customers:read']))).body.customer).toMatchObject({ email: 'scoped@example.com' });
  });

  it('a delivery\'s body in the delivery log follows the same rule (no credential holds webhooks:read without both today: kept so one cannot)', async () => {
    const body = JSON.stringify({ id: 'evt_1', type: 'payment.paid', data: { payment: { id: 'pay_1' }, order: { id: 'ord_1' }, customer: { id: 'cus_1', email: 'x@example.com' } } });
    const as = (scopes: Scope[]) => JSON.parse(eventBodyForCaller({ scopes: new Set(scopes) }, body)).data;
    expect(eventBodyForCaller({ scopes: new Set<Scope>(['webhooks:read', 'orders:read', 'customers:read']) }, body)).toBe(body);
    expect(as(['webhooks:read'])).toEqual({ payment: { id: 'pay_1' }, order: null, customer: null });
    expect(as(['webhooks:read', 'orders:read'])).toEqual({ payment: { id: 'pay_1' }, order: { id: 'ord_1' }, customer: null });
  });
});

describe('whose events', () => {
  it("shows neither another business's events nor the other mode's, by list or by id", async () => {
    const mine = await merchant('/events-mine');
    const theirs = await merchant('/events-theirs');
    const liveKey = (await mine.biz.key({ mode: 'live' })).secret;
    await paidPayment(theirs.key);
    const theirEvent = (await get(theirs.key, '/v1/events')).body.data[0].id as string;
    expect((await get(mine.key, '/v1/events?limit=100')).body.data.map((event: { id: string }) => event.id)).not.toContain(theirEvent);
    expectError(await get(mine.key, `/v1/events/${theirEvent}`), 404, 'not_found');
    await paidPayment(mine.key);
    const myEvent = (await get(mine.key, '/v1/events')).body.data[0].id as string;
    expect((await get(liveKey, '/v1/events')).body.data).toEqual([]);
    expectError(await get(liveKey, `/v1/events/${myEvent}`), 404, 'not_found');
  });

  it('keeps the last 30 days: older events are neither listed nor found', async () => {
    const { key } = await merchant('/events-window');
    const old = await paidPayment(key);
    const oldEvent = (await get(key, `/v1/events?payment_id=${old}`)).body.data[0].id as string;
    await t.jump(31 * DAY);
    const recent = await paidPayment(key);
    const listed = await get(key, '/v1/events?limit=100');
    expect(listed.body.data.every((event: { data: { payment: { id: string } } }) => event.data.payment.id === recent)).toBe(true);
    expectError(await get(key, `/v1/events/${oldEvent}`), 404, 'not_found');
  });
});

it("answers an erased customer's events with the details erased, as a resend would carry them", async () => {
  const { key } = await merchant('/events-erased');
  const payment = await paidPayment(key, 'erase-me@example.com');
  const customerId = (await get(key, `/v1/payments/${payment}`)).body.customer_id as string;
  const before = JSON.stringify((await get(key, `/v1/events?payment_id=${payment}`)).body);
  expect(before).toContain('erase-me@example.com');
  await eraseCustomer.run(await asOperatorOn(t.context, 'customer', customerId), { id: customerId });
  const after = await get(key, `/v1/events?payment_id=${payment}`);
  expect(after.body.data).toHaveLength(2);
  const text = JSON.stringify(after.body);
  expect(text).not.toContain('erase-me@example.com');
  expect(text).not.toContain('Ada Lovelace');
  for (const event of after.body.data) {
    expect(event.data.customer).toMatchObject({ id: customerId, email: null, name: null, erased: true });
    expect(event.data.payment.customerEmail).toBeNull();
    const one = await get(key, `/v1/events/${event.id}`);
    expect(one.body).toEqual(event);
  }
});
