import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, SECOND } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import type { BusinessChanges } from '../support/harness.ts';
import { account, collection, expectCreated, expectError, ids, nowSeconds, type Account } from '../support/api.ts';
import { startTestApp, type ApiResponse, type TestApp } from '../support/harness.ts';

// Payment links through real HTTP (spec 2.1, 2.9, 3, 4.1, 7.1-7.3, 8).

let t: TestApp;
// Rate limits are covered elsewhere; these tests send far more than 120 requests a minute.
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => { await t.close(); });

const LINKS = '/v1/payment_links';
const VALID = { amount: '25.00', currency: 'USD', description: 'Blue teapot' } as const;

const US = { line1: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' };
const CA = { line1: '100 King St W', city: 'Toronto', region: 'ON', postal_code: 'M5H 1J9', country: 'CA' };
const AU = { line1: '1 George St', city: 'Sydney', region: 'NSW', postal_code: '2000', country: 'AU' };
const GB = { line1: '10 Downing St', city: 'London', postal_code: 'SW1A 2AA', country: 'GB' };
const DE = { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' };
const IE = { line1: '1 Grafton St', city: 'Dublin', country: 'IE' };

/** Every field of the payment link object, spec 2.1. */
const LINK_FIELDS = [
  'id', 'object', 'url', 'tracking_url', 'status', 'livemode', 'amount', 'currency', 'description', 'reference',
  'customer_name', 'customer_email', 'memo', 'success_url', 'collect', 'order_id', 'created', 'expires_at',
  'started_at', 'paid_at', 'canceled_at',
];

const { create, list } = collection(() => t, LINKS);

async function createLink(key: string, body: Record<string, unknown> = {}): Promise<any> {
  return expectCreated(await create(key, { ...VALID, ...body }));
}

function cancel(key: string, id: string): Promise<ApiResponse> {
  return t.request('POST', `${LINKS}/${id}/cancel`, { key });
}

/** Moves the clock to half a second past the next whole second, so created times have a fraction. */
function toMidSecond(): void {
  const ms = t.clock.now().getTime();
  t.clock.advance(1000 - (ms % 1000) + 500);
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

async function orderOf(orderId: string) {
  return t.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
}

/** A payment that is not a link (an API checkout session), written directly. */
async function insertApiPayment(businessId: string, livemode = false): Promise<string> {
  const id = newId('pay');
  const now = t.clock.now();
  await t.db.insertInto('payments').values({
    id, business_id: businessId, livemode, source: 'api', amount_minor: 1000, currency: 'USD',
    description: 'API session', created_at: now, expires_at: new Date(now.getTime() + DAY),
  }).execute();
  return id;
}

describe('POST /v1/payment_links', () => {
  it('creates a link with every field and returns exactly the spec 2.1 object', async () => {
    const { biz, key } = await account(t);
    const res = await create(key, {
      amount: '25.5',
      currency: 'eur',
      description: 'Blue teapot',
      customer_name: 'Jane Doe',
      customer_email: 'Jane.Doe@Example.COM',
      customer_phone: '+1 415 555 0100',
      shipping_address: { ...US, region: 'ca' },
      billing_address: GB,
      reference: 'inv-1001',
      memo: 'Thanks for your order!',
      expires_in_days: 14,
      success_url: 'https://shop.example/thanks?order=1001',
      collect: { phone: true, shipping_address: true },
    });
    expect(res.status).toBe(201);
    const created = nowSeconds(t);
    expect(res.body).toStrictEqual({
      id: expect.stringMatching(/^pay_\w+$/),
      object: 'payment_link',
      url: expect.any(String),
      tracking_url: expect.any(String),
      status: 'open',
      livemode: false,
      amount: '25.50',
      currency: 'EUR',
      description: 'Blue teapot',
      reference: 'inv-1001',
      customer_name: 'Jane Doe',
      customer_email: 'jane.doe@example.com',
      memo: 'Thanks for your order!',
      success_url: 'https://shop.example/thanks?order=1001',
      collect: { phone: true, shipping_address: true },
      order_id: expect.stringMatching(/^ord_\w+$/),
      created,
      expires_at: created + 14 * 86_400,
      started_at: null,
      paid_at: null,
      canceled_at: null,
    });
    expect(Object.keys(res.body).sort()).toEqual([...LINK_FIELDS].sort());
    expect(res.body.url.startsWith(`${t.config.baseUrl}/`)).toBe(true);
    expect(res.body.tracking_url.startsWith(`${t.config.baseUrl}/`)).toBe(true);
    expect(res.body.tracking_url).not.toBe(res.body.url);
    // The tracking page is at a token of its own, not the payment's id (which opens the payer page).
    expect(res.body.tracking_url).toMatch(new RegExp(`^${t.config.baseUrl}/track/trk_[0-9A-Za-z]{24}$`));
    expect(res.body.tracking_url).not.toContain(res.body.id);
    const read = await t.request('GET', `/v1/payment_links/${res.body.id}`, { key });
    expect(read.body.tracking_url).toBe(res.body.tracking_url);

    // The order keeps phone and addresses (spec 4.1), with the region code uppercased.
    const order = await orderOf(res.body.order_id);
    expect(order).toMatchObject({
      business_id: biz.id,
      livemode: false,
      number: 1001,
      source: 'payment_link',
      currency: 'EUR',
      total_minor: 2550,
      customer_name: 'Jane Doe',
      customer_phone: '+1 415 555 0100',
    });
    expect(order.ship_to).toMatchObject({ line1: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' });
    expect(order.bill_to).toMatchObject({ line1: '10 Downing St', city: 'London', country: 'GB' });
    expect(order.customer_id).not.toBeNull();
    const customer = await t.db.selectFrom('customers').selectAll().where('id', '=', order.customer_id!).executeTakeFirstOrThrow();
    expect(customer.email).toBe('jane.doe@example.com');
  });

  it('fills the defaults for a minimal link: nulls, collect null and seven days to expiry', async () => {
    const { key } = await account(t);
    const link = await createLink(key);
    const created = nowSeconds(t);
    expect(link).toStrictEqual({
      id: expect.stringMatching(/^pay_/),
      object: 'payment_link',
      url: expect.any(String),
      tracking_url: expect.any(String),
      status: 'open',
      livemode: false,
      amount: '25.00',
      currency: 'USD',
      description: 'Blue teapot',
      reference: null,
      customer_name: null,
      customer_email: null,
      memo: null,
      success_url: null,
      collect: null,
      order_id: expect.stringMatching(/^ord_/),
      created,
      expires_at: created + 7 * 86_400,
      started_at: null,
      paid_at: null,
      canceled_at: null,
    });
  });

  it('creates a Live link with a Live key', async () => {
    const { key } = await account(t, {}, 'live');
    const link = await createLink(key, { success_url: 'https://shop.example/thanks' });
    expect(link.livemode).toBe(true);
  });

  it.each([
    ['1.00', '1.00'],
    ['1', '1.00'],
    ['25.5', '25.50'],
    ['99.99', '99.99'],
    ['100000.00', '100000.00'],
    ['100000', '100000.00'],
  ])('accepts amount %j and answers it as %j', async (amount, shown) => {
    const { key } = await account(t);
    const link = await createLink(key, { amount });
    expect(link.amount).toBe(shown);
  });

  it.each(['usd', 'Usd', 'USD', 'eur', 'gbp', 'cAd', 'aud'])('accepts currency %j in any letter case', async (currency) => {
    const { key } = await account(t);
    expect((await createLink(key, { currency })).currency).toBe(currency.toUpperCase());
  });

  it.each([
    [1, 1],
    [7, 7],
    [30, 30],
  ])('expires_in_days %i sets expires_at to created + %i days', async (days, expected) => {
    const { key } = await account(t);
    const link = await createLink(key, { expires_in_days: days });
    expect(link.expires_at - link.created).toBe(expected * 86_400);
  });

  it('numbers orders 1001, 1002, … per business and per mode', async () => {
    const a = await t.business();
    const aTest = (await a.key()).secret;
    const aLive = (await a.key({ mode: 'live' })).secret;
    const bTest = (await (await t.business()).key()).secret;
    const numberOf = async (key: string) => (await orderOf((await createLink(key)).order_id)).number;
    expect(await numberOf(aTest)).toBe(1001);
    expect(await numberOf(aTest)).toBe(1002);
    expect(await numberOf(aLive)).toBe(1001);
    expect(await numberOf(bTest)).toBe(1001);
    expect(await numberOf(aTest)).toBe(1003);
    expect(await numberOf(aLive)).toBe(1002);
  });

  it('gives concurrent creates distinct consecutive order numbers', async () => {
    const { key } = await account(t);
    const links = await Promise.all(Array.from({ length: 10 }, () => createLink(key)));
    const numbers = await Promise.all(links.map(async (link) => (await orderOf(link.order_id)).number));
    expect(numbers.toSorted((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => 1001 + i));
  });

  it('ignores Idempotency-Key: the same key twice makes two links, and a malformed key is not refused', async () => {
    const { key } = await account(t);
    const headers = { 'idempotency-key': 'link-once' };
    const first = await t.request('POST', LINKS, { key, body: VALID, headers });
    const second = await t.request('POST', LINKS, { key, body: VALID, headers });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
    const long = await t.request('POST', LINKS, { key, body: VALID, headers: { 'idempotency-key': 'k'.repeat(121) } });
    expect(long.status).toBe(201);
  });

  it('keeps each link on its own order', async () => {
    const { key } = await account(t);
    const first = await createLink(key);
    const second = await createLink(key);
    expect(first.order_id).not.toBe(second.order_id);
    expect(first.id).not.toBe(second.id);
  });

  it('ignores unknown request fields, including ones that try to set mode, status or id', async () => {
    const { key } = await account(t);
    const res = await create(key, { ...VALID, colour: 'blue', livemode: true, status: 'paid', id: 'pay_mine', canceled_at: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ livemode: false, status: 'open', canceled_at: null });
    expect(res.body.id).not.toBe('pay_mine');
    expect(res.body).not.toHaveProperty('colour');
  });

  it('lowercases customer_email and accepts null for none', async () => {
    const { key } = await account(t);
    expect((await createLink(key, { customer_email: 'BUYER@Shop.Example' })).customer_email).toBe('buyer@shop.example');
    expect((await createLink(key, { customer_email: null })).customer_email).toBeNull();
  });

  describe('request body (spec 4.7, 7.1)', () => {
    it.each([
      ['invalid JSON', '{"amount": "25.00",'],
      ['a JSON array', '[]'],
      ['a JSON string', '"25.00"'],
      ['JSON null', 'null'],
    ])('%s → 400 invalid_json', async (_case, rawBody) => {
      const { biz, key } = await account(t);
      const res = await t.request('POST', LINKS, { key, rawBody, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'invalid_json');
      await expectNothingStored(biz.id);
    });

    it('refuses a body that is not JSON with 415', async () => {
      const { biz, key } = await account(t);
      const res = await t.request('POST', LINKS, { key, rawBody: 'amount=25.00', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status).toBe(415);
      expect(res.body.error).toStrictEqual({ code: expect.any(String), message: expect.any(String) });
      await expectNothingStored(biz.id);
    });

    it('refuses a body over 64 KiB with 413', async () => {
      const { biz, key } = await account(t);
      const res = await create(key, { ...VALID, padding: 'x'.repeat(64 * 1024) });
      expect(res.status).toBe(413);
      expect(res.body.error).toStrictEqual({ code: expect.any(String), message: expect.any(String) });
      await expectNothingStored(biz.id);
    });

    it('answers with Cache-Control: no-store', async () => {
      const { key } = await account(t);
      const res = await create(key, VALID);
      expect(res.status).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });
  });

  describe('collect (spec 2.9)', () => {
    it.each([
      [{ phone: true }, { phone: true }],
      [{ name: true, billing_address: true }, { name: true, billing_address: true }],
      [{}, null],
      [null, null],
    ])('collect %j is answered as %j', async (collect, expected) => {
      const { key } = await account(t);
      expect((await createLink(key, { collect })).collect).toStrictEqual(expected);
    });
  });

  describe('text limits of spec 8, counted in characters', () => {
    const LIMITS = [
      ['description', 120],
      ['customer_name', 80],
      ['customer_phone', 40],
      ['reference', 64],
      ['memo', 500],
    ] as const;

    async function storedText(link: any, field: string): Promise<string> {
      if (field === 'customer_phone') return (await orderOf(link.order_id)).customer_phone!;
      return link[field];
    }

    it.each(LIMITS)('%s accepts exactly %i characters', async (field, limit) => {
      const { key } = await account(t);
      const text = 'x'.repeat(limit);
      expect(await storedText(await createLink(key, { [field]: text }), field)).toBe(text);
    });

    it.each(LIMITS)('%s accepts %i emoji (characters, not bytes or UTF-16 units)', async (field, limit) => {
      const { key } = await account(t);
      const text = '😀'.repeat(limit);
      expect(await storedText(await createLink(key, { [field]: text }), field)).toBe(text);
    });

    it.each(LIMITS)('%s refuses %i + 1 characters with too_long', async (field, limit) => {
      const { biz, key } = await account(t);
      expectError(await create(key, { ...VALID, [field]: 'x'.repeat(limit + 1) }), 400, 'too_long', field);
      expectError(await create(key, { ...VALID, [field]: 'é'.repeat(limit + 1) }), 400, 'too_long', field);
      expectError(await create(key, { ...VALID, [field]: '😀'.repeat(limit + 1) }), 400, 'too_long', field);
      await expectNothingStored(biz.id);
    });
  });

  describe('validation errors of spec 7.2', () => {
    let rejects: Account;
    beforeAll(async () => { rejects = await account(t); });

    const INVALID: Array<[string, Record<string, unknown>, string, string]> = [
      ['amount missing', { amount: undefined }, 'invalid_amount', 'amount'],
      ['amount 0.99 (below 1.00)', { amount: '0.99' }, 'invalid_amount', 'amount'],
      ['amount 100000.01 (above 100000.00)', { amount: '100000.01' }, 'invalid_amount', 'amount'],
      ['amount with three decimals', { amount: '1.234' }, 'invalid_amount', 'amount'],
      ['amount as a JSON number', { amount: 5 }, 'invalid_amount', 'amount'],
      ['amount not a number', { amount: 'abc' }, 'invalid_amount', 'amount'],
      ['amount negative', { amount: '-5.00' }, 'invalid_amount', 'amount'],
      ['amount empty', { amount: '' }, 'invalid_amount', 'amount'],
      ['amount in exponent notation', { amount: '1e3' }, 'invalid_amount', 'amount'],
      ['amount with a thousands separator', { amount: '1,000.00' }, 'invalid_amount', 'amount'],
      ['currency missing', { currency: undefined }, 'invalid_currency', 'currency'],
      ['currency unknown', { currency: 'JPY' }, 'invalid_currency', 'currency'],
      ['currency not a string', { currency: 840 }, 'invalid_currency', 'currency'],
      ['description missing', { description: undefined }, 'missing_description', 'description'],
      ['description empty', { description: '' }, 'missing_description', 'description'],
      ['description whitespace', { description: '  \t\n ' }, 'missing_description', 'description'],
      ['customer_name a number', { customer_name: 5 }, 'invalid_customer_name', 'customer_name'],
      ['customer_name an array', { customer_name: ['Jane'] }, 'invalid_customer_name', 'customer_name'],
      ['customer_phone a number', { customer_phone: 4155550100 }, 'invalid_customer_phone', 'customer_phone'],
      ['reference a number', { reference: 42 }, 'invalid_reference', 'reference'],
      ['reference an object', { reference: { id: 1 } }, 'invalid_reference', 'reference'],
      ['memo a boolean', { memo: true }, 'invalid_memo', 'memo'],
      ['customer_email without @', { customer_email: 'jane.example.com' }, 'invalid_email', 'customer_email'],
      ['customer_email without domain', { customer_email: 'jane@' }, 'invalid_email', 'customer_email'],
      ['customer_email a number', { customer_email: 5 }, 'invalid_email', 'customer_email'],
      ['expires_in_days 0', { expires_in_days: 0 }, 'invalid_expiry', 'expires_in_days'],
      ['expires_in_days 31', { expires_in_days: 31 }, 'invalid_expiry', 'expires_in_days'],
      ['expires_in_days 1.5', { expires_in_days: 1.5 }, 'invalid_expiry', 'expires_in_days'],
      ['expires_in_days as a string', { expires_in_days: '7' }, 'invalid_expiry', 'expires_in_days'],
      ['expires_in_days negative', { expires_in_days: -1 }, 'invalid_expiry', 'expires_in_days'],
      ['success_url relative', { success_url: '/thanks' }, 'invalid_url', 'success_url'],
      ['success_url without scheme', { success_url: 'shop.example/thanks' }, 'invalid_url', 'success_url'],
      ['success_url ftp:', { success_url: 'ftp://shop.example/thanks' }, 'invalid_url', 'success_url'],
      ['success_url javascript:', { success_url: 'javascript:alert(1)' }, 'invalid_url', 'success_url'],
      ['success_url with username and password', { success_url: 'https://user:secret@shop.example/thanks' }, 'invalid_url', 'success_url'],
      ['success_url with username only', { success_url: 'https://user@shop.example/thanks' }, 'invalid_url', 'success_url'],
      ['success_url a number', { success_url: 5 }, 'invalid_url', 'success_url'],
      ['collect unknown key', { collect: { colour: true } }, 'invalid_collect', 'collect.colour'],
      ['collect unknown key beside a known one', { collect: { phone: true, fax: true } }, 'invalid_collect', 'collect.fax'],
      ['collect non-boolean value', { collect: { phone: 'yes' } }, 'invalid_collect', 'collect.phone'],
      ['collect numeric value', { collect: { shipping_address: 1 } }, 'invalid_collect', 'collect.shipping_address'],
      ['collect not an object', { collect: 'phone' }, 'invalid_collect', 'collect'],
    ];

    it.each(INVALID)('%s → 400', async (_case, patch, code, field) => {
      expectError(await create(rejects.key, { ...VALID, ...patch }), 400, code, field);
      await expectNothingStored(rejects.biz.id);
    });
  });

  describe('addresses (spec 4.1, 7.2 invalid_address)', () => {
    let rejects: Account;
    beforeAll(async () => { rejects = await account(t); });

    const omit = <T extends Record<string, unknown>>(address: T, key: keyof T) => ({ ...address, [key]: undefined });

    const INVALID: Array<[string, Record<string, unknown>, string]> = [
      ['US without region', { shipping_address: omit(US, 'region') }, 'shipping_address.region'],
      ['US with a blank region', { shipping_address: { ...US, region: '   ' } }, 'shipping_address.region'],
      ['US with a region name instead of a code', { shipping_address: { ...US, region: 'California' } }, 'shipping_address.region'],
      ['US without postal_code', { shipping_address: omit(US, 'postal_code') }, 'shipping_address.postal_code'],
      ['US without line1', { shipping_address: omit(US, 'line1') }, 'shipping_address.line1'],
      ['US without city', { billing_address: omit(US, 'city') }, 'billing_address.city'],
      ['CA without region', { billing_address: omit(CA, 'region') }, 'billing_address.region'],
      ['CA with a US state', { billing_address: { ...CA, region: 'NY' } }, 'billing_address.region'],
      ['CA without postal_code', { shipping_address: omit(CA, 'postal_code') }, 'shipping_address.postal_code'],
      ['AU without region', { shipping_address: omit(AU, 'region') }, 'shipping_address.region'],
      ['AU with an unknown region', { billing_address: { ...AU, region: 'XYZ' } }, 'billing_address.region'],
      ['AU without postal_code', { billing_address: omit(AU, 'postal_code') }, 'billing_address.postal_code'],
      ['GB without postal_code', { shipping_address: omit(GB, 'postal_code') }, 'shipping_address.postal_code'],
      ['DE without postal_code', { shipping_address: omit(DE, 'postal_code') }, 'shipping_address.postal_code'],
      ['FR without postal_code', { billing_address: { line1: '1 Rue de Rivoli', city: 'Paris', country: 'FR' } }, 'billing_address.postal_code'],
      ['IE without city', { shipping_address: omit(IE, 'city') }, 'shipping_address.city'],
      ['unknown country', { shipping_address: { ...GB, country: 'XX' } }, 'shipping_address.country'],
      ['three-letter country', { shipping_address: { ...US, country: 'USA' } }, 'shipping_address.country'],
      ['missing country', { billing_address: omit(GB, 'country') }, 'billing_address.country'],
      ['address not an object', { shipping_address: '1 Market St, San Francisco' }, 'shipping_address'],
    ];

    it.each(INVALID)('%s → 400 invalid_address', async (_case, patch, field) => {
      expectError(await create(rejects.key, { ...VALID, ...patch }), 400, 'invalid_address', field);
      await expectNothingStored(rejects.biz.id);
    });

    const ACCEPTED: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['US with a lowercase region', { ...US, region: 'ca' }, { region: 'CA', postal_code: '94105', country: 'US' }],
      ['CA with a lowercase region', { ...CA, region: 'on' }, { region: 'ON', country: 'CA' }],
      ['AU with a lowercase region', { ...AU, region: 'nsw' }, { region: 'NSW', country: 'AU' }],
      ['GB without a region', GB, { region: null, postal_code: 'SW1A 2AA', country: 'GB' }],
      ['DE with a postal code and no region', DE, { region: null, postal_code: '10117', country: 'DE' }],
      ['IE without a postal code (Eircode optional)', IE, { postal_code: null, country: 'IE' }],
      ['a lowercase country code', { ...GB, country: 'gb' }, { country: 'GB' }],
    ];

    it.each(ACCEPTED)('accepts %s', async (_case, address, expected) => {
      const { key } = await account(t);
      const link = await createLink(key, { shipping_address: address, billing_address: address });
      const order = await orderOf(link.order_id);
      expect(order.ship_to).toMatchObject(expected);
      expect(order.bill_to).toMatchObject(expected);
    });
  });

  describe('success_url and mode', () => {
    it('accepts http:// in Test mode', async () => {
      const { key } = await account(t);
      expect((await createLink(key, { success_url: 'http://shop.example/thanks' })).success_url).toBe('http://shop.example/thanks');
    });

    it('refuses http:// in Live mode with invalid_url and stores nothing', async () => {
      const { biz, key } = await account(t, {}, 'live');
      expectError(await create(key, { ...VALID, success_url: 'http://shop.example/thanks' }), 400, 'invalid_url', 'success_url');
      await expectNothingStored(biz.id);
    });

    it('accepts https:// in Live mode', async () => {
      const { key } = await account(t, {}, 'live');
      expect((await createLink(key, { success_url: 'https://shop.example/thanks' })).success_url).toBe('https://shop.example/thanks');
    });
  });

  describe('account rules', () => {
    const REFUSED: Array<[string, BusinessChanges, 'test' | 'live', number, string]> = [
      ['Live mode without a payout wallet', { payoutWallet: null }, 'live', 409, 'no_payout_wallet'],
      ['commerce paused', { commerce: 'paused' }, 'test', 409, 'commerce_paused'],
      ['commerce paused (Live)', { commerce: 'paused' }, 'live', 409, 'commerce_paused'],
      ['payment links integration disabled', { disable: ['payment_links'] }, 'test', 403, 'integration_disabled'],
      ['API integration disabled', { disable: ['api'] }, 'test', 403, 'integration_disabled'],
      ['archived account', { status: 'archived' }, 'test', 403, 'merchant_read_only'],
    ];

    it.each(REFUSED)('%s → %i', async (_case, changes, mode, status, code) => {
      const { biz, key } = await account(t, {}, mode);
      await biz.update(changes);
      expectError(await create(key, VALID), status, code);
      await expectNothingStored(biz.id);
    });

    it('needs no payout wallet in Test mode', async () => {
      const { key } = await account(t, { payoutWallet: null });
      await createLink(key);
    });

    it('is not blocked by disabling only the checkouts integration', async () => {
      const { key } = await account(t, { disable: ['checkouts'] });
      await createLink(key);
    });

    it('needs the checkouts:write scope (a read-only key is refused)', async () => {
      const biz = await t.business();
      const readOnly = (await biz.key({ access: 'read_only' })).secret;
      expectError(await create(readOnly, VALID), 403, 'insufficient_scope');
      await expectNothingStored(biz.id);
    });
  });
});

describe('GET /v1/payment_links/:id', () => {
  it('returns the link as it was created', async () => {
    const { key } = await account(t);
    const link = await createLink(key, { reference: 'r-1', customer_email: 'a@b.example' });
    const res = await t.request('GET', `${LINKS}/${link.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(link);
  });

  it('is allowed to a read-only key', async () => {
    const biz = await t.business();
    const link = await createLink((await biz.key()).secret);
    const res = await t.request('GET', `${LINKS}/${link.id}`, { key: (await biz.key({ access: 'read_only' })).secret });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(link.id);
  });

  it.each(['another business', 'the other mode', 'an unknown id', 'an unknown id of 200 characters', 'a checkout id', 'a payment that is not a link'])('404 not_found for %s', async (which) => {
    const biz = await t.business();
    const testKey = (await biz.key()).secret;
    let id: string;
    if (which === 'another business') id = (await createLink((await (await t.business()).key()).secret)).id;
    else if (which === 'the other mode') id = (await createLink((await biz.key({ mode: 'live' })).secret)).id;
    else if (which === 'an unknown id') id = newId('pay');
    else if (which === 'an unknown id of 200 characters') id = `pay_${'x'.repeat(196)}`;
    else if (which === 'a checkout id') {
      const checkout = await t.request('POST', '/v1/checkouts', { key: testKey, body: { name: 'Mug', amount: '10.00', currency: 'USD' } });
      expect(checkout.status).toBe(201);
      id = checkout.body.id;
    } else id = await insertApiPayment(biz.id);
    expectError(await t.request('GET', `${LINKS}/${id}`, { key: testKey }), 404, 'not_found');
  });

  it('stays readable, in retrieve and list, for an archived account', async () => {
    const { biz, key } = await account(t);
    const link = await createLink(key);
    await biz.update({ status: 'archived' });
    const read = await t.request('GET', `${LINKS}/${link.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toStrictEqual(link);
    expect(ids(await list(key))).toEqual([link.id]);
  });

  it('reads a link past expires_at as expired, in retrieve and in list', async () => {
    const { key } = await account(t);
    const link = await createLink(key, { expires_in_days: 1 });
    t.clock.advance(DAY - SECOND);
    expect((await t.request('GET', `${LINKS}/${link.id}`, { key })).body.status).toBe('open');
    t.clock.advance(2 * SECOND);
    const read = await t.request('GET', `${LINKS}/${link.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toStrictEqual({ ...link, status: 'expired' });
    const listed = await list(key);
    expect(listed.body.data).toStrictEqual([{ ...link, status: 'expired' }]);
  });
});

describe('GET /v1/payment_links', () => {
  it('lists newest first with a default page of 20', async () => {
    const { key } = await account(t);
    const created: string[] = [];
    for (let i = 0; i < 25; i++) {
      created.push((await createLink(key)).id);
      t.clock.advance(SECOND);
    }
    const newestFirst = created.toReversed();
    const page = await list(key);
    expect(page.status).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(ids(page)).toEqual(newestFirst.slice(0, 20));
    expect(page.body.has_more).toBe(true);
    expect(page.body.next_cursor).toBe(newestFirst[19]);
    expect(page.body.data[0].object).toBe('payment_link');

    const all = await list(key, { limit: 100 });
    expect(ids(all)).toEqual(newestFirst);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });

    const one = await list(key, { limit: 1 });
    expect(ids(one)).toEqual([newestFirst[0]]);
    expect(one.body).toMatchObject({ has_more: true, next_cursor: newestFirst[0] });
  });

  it('answers an empty page for an account without links', async () => {
    const { key } = await account(t);
    const page = await list(key);
    expect(page.status).toBe(200);
    expect(page.body).toStrictEqual({ data: [], has_more: false, next_cursor: null });
  });

  it.each(['0', '101', 'abc', '1.5', '-1', ''])('limit=%j → 400 invalid_limit', async (limit) => {
    const { key } = await account(t);
    expectError(await t.request('GET', `${LINKS}?limit=${limit}`, { key }), 400, 'invalid_limit', 'limit');
  });

  it('pages through links with distinct created times', async () => {
    const { key } = await account(t);
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      created.push((await createLink(key)).id);
      t.clock.advance(SECOND);
    }
    const pages: Array<{ ids: string[]; has_more: boolean; next_cursor: string | null }> = [];
    let cursor: string | null = null;
    do {
      const res: ApiResponse = await list(key, cursor ? { limit: 3, starting_after: cursor } : { limit: 3 });
      expect(res.status).toBe(200);
      pages.push({ ids: ids(res), has_more: res.body.has_more, next_cursor: res.body.next_cursor });
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    const expected = created.toReversed();
    expect(pages).toEqual([
      { ids: expected.slice(0, 3), has_more: true, next_cursor: expected[2] },
      { ids: expected.slice(3, 6), has_more: true, next_cursor: expected[5] },
      { ids: expected.slice(6), has_more: false, next_cursor: null },
    ]);
  });

  it('pages through links sharing one created time without losing or repeating any', async () => {
    const { key } = await account(t);
    const created = new Set<string>();
    for (let i = 0; i < 7; i++) created.add((await createLink(key)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse = await list(key, cursor ? { limit: 2, starting_after: cursor } : { limit: 2 });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(created);
    expect(seen).toEqual((await list(key, { limit: 100 })).body.data.map((link: { id: string }) => link.id));
  });

  it('keeps paging stable while new links are created between pages', async () => {
    const { key } = await account(t);
    const older: string[] = [];
    for (let i = 0; i < 6; i++) {
      older.push((await createLink(key)).id);
      t.clock.advance(SECOND);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const res: ApiResponse = await list(key, cursor ? { limit: 2, starting_after: cursor } : { limit: 2 });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      cursor = res.body.next_cursor;
      // Newer links arrive between pages, some in the same instant as each other.
      await createLink(key);
      await createLink(key);
      t.clock.advance(SECOND);
      round++;
    } while (cursor !== null && round < 10);
    expect(seen).toEqual(older.toReversed());
  });

  it('keeps paging stable when new links share the created time of the rows being paged', async () => {
    const { key } = await account(t);
    const older = new Set<string>();
    for (let i = 0; i < 6; i++) older.add((await createLink(key)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const res: ApiResponse = await list(key, cursor ? { limit: 2, starting_after: cursor } : { limit: 2 });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      cursor = res.body.next_cursor;
      await createLink(key); // same created time as the older rows
      round++;
    } while (cursor !== null && round < 20);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of older) expect(seen).toContain(id);
  });

  it.each(['the other mode', 'another business', 'an unknown id', 'a payment that is not a link', 'a checkout'])(
    'starting_after of %s → 400 invalid_cursor',
    async (which) => {
      const biz = await t.business();
      const key = (await biz.key()).secret;
      await createLink(key);
      let cursor: string;
      if (which === 'the other mode') cursor = (await createLink((await biz.key({ mode: 'live' })).secret)).id;
      else if (which === 'another business') cursor = (await createLink((await (await t.business()).key()).secret)).id;
      else if (which === 'an unknown id') cursor = newId('pay');
      else if (which === 'a payment that is not a link') cursor = await insertApiPayment(biz.id);
      else {
        const checkout = await t.request('POST', '/v1/checkouts', { key, body: { name: 'Mug', amount: '10.00', currency: 'USD' } });
        expect(checkout.status).toBe(201);
        cursor = checkout.body.id;
      }
      expectError(await list(key, { starting_after: cursor }), 400, 'invalid_cursor', 'starting_after');
    },
  );

  it('shows only the credential mode and account', async () => {
    const biz = await t.business();
    const testKey = (await biz.key()).secret;
    const liveKey = (await biz.key({ mode: 'live' })).secret;
    const testLink = await createLink(testKey);
    const liveLink = await createLink(liveKey);
    await createLink((await (await t.business()).key()).secret);
    await insertApiPayment(biz.id);
    expect(ids(await list(testKey))).toEqual([testLink.id]);
    expect(ids(await list(liveKey))).toEqual([liveLink.id]);
  });

  it('filters by status; canceled and time-expired links count as expired', async () => {
    const { key } = await account(t);
    const timeExpired = await createLink(key, { expires_in_days: 1 });
    t.clock.advance(DAY + SECOND);
    const canceled = await createLink(key);
    t.clock.advance(SECOND);
    const open = await createLink(key);
    t.clock.advance(SECOND);
    const paid = await createLink(key);
    t.clock.advance(SECOND);
    const pending = await createLink(key);
    t.clock.advance(SECOND);
    expect((await cancel(key, canceled.id)).status).toBe(200);
    await t.db.updateTable('payments').set({ status: 'paid', paid_at: t.clock.now() }).where('id', '=', paid.id).execute();
    await t.db.updateTable('payments').set({ status: 'pending', provider_reached_at: t.clock.now() }).where('id', '=', pending.id).execute();

    const byStatus = async (status: string) => {
      const res = await list(key, { status });
      expect(res.status).toBe(200);
      for (const link of res.body.data) expect(link.status).toBe(status);
      return ids(res);
    };
    expect(await byStatus('open')).toEqual([open.id]);
    expect(await byStatus('expired')).toEqual([canceled.id, timeExpired.id]);
    expect(await byStatus('paid')).toEqual([paid.id]);
    expect(await byStatus('pending')).toEqual([pending.id]);
    expect(await byStatus('held')).toEqual([]);
    expect(await byStatus('failed')).toEqual([]);
  });

  it('filters by reference with an exact match', async () => {
    const { key } = await account(t);
    const exact = await createLink(key, { reference: 'order-1' });
    t.clock.advance(SECOND);
    await createLink(key, { reference: 'order-10' });
    await createLink(key, { reference: 'ORDER-1' });
    await createLink(key, { reference: 'order-' });
    await createLink(key);
    t.clock.advance(SECOND);
    const again = await createLink(key, { reference: 'order-1' });
    expect(ids(await list(key, { reference: 'order-1' }))).toEqual([again.id, exact.id]);
    expect(ids(await list(key, { reference: 'order' }))).toEqual([]);
  });

  it('filters by created_gte and created_lte, inclusive, in Unix seconds', async () => {
    const { key } = await account(t);
    toMidSecond();
    const a = await createLink(key);
    t.clock.advance(SECOND);
    const b = await createLink(key);
    t.clock.advance(SECOND);
    const c = await createLink(key);
    t.clock.advance(SECOND);
    expect([b.created - a.created, c.created - b.created]).toEqual([1, 1]);
    const s = b.created;
    expect(ids(await list(key, { created_gte: s, created_lte: s }))).toEqual([b.id]);
    expect(ids(await list(key, { created_gte: s }))).toEqual([c.id, b.id]);
    expect(ids(await list(key, { created_lte: s }))).toEqual([b.id, a.id]);
    expect(ids(await list(key, { created_gte: a.created, created_lte: c.created }))).toEqual([c.id, b.id, a.id]);
    expect(ids(await list(key, { created_gte: c.created + 1 }))).toEqual([]);
    expect(ids(await list(key, { created_lte: a.created - 1 }))).toEqual([]);
  });

  it('combines filters with pagination', async () => {
    const { key } = await account(t);
    const tagged: string[] = [];
    for (let i = 0; i < 5; i++) {
      tagged.push((await createLink(key, { reference: 'batch' })).id);
      await createLink(key, { reference: 'other' });
      t.clock.advance(SECOND);
    }
    const first = await list(key, { reference: 'batch', limit: 3 });
    expect(ids(first)).toEqual(tagged.toReversed().slice(0, 3));
    expect(first.body.has_more).toBe(true);
    const second = await list(key, { reference: 'batch', limit: 3, starting_after: first.body.next_cursor });
    expect(ids(second)).toEqual(tagged.toReversed().slice(3));
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
  });
});

describe('POST /v1/payment_links/:id/cancel', () => {
  it('cancels an open link: status expired and canceled_at set', async () => {
    const { key } = await account(t);
    const link = await createLink(key);
    t.clock.advance(5 * SECOND);
    const res = await cancel(key, link.id);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ...link, status: 'expired', canceled_at: nowSeconds(t) });
    expect((await t.request('GET', `${LINKS}/${link.id}`, { key })).body).toStrictEqual(res.body);
    const row = await t.db.selectFrom('payments').select(['status', 'canceled_at']).where('id', '=', link.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('expired');
    expect(row.canceled_at).not.toBeNull();
  });

  it('cancels a link whose payer entered an email but went to no card provider', async () => {
    const { key } = await account(t);
    const link = await createLink(key);
    await t.db.updateTable('payments').set({ started_at: t.clock.now() }).where('id', '=', link.id).execute();
    const res = await cancel(key, link.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'expired', started_at: nowSeconds(t), canceled_at: nowSeconds(t) });
  });

  it('returns the same link unchanged when canceled again later', async () => {
    const { key } = await account(t);
    const link = await createLink(key);
    const first = await cancel(key, link.id);
    expect(first.status).toBe(200);
    t.clock.advance(90 * SECOND);
    const second = await cancel(key, link.id);
    expect(second.status).toBe(200);
    expect(second.body).toStrictEqual(first.body);
  });

  it('takes no body, and ignores unknown fields when one is sent', async () => {
    const { key } = await account(t);
    const link = await createLink(key);
    const res = await t.request('POST', `${LINKS}/${link.id}/cancel`, { key, body: { id: 'pay_other', reason: 'duplicate' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: link.id, status: 'expired', canceled_at: nowSeconds(t) });
  });

  it('gives ten concurrent cancels one identical answer', async () => {
    const { key } = await account(t);
    const link = await createLink(key);
    const results = await Promise.all(Array.from({ length: 10 }, () => cancel(key, link.id)));
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual(results[0]!.body);
    }
    expect(results[0]!.body).toMatchObject({ status: 'expired', canceled_at: nowSeconds(t) });
  });

  it.each([
    ['the payer went to a card provider', { provider_reached_at: true }],
    ['the payment is pending at a card provider', { status: 'pending', provider_reached_at: true }],
    ['the link is already paid', { status: 'paid', paid_at: true }],
  ] as const)('409 not_cancelable when %s', async (_case, change) => {
    const { key } = await account(t);
    const link = await createLink(key);
    const now = t.clock.now();
    await t.db.updateTable('payments').set({
      ...('status' in change ? { status: change.status } : {}),
      ...('provider_reached_at' in change ? { provider_reached_at: now } : {}),
      ...('paid_at' in change ? { paid_at: now } : {}),
    }).where('id', '=', link.id).execute();
    expectError(await cancel(key, link.id), 409, 'not_cancelable');
    const row = await t.db.selectFrom('payments').select(['status', 'canceled_at']).where('id', '=', link.id).executeTakeFirstOrThrow();
    expect(row.canceled_at).toBeNull();
    expect(row.status).toBe('status' in change ? change.status : 'open');
  });

  it.each(['the other mode', 'another business', 'an unknown id', 'a payment that is not a link'])('404 not_found for %s', async (which) => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    let id: string;
    if (which === 'the other mode') id = (await createLink((await biz.key({ mode: 'live' })).secret)).id;
    else if (which === 'another business') id = (await createLink((await (await t.business()).key()).secret)).id;
    else if (which === 'an unknown id') id = newId('pay');
    else id = await insertApiPayment(biz.id);
    expectError(await cancel(key, id), 404, 'not_found');
    if (which !== 'an unknown id') {
      const row = await t.db.selectFrom('payments').select('canceled_at').where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.canceled_at).toBeNull();
    }
  });

  it('needs the checkouts:write scope (a read-only key is refused)', async () => {
    const biz = await t.business();
    const link = await createLink((await biz.key()).secret);
    expectError(await cancel((await biz.key({ access: 'read_only' })).secret, link.id), 403, 'insufficient_scope');
  });
});
