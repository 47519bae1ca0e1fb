import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR } from '../../src/core/clock.ts';
import { accountInBothModes, collection, expectCreated, nowSeconds } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Customers (spec 2.3, 4.3, 7.1, 8). Customers come to exist through orders; for now the only
// way through the API is a payment link with customer_email.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => t?.close());

const { list } = collection(() => t, '/v1/customers');

async function link(key: string, fields: Record<string, unknown>): Promise<{ id: string; order_id: string }> {
  const body = { amount: '25.00', currency: 'USD', description: 'Tea', ...fields };
  return expectCreated(await t.request('POST', '/v1/payment_links', { key, body }));
}

async function customerIdOf(linkId: string): Promise<string> {
  const row = await t.db
    .selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id')
    .select('o.customer_id').where('p.id', '=', linkId).executeTakeFirstOrThrow();
  expect(row.customer_id).toMatch(/^cus_/);
  return row.customer_id ?? '';
}

/** A customer made through a link, returning its id. */
async function customer(key: string, email: string): Promise<string> {
  return customerIdOf((await link(key, { customer_email: email })).id);
}

const springfield = { line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const springfieldOut = { name: null, line1: '1 Main St', line2: null, city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const london = { name: 'Ann Smith', line1: '10 Downing St', city: 'London', postal_code: 'SW1A 2AA', country: 'GB' };
const londonOut = { name: 'Ann Smith', line1: '10 Downing St', line2: null, city: 'London', region: null, postal_code: 'SW1A 2AA', country: 'GB' };

describe('customers made through payment links', () => {
  it('makes one customer per lowercased email and returns the exact customer object', async () => {
    const { biz, test } = await accountInBothModes(t);
    const created = nowSeconds(t);
    const first = await link(test, {
      customer_email: 'Ann@Example.COM', customer_name: 'Ann', customer_phone: '+1 555 0100', shipping_address: springfield,
    });
    const id = await customerIdOf(first.id);

    const rows = await t.db.selectFrom('customers').selectAll().where('business_id', '=', biz.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.email).toBe('ann@example.com');

    const response = await t.request('GET', `/v1/customers/${id}`, { key: test });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      id,
      object: 'customer',
      livemode: false,
      email: 'ann@example.com',
      name: 'Ann',
      phone: '+1 555 0100',
      shipping_address: springfieldOut,
      billing_address: null,
      store_accounts: [],
      orders_count: 1,
      paid_orders_count: 0,
      spent: {},
      created,
      last_order_at: created,
      erased: false,
    });
  });

  it('finds the same customer for the same email in another letter case, in the same mode only', async () => {
    const { biz, test, live } = await accountInBothModes(t);
    const id = await customer(test, 'Ann@Example.COM');
    t.clock.advance(HOUR);
    const second = await customerIdOf((await link(test, { customer_email: 'ANN@example.com' })).id);
    expect(second).toBe(id);

    const read = await t.request('GET', `/v1/customers/${id}`, { key: test });
    expect(read.body.orders_count).toBe(2);
    expect(read.body.email).toBe('ann@example.com');
    expect(read.body.last_order_at).toBe(nowSeconds(t));
    expect(read.body.created).toBe(nowSeconds(t) - 3600);

    // Live is a separate customer with its own orders.
    const liveId = await customerIdOf((await link(live, { customer_email: 'ann@EXAMPLE.com' })).id);
    expect(liveId).not.toBe(id);
    const liveRead = await t.request('GET', `/v1/customers/${liveId}`, { key: live });
    expect(liveRead.status).toBe(200);
    expect(liveRead.body).toMatchObject({ livemode: true, email: 'ann@example.com', orders_count: 1 });
    expect((await t.request('GET', `/v1/customers/${id}`, { key: test })).body.orders_count).toBe(2);

    const rows = await t.db.selectFrom('customers').select(['id', 'livemode', 'email']).where('business_id', '=', biz.id).orderBy('livemode').execute();
    expect(rows).toEqual([
      { id, livemode: false, email: 'ann@example.com' },
      { id: liveId, livemode: true, email: 'ann@example.com' },
    ]);
  });

  it('replaces details with the latest order and keeps the ones an order leaves out', async () => {
    const { test } = await accountInBothModes(t);
    const id = await customerIdOf((await link(test, {
      customer_email: 'ann@example.com', customer_name: 'Ann', customer_phone: '+1 555 0100', shipping_address: springfield,
    })).id);

    t.clock.advance(HOUR);
    await link(test, { customer_email: 'ann@example.com', customer_name: 'Ann Smith' });
    let read = await t.request('GET', `/v1/customers/${id}`, { key: test });
    expect(read.body).toMatchObject({ name: 'Ann Smith', phone: '+1 555 0100', shipping_address: springfieldOut, orders_count: 2 });

    t.clock.advance(HOUR);
    await link(test, { customer_email: 'ann@example.com', customer_phone: '+44 20 7946 0000', shipping_address: london });
    read = await t.request('GET', `/v1/customers/${id}`, { key: test });
    expect(read.body).toMatchObject({
      name: 'Ann Smith', phone: '+44 20 7946 0000', shipping_address: londonOut, billing_address: null,
      orders_count: 3, paid_orders_count: 0, spent: {}, last_order_at: nowSeconds(t),
    });

    t.clock.advance(HOUR);
    await link(test, { customer_email: 'ann@example.com', billing_address: springfield });
    read = await t.request('GET', `/v1/customers/${id}`, { key: test });
    expect(read.body).toMatchObject({ name: 'Ann Smith', phone: '+44 20 7946 0000', shipping_address: londonOut, billing_address: springfieldOut, orders_count: 4 });
  });

  it('makes one customer when links with the same new email are created at once', async () => {
    const { biz, test } = await accountInBothModes(t);
    const emails = ['new@example.com', 'NEW@example.com', 'New@Example.com', 'new@EXAMPLE.COM', 'nEw@example.com'];
    const links = await Promise.all(emails.map((email) => link(test, { customer_email: email })));
    const ids = new Set(await Promise.all(links.map((created) => customerIdOf(created.id))));
    expect(ids.size).toBe(1);
    const rows = await t.db.selectFrom('customers').select('id').where('business_id', '=', biz.id).execute();
    expect(rows).toHaveLength(1);
    expect((await t.request('GET', `/v1/customers/${[...ids][0]}`, { key: test })).body.orders_count).toBe(5);
  });

  it('makes no customer for a link without an email', async () => {
    const { biz, test } = await accountInBothModes(t);
    await link(test, { customer_name: 'Nobody' });
    expect(await t.db.selectFrom('customers').select('id').where('business_id', '=', biz.id).execute()).toEqual([]);
    expect((await list(test)).body).toEqual({ data: [], has_more: false, next_cursor: null });
  });
});

describe('GET /v1/customers/:id', () => {
  it("answers 404 not_found for another business's, the other mode's, or an unknown customer", async () => {
    const { test, live } = await accountInBothModes(t);
    const id = await customer(test, 'ann@example.com');
    const other = (await (await t.business()).key()).secret;
    for (const [key, path] of [[other, id], [live, id], [test, 'cus_doesnotexist'], [test, 'pay_notacustomer']] as const) {
      const response = await t.request('GET', `/v1/customers/${path}`, { key });
      expect(response.status, path).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
  });

  it('is readable with a read-only key', async () => {
    const { biz, test } = await accountInBothModes(t);
    const id = await customer(test, 'ann@example.com');
    const readOnly = (await biz.key({ access: 'read_only' })).secret;
    expect((await t.request('GET', `/v1/customers/${id}`, { key: readOnly })).status).toBe(200);
    expect((await list(readOnly)).status).toBe(200);
  });
});

describe('GET /v1/customers', () => {
  it('lists newest first, each item a full customer object, only this mode', async () => {
    const { test, live } = await accountInBothModes(t);
    const a = await customer(test, 'a@example.com');
    t.clock.advance(1000);
    const b = await customer(test, 'b@example.com');
    t.clock.advance(1000);
    const c = await customer(test, 'c@example.com');
    await customer(live, 'live@example.com');

    const response = await list(test);
    expect(response.status).toBe(200);
    expect(response.body.has_more).toBe(false);
    expect(response.body.next_cursor).toBeNull();
    expect(response.body.data.map((item: { id: string }) => item.id)).toEqual([c, b, a]);
    const single = await t.request('GET', `/v1/customers/${b}`, { key: test });
    expect(response.body.data[1]).toEqual(single.body);
  });

  it('finds the one customer by email in any letter case; an unknown email gives empty data', async () => {
    const { test, live } = await accountInBothModes(t);
    await customer(test, 'zed@example.com');
    t.clock.advance(1000);
    const ann = await customer(test, 'Ann@Example.COM');
    t.clock.advance(1000);
    await customer(test, 'bob@example.com');

    for (const email of ['ann@example.com', 'ANN@EXAMPLE.COM', 'aNn@ExAmPlE.cOm']) {
      const response = await list(test, { email });
      expect(response.status, email).toBe(200);
      expect(response.body.data.map((item: { id: string }) => item.id), email).toEqual([ann]);
      expect(response.body.has_more).toBe(false);
    }
    const otherKey = (await (await t.business()).key()).secret;
    await customer(otherKey, 'other@example.com');
    for (const [key, email] of [[test, 'nobody@example.com'], [test, 'ann@example'], [test, 'other@example.com'], [live, 'ann@example.com']] as const) {
      const response = await list(key, { email });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: [], has_more: false, next_cursor: null });
    }
  });

  it('pages with limit and starting_after', async () => {
    const { test } = await accountInBothModes(t);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      ids.unshift(await customer(test, `${name}@example.com`));
      t.clock.advance(1000);
    }
    const first = await list(test, { limit: '2' });
    expect(first.status).toBe(200);
    expect(first.body.data.map((item: { id: string }) => item.id)).toEqual(ids.slice(0, 2));
    expect(first.body).toMatchObject({ has_more: true, next_cursor: ids[1] });

    const second = await list(test, { limit: '2', starting_after: first.body.next_cursor });
    expect(second.body.data.map((item: { id: string }) => item.id)).toEqual(ids.slice(2, 4));
    expect(second.body).toMatchObject({ has_more: true, next_cursor: ids[3] });

    const third = await list(test, { limit: '2', starting_after: second.body.next_cursor });
    expect(third.body.data.map((item: { id: string }) => item.id)).toEqual(ids.slice(4));
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });

    const exact = await list(test, { limit: '5' });
    expect(exact.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(exact.body.data).toHaveLength(5);
    expect((await list(test, { limit: '100' })).status).toBe(200);
    expect((await list(test, { limit: '1' })).body.data).toHaveLength(1);
  });

  it.each(['0', '101', 'x', '-1', '1.5'])('answers 400 invalid_limit for limit=%s', async (limit) => {
    const { test } = await accountInBothModes(t);
    const response = await list(test, { limit });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_limit', field: 'limit' });
    expect(typeof response.body.error.message).toBe('string');
  });

  it("answers 400 invalid_cursor for another business's, the other mode's, or an unknown customer", async () => {
    const { test, live } = await accountInBothModes(t);
    await customer(test, 'ann@example.com');
    const liveCustomer = await customer(live, 'ann@example.com');
    const otherKey = (await (await t.business()).key()).secret;
    const otherCustomer = await customer(otherKey, 'ann@example.com');
    for (const cursor of [otherCustomer, liveCustomer, 'cus_doesnotexist']) {
      const response = await list(test, { starting_after: cursor });
      expect(response.status, cursor).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_cursor', field: 'starting_after' });
    }
  });
});
