import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import { eraseCustomer } from '../../src/resources/customers/erase.ts';
import { asOperatorOn } from '../support/operator.ts';
import { call, eventsOf, type StoredEvent } from '../flows/support.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

/** Erases as the operator does (`customers erase`): in the customer's own business and mode. */
const erase = async (id: string) => eraseCustomer.run(await asOperatorOn(t.context, 'customer', id), { id });

// Deleting a customer's details (spec 2.3 rule 7, 2.8): the customer keeps its id, erased and
// with null contact details; its orders and payments lose them but keep ids and amounts; stored
// event bodies carry null in their place; and the email, name and phone are nowhere left in the
// database, in the service's tables or pg-boss's.

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  key = (await (await t.business()).key()).secret;
  // An endpoint, so the events are delivered (queued deliveries and pg-boss jobs exist too).
  await call(t, key, 'POST', '/v1/webhook_endpoints', { url: 'http://localhost:9/hooks' });
});
afterAll(async () => t?.close());

const session = (body: Record<string, unknown>) => call(t, key, 'POST', '/v1/checkout_sessions', { amount: '40.00', currency: 'USD', ...body });
const start = (id: string, body: Record<string, unknown> = {}) => call(t, key, 'POST', `/v1/checkout_sessions/${id}/start`, body);
const simulate = (id: string, outcome: string) => call(t, key, 'POST', `/v1/payments/${id}/simulate`, { outcome });
const get = (path: string) => call(t, key, 'GET', path, undefined, [200]);

/** Every text, varchar, char, json, jsonb (and text array) column of every table in public and pgboss. */
async function textColumns(): Promise<Array<{ schema: string; table: string; column: string }>> {
  const { rows } = await sql<{ schema: string; table: string; column: string }>`
    SELECT c.table_schema AS schema, c.table_name AS table, c.column_name AS column
    FROM information_schema.columns c
    JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
    WHERE c.table_schema IN ('public', 'pgboss')
      AND tb.table_type = 'BASE TABLE'
      AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
        OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar')))
    ORDER BY 1, 2, 3`.execute(t.db);
  return rows;
}

/** `schema.table.column` of every column holding `term` anywhere in its text, any letter case. */
async function columnsContaining(term: string): Promise<string[]> {
  const found: string[] = [];
  for (const { schema, table, column } of await textColumns()) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(`${schema}.${table}`)} WHERE ${sql.ref(column)}::text ILIKE ${`%${term}%`}`.execute(t.db);
    if ((rows[0]?.n ?? 0) > 0) found.push(`${schema}.${table}.${column}`);
  }
  return found;
}

const EMAIL = 'Zelda.Quartermaine@Erasure-Check.example';
const email = EMAIL.toLowerCase();
const NAME = 'Zelda Quartermaine';
const PHONE = '+1 555 0199 7788';
const LINE1 = '77 Forgetmenot Lane';
const HOME = { name: NAME, line1: LINE1, line2: 'Apt 9', city: 'Portland', region: 'OR', postal_code: '97201', country: 'US' };
const WORK = { name: NAME, line1: '1 Office Park', city: 'Salem', region: 'OR', postal_code: '97301', country: 'US' };
const ELSEWHERE = { name: 'Bea Stander', line1: '9 Other Rd', city: 'Salem', region: 'OR', postal_code: '97301', country: 'US' };
const STORE = { platform: 'woocommerce', id: 'shop-1', name: 'Tea Shop', url: 'https://tea.example' };

function expectErasedEvent(event: StoredEvent, customerId: string): void {
  const where = `${event.type} ${event.id}`;
  expect(event.data.payment.customerEmail, where).toBeNull();
  expect(event.data.payment.customerName, where).toBeNull();
  if (event.data.customer !== null) {
    expect(event.data.customer, where).toMatchObject({
      id: customerId, email: null, name: null, phone: null, location: null, shipTo: null, billTo: null, erased: true,
    });
  }
  expect(event.data.order.customer, where).toEqual({ id: customerId, email: null, name: null, erased: true });
  expect(event.data.order.shipTo, where).toBeNull();
  expect(event.data.order.billTo, where).toBeNull();
}

describe('eraseCustomer (spec 2.3 rule 7)', () => {
  it('removes the details everywhere and keeps ids, amounts and payments', async () => {
    // A bystander of the same account, whose details must stay.
    const other = await session({ customer_email: 'bystander@shop.example', customer: { name: 'Bea Stander', phone: '+1 555 0000' }, shipping_address: ELSEWHERE });
    await start(other.id);
    await simulate(other.id, 'paid');

    // A store order, with addresses, started, paid and settled: started, paid, updated events.
    const storeSession = await session({
      customer_email: EMAIL, customer: { name: NAME, phone: PHONE }, reference: 'erase-ref-1',
      order: {
        id: 'erase-1', number: '#E-1', items: [{ name: 'Tea', quantity: 2, unit_amount: '20.00', amount: '40.00' }],
        ship_to: HOME, bill_to: WORK, store: STORE, customer_id: 'wc-erase-1',
      },
    });
    const customerId: string = storeSession.customer_id;
    expect(customerId).toMatch(/^cus_/);
    await start(storeSession.id);
    await simulate(storeSession.id, 'paid');
    await simulate(storeSession.id, 'settled');

    // A session without an email whose details stay on the order until the buyer starts it,
    // with the email in another letter case; it then expires.
    t.clock.advance(MINUTE);
    const anonymous = await session({ amount: '12.50', customer: { name: NAME, phone: PHONE }, shipping_address: HOME, billing_address: WORK });
    const anonymousStarted = await start(anonymous.id, { email: EMAIL.toUpperCase() });
    expect(anonymousStarted.customer_id).toBe(customerId);
    await simulate(anonymous.id, 'expired');

    // A payment link for the customer, started and paid.
    t.clock.advance(MINUTE);
    const link = await call(t, key, 'POST', '/v1/payment_links', {
      amount: '15.00', currency: 'USD', description: 'Invoice 7', customer_email: EMAIL, customer_name: NAME, customer_phone: PHONE,
      shipping_address: HOME, billing_address: WORK,
    });
    await start(link.id);
    await simulate(link.id, 'paid');
    expect((await get(`/v1/payments/${link.id}`)).customer_id).toBe(customerId);

    const paymentIds = [storeSession.id, anonymous.id, link.id];
    const orderIds = [storeSession.order_id, anonymous.order_id, link.order_id];
    const before = await get(`/v1/customers/${customerId}`);
    expect(before).toMatchObject({ email, name: NAME, phone: PHONE, orders_count: 3, paid_orders_count: 2, spent: { USD: '55.00' }, erased: false });
    const ordersBefore = await Promise.all(orderIds.map((id) => get(`/v1/orders/${id}`)));
    const paymentsBefore = await Promise.all(paymentIds.map((id) => get(`/v1/payments/${id}`)));
    for (const id of paymentIds) expect((await eventsOf(t, id)).length).toBeGreaterThan(0);

    // The scan finds the details before the erasure (so it can find them at all).
    const emailColumns = await columnsContaining(email);
    expect(emailColumns).toEqual(expect.arrayContaining(['public.customers.email', 'public.payments.customer_email', 'public.events.body']));
    expect(await columnsContaining(NAME)).toEqual(expect.arrayContaining([
      'public.customers.name', 'public.orders.customer_name', 'public.payments.customer_name', 'public.events.body',
    ]));
    expect(await columnsContaining(PHONE)).toEqual(expect.arrayContaining(['public.customers.phone', 'public.orders.customer_phone', 'public.events.body']));
    expect(await columnsContaining(LINE1)).toEqual(expect.arrayContaining(['public.customers.shipping_address', 'public.orders.ship_to', 'public.events.body']));
    const scanned = (await textColumns()).map((c) => `${c.schema}.${c.table}.${c.column}`);
    expect(scanned).toEqual(expect.arrayContaining(['public.events.body', 'public.activity.details', 'pgboss.job.data']));

    const result = await erase(customerId);
    expect(result).toMatchObject({ orders: 3, payments: 3 });

    // The customer: same id, erased, no contact details; counts and spend stay.
    const after = await get(`/v1/customers/${customerId}`);
    expect(after).toMatchObject({
      id: customerId, object: 'customer', email: null, name: null, phone: null, shipping_address: null, billing_address: null, erased: true,
      orders_count: 3, paid_orders_count: 2, spent: { USD: '55.00' }, created: before.created,
    });

    // Orders keep customer_id, amounts, status and payments, and lose the contact details.
    for (const [index, id] of orderIds.entries()) {
      const read = await get(`/v1/orders/${id}`);
      const was = ordersBefore[index];
      expect(read).toMatchObject({
        customer_id: customerId, customer: { id: customerId, email: null, name: null, erased: true },
        customer_name: null, customer_phone: null, ship_to: null, bill_to: null,
        status: was.status, total: was.total, amount_paid: was.amount_paid, received: was.received, payment_ids: was.payment_ids,
        items: was.items, number: was.number,
      });
    }

    // Payments: customer_email null, amounts and states unchanged.
    for (const [index, id] of paymentIds.entries()) {
      const read = await get(`/v1/payments/${id}`);
      const was = paymentsBefore[index];
      expect(read).toMatchObject({
        customer_email: null, customer_name: null, customer_id: customerId,
        amount: was.amount, currency: was.currency, status: was.status, value_coin: was.value_coin, merchant_received: was.merchant_received,
      });
    }
    expect(await get(`/v1/payment_links/${link.id}`)).toMatchObject({ customer_email: null, customer_name: null, status: 'paid', amount: '15.00' });

    // The email is no longer on file.
    for (const query of [email, EMAIL, EMAIL.toUpperCase()]) {
      expect(await get(`/v1/customers?email=${encodeURIComponent(query)}`)).toEqual({ data: [], has_more: false, next_cursor: null });
    }

    // Stored event bodies carry null in place of the details.
    for (const id of paymentIds) {
      const events = await eventsOf(t, id);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) expectErasedEvent(event, customerId);
    }
    const [storeStarted] = await eventsOf(t, storeSession.id);
    expect(storeStarted?.data.customer).toMatchObject({ id: customerId, email: null, erased: true });
    expect(storeStarted?.data.payment).toMatchObject({ customerEmail: null, amount: '40.00', reference: 'erase-ref-1' });

    // The key check: the email, name, phone and address line are nowhere in the database.
    expect(await columnsContaining(email), 'email').toEqual([]);
    expect(await columnsContaining(NAME), 'name').toEqual([]);
    expect(await columnsContaining(PHONE), 'phone').toEqual([]);
    expect(await columnsContaining(LINE1), 'address').toEqual([]);

    // The bystander keeps everything.
    expect(await get(`/v1/customers/${other.customer_id}`)).toMatchObject({
      email: 'bystander@shop.example', name: 'Bea Stander', phone: '+1 555 0000', erased: false,
    });
    expect(await get(`/v1/orders/${other.order_id}`)).toMatchObject({ customer_name: 'Bea Stander', ship_to: { city: 'Salem' } });
    expect((await eventsOf(t, other.id))[0]?.data.customer).toMatchObject({ email: 'bystander@shop.example', name: 'Bea Stander' });

    // The same email later starts a new customer; the erased one stays erased.
    t.clock.advance(MINUTE);
    const again = await session({ customer_email: EMAIL, customer: { name: NAME } });
    expect(again.customer_id).toMatch(/^cus_/);
    expect(again.customer_id).not.toBe(customerId);
    expect(await get(`/v1/customers/${again.customer_id}`)).toMatchObject({ email, name: NAME, orders_count: 1, erased: false, spent: {} });
    expect((await get(`/v1/customers?email=${encodeURIComponent(email)}`)).data.map((c: { id: string }) => c.id)).toEqual([again.customer_id]);
    expect(await get(`/v1/customers/${customerId}`)).toMatchObject({ email: null, name: null, erased: true, orders_count: 3 });
  });

  it('also removes the email from merchant metadata and the event bodies that carry it', async () => {
    const mail = 'yorick.vandermeer@erasure-check.example';
    const made = await session({ customer_email: mail, metadata: { buyer: mail, cart: 'c-42' } });
    await start(made.id);
    await simulate(made.id, 'paid');
    expect(await columnsContaining(mail)).toEqual(expect.arrayContaining(['public.payments.metadata', 'public.events.body']));

    await erase(made.customer_id);
    expect(await columnsContaining(mail)).toEqual([]);
    expect((await get(`/v1/payments/${made.id}`)).metadata).toEqual({ buyer: null, cart: 'c-42' });
    for (const event of await eventsOf(t, made.id)) expect(event.data.payment.metadata, event.type).toEqual({ buyer: null, cart: 'c-42' });
  });

  it('also reaches an attempt the customer made on a store order that a later attempt moved to someone else', async () => {
    // The buyer tries a store order under one email, then the store retries the same order
    // under another (a corrected address): the order is now the second customer's, but the
    // first attempt's payment and events still hold the first email.
    const mail = 'xavia.oldaddress@erasure-check.example';
    const storeOrder = { id: 'erase-moved', items: [{ name: 'Tea', quantity: 1, amount: '40.00' }], ship_to: HOME };
    const first = await session({ customer_email: mail, customer: { name: 'Xavia Oldaddress' }, order: storeOrder });
    await start(first.id);
    await simulate(first.id, 'expired');
    t.clock.advance(MINUTE);
    const second = await session({ customer_email: 'xavia.new@shop.example', order: storeOrder });
    expect(second.order_id).toBe(first.order_id);
    expect(second.customer_id).not.toBe(first.customer_id);
    expect(await columnsContaining(mail)).toEqual(expect.arrayContaining(['public.customers.email', 'public.payments.customer_email', 'public.events.body']));

    await erase(first.customer_id);
    expect(await get(`/v1/customers/${first.customer_id}`)).toMatchObject({ email: null, name: null, erased: true });
    expect(await columnsContaining(mail)).toEqual([]);
    expect(await columnsContaining('Xavia Oldaddress')).toEqual([]);
    expect((await get(`/v1/payments/${first.id}`)).customer_email).toBeNull();
    for (const event of await eventsOf(t, first.id)) expect(event.data.payment.customerEmail, event.type).toBeNull();
  });

  it('leaves no detail when a start and a payment race the erasure: either comes after it, or it sees theirs', async () => {
    for (let round = 0; round < 8; round += 1) {
      const mail = `racer-${round}@erasure-check.example`;
      const made = await session({ customer_email: mail, customer: { name: 'Rosalind Racewell' }, reference: `race-${mail}` });
      const paid = await session({ customer_email: mail, reference: `race-paid-${mail}` });
      await start(paid.id);
      // A start (read without locks, written if the payment is unchanged) and a payment, at
      // once with the erasure; either may be refused after it, neither may deadlock or leak.
      const [erased, ...requests] = await Promise.allSettled([
        erase(made.customer_id),
        t.request('POST', `/v1/checkout_sessions/${made.id}/start`, { key, body: {} }),
        t.request('POST', `/v1/payments/${paid.id}/simulate`, { key, body: { outcome: 'paid' } }),
      ]);
      expect(erased.status, JSON.stringify(erased)).toBe('fulfilled');
      for (const request of requests) expect(request.status === 'fulfilled' && request.value.status < 500, JSON.stringify(request)).toBe(true);
      expect(await columnsContaining(mail), `round ${round}`).toEqual([]);
      expect(await columnsContaining('Rosalind Racewell'), `round ${round}`).toEqual([]);
    }
  });

  it('throws for an unknown customer and changes nothing', async () => {
    const bystander = await session({ customer_email: 'still-here@shop.example' });
    await expect(erase('cus_doesnotexist')).rejects.toThrow(/cus_doesnotexist/);
    await expect(erase(bystander.id)).rejects.toThrow();
    expect(await get(`/v1/customers/${bystander.customer_id}`)).toMatchObject({ email: 'still-here@shop.example', erased: false });
  });
});
