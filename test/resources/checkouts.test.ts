import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/clock.ts';
import { newId, randomBase62 } from '../../src/core/ids.ts';
import type { CheckoutsTable } from '../../src/db/schema.ts';
import type { BusinessChanges } from '../support/harness.ts';
import { account, collection, expectCreated, expectError, ids, nowSeconds, type Account } from '../support/api.ts';
import { startTestApp, type ApiResponse, type TestApp } from '../support/harness.ts';

// Checkouts through real HTTP (spec 2.2, 2.9, 4.2, 7.1, 7.4, 8).

let t: TestApp;
// Rate limits are covered elsewhere; these tests send far more than 120 requests a minute.
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => { await t.close(); });

const CHECKOUTS = '/v1/checkouts';
const VALID = { name: 'Blue teapot', amount: '49.00', currency: 'USD' } as const;

/** Every field of the checkout object, spec 2.2. */
const CHECKOUT_FIELDS = [
  'id', 'object', 'kind', 'slug', 'url', 'livemode', 'active', 'name', 'description', 'amount', 'currency',
  'success_url', 'theme', 'button_label', 'crypto', 'routing', 'collect', 'options', 'plans', 'created', 'updated',
];

const { create, list } = collection(() => t, CHECKOUTS);

async function createCheckout(key: string, body: Record<string, unknown> = {}): Promise<any> {
  return expectCreated(await create(key, { ...VALID, ...body }));
}

async function checkoutCount(businessId: string): Promise<number> {
  const row = await t.db.selectFrom('checkouts').select((eb) => eb.fn.countAll<string>().as('n')).where('business_id', '=', businessId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A checkout of a kind the API cannot create (made in the dashboard), written directly. */
async function insertCheckout(businessId: string, kind: CheckoutsTable['kind'], livemode = false): Promise<string> {
  const id = newId('chk');
  const now = t.clock.now();
  await t.db.insertInto('checkouts').values({
    id, business_id: businessId, livemode, kind, slug: `${kind}-${randomBase62(10).toLowerCase()}`, name: `A ${kind}`,
    description: null, amount_minor: 900, currency: 'USD', success_url: null, theme: 'light', button_label: null,
    crypto: true, routing: JSON.stringify({ choice: 'smart', provider: null, fallback: false }), collect: null,
    options: kind === 'pricing_table' ? JSON.stringify(['Monthly', 'Yearly']) : null,
    created_at: now, updated_at: now,
  }).execute();
  return id;
}

describe('POST /v1/checkouts', () => {
  it('creates a page with the dashboard defaults: exactly the spec 2.2 object', async () => {
    const { key } = await account(t);
    const res = await create(key, VALID);
    expect(res.status).toBe(201);
    const now = nowSeconds(t);
    expect(res.body).toStrictEqual({
      id: expect.stringMatching(/^chk_\w+$/),
      object: 'checkout',
      kind: 'page',
      slug: expect.any(String),
      url: expect.any(String),
      livemode: false,
      active: true,
      name: 'Blue teapot',
      description: null,
      amount: '49.00',
      currency: 'USD',
      success_url: null,
      theme: 'light',
      button_label: null,
      crypto: true,
      routing: { choice: 'smart', provider: null, fallback: false },
      collect: null,
      options: null,
      plans: [],
      created: now,
      updated: now,
    });
    expect(Object.keys(res.body).sort()).toEqual([...CHECKOUT_FIELDS].sort());
    expect(res.body.slug).not.toBe('');
    expect(res.body.url.startsWith(`${t.config.baseUrl}/`)).toBe(true);
    expect(res.body.url).toContain(res.body.slug);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('creates a page with every field set', async () => {
    const { key } = await account(t);
    const checkout = await createCheckout(key, {
      name: 'Yearly plan',
      amount: '120',
      currency: 'gbp',
      description: 'One year of tea',
      success_url: 'https://shop.example/thanks',
      kind: 'page',
      theme: 'dark',
      button_label: 'Subscribe',
      crypto: false,
      routing: { choice: 'fixed', provider: 'moonpay', fallback: false },
      collect: { shipping_address: true, phone: true },
    });
    expect(checkout).toMatchObject({
      object: 'checkout',
      kind: 'page',
      name: 'Yearly plan',
      amount: '120.00',
      currency: 'GBP',
      description: 'One year of tea',
      success_url: 'https://shop.example/thanks',
      theme: 'dark',
      button_label: 'Subscribe',
      crypto: false,
      routing: { choice: 'fixed', provider: 'moonpay', fallback: false },
      collect: { shipping_address: true, phone: true },
      options: null,
      plans: [],
      active: true,
    });
  });

  it('creates a Live checkout with a Live key', async () => {
    const { key } = await account(t, {}, 'live');
    expect((await createCheckout(key, { success_url: 'https://shop.example/thanks' })).livemode).toBe(true);
  });

  it('gives every checkout its own slug, even with the same name', async () => {
    const { key } = await account(t);
    const a = await createCheckout(key);
    const b = await createCheckout(key);
    expect(a.slug).not.toBe(b.slug);
    expect(a.url).not.toBe(b.url);
  });

  it('gives a non-empty slug to a name with no ASCII letters', async () => {
    const { key } = await account(t);
    const checkout = await createCheckout(key, { name: '茶 🍵' });
    expect(checkout.slug).not.toBe('');
    expect(checkout.url).toContain(checkout.slug);
  });

  it.each([
    ['1.00', '1.00'],
    ['7.5', '7.50'],
    ['100000.00', '100000.00'],
  ])('accepts amount %j and answers %j', async (amount, shown) => {
    const { key } = await account(t);
    expect((await createCheckout(key, { amount })).amount).toBe(shown);
  });

  it.each(['usd', 'Eur', 'GBP', 'cad', 'aUD'])('accepts currency %j in any letter case', async (currency) => {
    const { key } = await account(t);
    expect((await createCheckout(key, { currency })).currency).toBe(currency.toUpperCase());
  });

  it.each([
    [{ choice: 'smart' }, { choice: 'smart', provider: null, fallback: false }],
    [{ choice: 'buyer' }, { choice: 'buyer', provider: null, fallback: false }],
    [{ choice: 'fixed', provider: 'moonpay' }, { choice: 'fixed', provider: 'moonpay', fallback: true }],
    [{ choice: 'fixed', provider: 'transak', fallback: false }, { choice: 'fixed', provider: 'transak', fallback: false }],
    [{ choice: 'fixed', provider: 'wert', fallback: true }, { choice: 'fixed', provider: 'wert', fallback: true }],
  ])('routing %j is stored as %j', async (routing, expected) => {
    const { key } = await account(t);
    expect((await createCheckout(key, { routing })).routing).toStrictEqual(expected);
  });

  it.each([
    [{ phone: true }, { phone: true }],
    [{ name: true, billing_address: true }, { name: true, billing_address: true }],
    [{}, null],
    [null, null],
  ])('collect %j is answered as %j', async (collect, expected) => {
    const { key } = await account(t);
    expect((await createCheckout(key, { collect })).collect).toStrictEqual(expected);
  });

  it.each([true, false])('accepts crypto %j', async (crypto) => {
    const { key } = await account(t);
    expect((await createCheckout(key, { crypto })).crypto).toBe(crypto);
  });

  it('ignores unknown request fields, including ones that try to set mode, active or plans', async () => {
    const { key } = await account(t);
    const checkout = await createCheckout(key, { colour: 'teal', livemode: true, active: false, plans: [{ id: 'x' }], options: ['A', 'B'], slug: 'mine' });
    expect(checkout).toMatchObject({ livemode: false, active: true, plans: [], options: null });
    expect(checkout.slug).not.toBe('mine');
    expect(checkout).not.toHaveProperty('colour');
  });

  it('ignores Idempotency-Key: the same key twice makes two checkouts', async () => {
    const { key } = await account(t);
    const headers = { 'idempotency-key': 'checkout-once' };
    const first = await t.request('POST', CHECKOUTS, { key, body: VALID, headers });
    const second = await t.request('POST', CHECKOUTS, { key, body: VALID, headers });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
  });

  describe('text limits of spec 8, counted in characters', () => {
    const LIMITS = [
      ['name', 80],
      ['description', 280],
      ['button_label', 32],
    ] as const;

    it.each(LIMITS)('%s accepts exactly %i characters, also as emoji', async (field, limit) => {
      const { key } = await account(t);
      for (const text of ['x'.repeat(limit), '😀'.repeat(limit)]) {
        expect((await createCheckout(key, { [field]: text }))[field]).toBe(text);
      }
    });

    it.each(LIMITS)('%s refuses %i + 1 characters with too_long', async (field, limit) => {
      const { biz, key } = await account(t);
      for (const unit of ['x', 'é', '😀']) {
        expectError(await create(key, { ...VALID, [field]: unit.repeat(limit + 1) }), 400, 'too_long', field);
      }
      expect(await checkoutCount(biz.id)).toBe(0);
    });
  });

  describe('validation errors of spec 7.4', () => {
    let rejects: Account;
    beforeAll(async () => { rejects = await account(t); });

    const INVALID: Array<[string, Record<string, unknown>, string, string]> = [
      ['kind widget', { kind: 'widget' }, 'invalid_kind', 'kind'],
      ['kind pricing_table', { kind: 'pricing_table' }, 'invalid_kind', 'kind'],
      ['kind unknown', { kind: 'popup' }, 'invalid_kind', 'kind'],
      ['name missing', { name: undefined }, 'missing_name', 'name'],
      ['name empty', { name: '' }, 'missing_name', 'name'],
      ['name whitespace', { name: ' \t ' }, 'missing_name', 'name'],
      ['description a number', { description: 5 }, 'invalid_description', 'description'],
      ['description an object', { description: { text: 'x' } }, 'invalid_description', 'description'],
      ['button_label a number', { button_label: 5 }, 'invalid_button_label', 'button_label'],
      ['button_label a boolean', { button_label: true }, 'invalid_button_label', 'button_label'],
      ['amount missing', { amount: undefined }, 'invalid_amount', 'amount'],
      ['amount 0.99', { amount: '0.99' }, 'invalid_amount', 'amount'],
      ['amount 100000.01', { amount: '100000.01' }, 'invalid_amount', 'amount'],
      ['amount with three decimals', { amount: '1.234' }, 'invalid_amount', 'amount'],
      ['amount as a JSON number', { amount: 49 }, 'invalid_amount', 'amount'],
      ['amount not a number', { amount: 'abc' }, 'invalid_amount', 'amount'],
      ['currency missing', { currency: undefined }, 'invalid_currency', 'currency'],
      ['currency unknown', { currency: 'CHF' }, 'invalid_currency', 'currency'],
      ['success_url relative', { success_url: '/thanks' }, 'invalid_url', 'success_url'],
      ['success_url ftp:', { success_url: 'ftp://shop.example/thanks' }, 'invalid_url', 'success_url'],
      ['success_url with credentials', { success_url: 'https://user:secret@shop.example/thanks' }, 'invalid_url', 'success_url'],
      ['theme unknown', { theme: 'blue' }, 'invalid_theme', 'theme'],
      ['theme in capitals', { theme: 'DARK' }, 'invalid_theme', 'theme'],
      ['crypto "yes"', { crypto: 'yes' }, 'invalid_value', 'crypto'],
      ['crypto 1', { crypto: 1 }, 'invalid_value', 'crypto'],
      ['routing without a choice', { routing: {} }, 'invalid_routing', 'routing.choice'],
      ['routing with an unknown choice', { routing: { choice: 'cheapest' } }, 'invalid_routing', 'routing.choice'],
      ['routing fixed without a provider', { routing: { choice: 'fixed' } }, 'invalid_routing', 'routing.provider'],
      ['routing fixed to a provider without cards', { routing: { choice: 'fixed', provider: 'coinbase' } }, 'invalid_routing', 'routing.provider'],
      ['routing fixed to another provider without cards', { routing: { choice: 'fixed', provider: 'binance_pay' } }, 'invalid_routing', 'routing.provider'],
      ['routing fixed to an unknown provider', { routing: { choice: 'fixed', provider: 'acme_pay' } }, 'invalid_routing', 'routing.provider'],
      ['routing fallback not a boolean', { routing: { choice: 'fixed', provider: 'moonpay', fallback: 'yes' } }, 'invalid_routing', 'routing.fallback'],
      ['routing not an object', { routing: 'smart' }, 'invalid_routing', 'routing'],
      ['collect unknown key', { collect: { colour: true } }, 'invalid_collect', 'collect.colour'],
      ['collect non-boolean value', { collect: { phone: 'yes' } }, 'invalid_collect', 'collect.phone'],
      ['collect not an object', { collect: ['phone'] }, 'invalid_collect', 'collect'],
    ];

    it.each(INVALID)('%s → 400', async (_case, patch, code, field) => {
      expectError(await create(rejects.key, { ...VALID, ...patch }), 400, code, field);
      expect(await checkoutCount(rejects.biz.id)).toBe(0);
    });
  });

  describe('success_url and mode', () => {
    it('accepts http:// in Test mode', async () => {
      const { key } = await account(t);
      expect((await createCheckout(key, { success_url: 'http://shop.example/thanks' })).success_url).toBe('http://shop.example/thanks');
    });

    it('refuses http:// in Live mode with invalid_url', async () => {
      const { biz, key } = await account(t, {}, 'live');
      expectError(await create(key, { ...VALID, success_url: 'http://shop.example/thanks' }), 400, 'invalid_url', 'success_url');
      expect(await checkoutCount(biz.id)).toBe(0);
    });
  });

  describe('account rules', () => {
    const REFUSED: Array<[string, BusinessChanges, 'test' | 'live', number, string]> = [
      ['Live mode without a payout wallet', { payoutWallet: null }, 'live', 409, 'no_payout_wallet'],
      ['commerce paused', { commerce: 'paused' }, 'test', 409, 'commerce_paused'],
      ['checkouts integration disabled', { disable: ['checkouts'] }, 'test', 403, 'integration_disabled'],
      ['API integration disabled', { disable: ['api'] }, 'test', 403, 'integration_disabled'],
      ['archived account', { status: 'archived' }, 'test', 403, 'merchant_read_only'],
    ];

    it.each(REFUSED)('%s → %i', async (_case, changes, mode, status, code) => {
      const { biz, key } = await account(t, {}, mode);
      await biz.update(changes);
      expectError(await create(key, VALID), status, code);
      expect(await checkoutCount(biz.id)).toBe(0);
    });

    it('needs no payout wallet in Test mode', async () => {
      const { key } = await account(t, { payoutWallet: null });
      await createCheckout(key);
    });

    it('is not blocked by disabling only the payment links integration', async () => {
      const { key } = await account(t, { disable: ['payment_links'] });
      await createCheckout(key);
    });

    it('needs the checkouts:write scope (a read-only key is refused)', async () => {
      const biz = await t.business();
      expectError(await create((await biz.key({ access: 'read_only' })).secret, VALID), 403, 'insufficient_scope');
      expect(await checkoutCount(biz.id)).toBe(0);
    });
  });
});

describe('GET /v1/checkouts/:id', () => {
  it('returns the checkout as it was created', async () => {
    const { key } = await account(t);
    const checkout = await createCheckout(key, { description: 'Loose leaf', theme: 'dark' });
    const res = await t.request('GET', `${CHECKOUTS}/${checkout.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(checkout);
  });

  it('returns a checkout deleted in the dashboard, with active false', async () => {
    const { key } = await account(t);
    const checkout = await createCheckout(key);
    await t.db.updateTable('checkouts').set({ active: false }).where('id', '=', checkout.id).execute();
    const res = await t.request('GET', `${CHECKOUTS}/${checkout.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ...checkout, active: false });
  });

  it.each(['another business', 'the other mode', 'an unknown id', 'a payment link id'])('404 not_found for %s', async (which) => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    let id: string;
    if (which === 'another business') id = (await createCheckout((await (await t.business()).key()).secret)).id;
    else if (which === 'the other mode') id = (await createCheckout((await biz.key({ mode: 'live' })).secret)).id;
    else if (which === 'an unknown id') id = newId('chk');
    else {
      const link = await t.request('POST', '/v1/payment_links', { key, body: { amount: '5.00', currency: 'USD', description: 'Tea' } });
      expect(link.status).toBe(201);
      id = link.body.id;
    }
    expectError(await t.request('GET', `${CHECKOUTS}/${id}`, { key }), 404, 'not_found');
  });
});

describe('GET /v1/checkouts', () => {
  it('lists active checkouts newest first with a default page of 20', async () => {
    const { key } = await account(t);
    const created: string[] = [];
    for (let i = 0; i < 23; i++) {
      created.push((await createCheckout(key, { name: `Item ${i}` })).id);
      t.clock.advance(SECOND);
    }
    const newestFirst = created.toReversed();
    const page = await list(key);
    expect(page.status).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(ids(page)).toEqual(newestFirst.slice(0, 20));
    expect(page.body).toMatchObject({ has_more: true, next_cursor: newestFirst[19] });
    expect(page.body.data[0].object).toBe('checkout');

    const all = await list(key, { limit: 100 });
    expect(ids(all)).toEqual(newestFirst);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('answers an empty page for an account without checkouts', async () => {
    const { key } = await account(t);
    expect((await list(key)).body).toStrictEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('leaves out a checkout deleted in the dashboard', async () => {
    const { key } = await account(t);
    const kept = await createCheckout(key);
    t.clock.advance(SECOND);
    const deleted = await createCheckout(key);
    await t.db.updateTable('checkouts').set({ active: false }).where('id', '=', deleted.id).execute();
    expect(ids(await list(key))).toEqual([kept.id]);
  });

  it('lists every kind and filters by kind', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    const page = (await createCheckout(key)).id;
    t.clock.advance(SECOND);
    const widget = await insertCheckout(biz.id, 'widget');
    t.clock.advance(SECOND);
    const table = await insertCheckout(biz.id, 'pricing_table');
    t.clock.advance(SECOND);
    const all = await list(key);
    expect(ids(all)).toEqual([table, widget, page]);
    expect(all.body.data.map((c: { kind: string }) => c.kind)).toEqual(['pricing_table', 'widget', 'page']);
    expect(ids(await list(key, { kind: 'page' }))).toEqual([page]);
    expect(ids(await list(key, { kind: 'widget' }))).toEqual([widget]);
    expect(ids(await list(key, { kind: 'pricing_table' }))).toEqual([table]);
  });

  it('shows only the credential mode and account', async () => {
    const biz = await t.business();
    const testKey = (await biz.key()).secret;
    const liveKey = (await biz.key({ mode: 'live' })).secret;
    const testCheckout = await createCheckout(testKey);
    const liveCheckout = await createCheckout(liveKey);
    await createCheckout((await (await t.business()).key()).secret);
    expect(ids(await list(testKey))).toEqual([testCheckout.id]);
    expect(ids(await list(liveKey))).toEqual([liveCheckout.id]);
  });

  it('pages with has_more and next_cursor, with distinct and identical created times', async () => {
    const { key } = await account(t);
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      created.push((await createCheckout(key)).id);
      t.clock.advance(SECOND);
    }
    // Four more in one instant: their order among themselves comes from the id.
    const sameInstant = new Set<string>();
    for (let i = 0; i < 4; i++) sameInstant.add((await createCheckout(key)).id);

    const seen: string[] = [];
    const hasMore: boolean[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse = await list(key, cursor ? { limit: 3, starting_after: cursor } : { limit: 3 });
      expect(res.status).toBe(200);
      const pageIds = ids(res);
      seen.push(...pageIds);
      hasMore.push(res.body.has_more);
      cursor = res.body.next_cursor;
      if (cursor !== null) expect(cursor).toBe(pageIds.at(-1));
      pages++;
    } while (cursor !== null && pages < 10);
    expect(hasMore).toEqual([true, true, false]);
    expect(seen).toHaveLength(7);
    expect(new Set(seen.slice(0, 4))).toEqual(sameInstant);
    expect(seen.slice(4)).toEqual(created.toReversed());
  });

  it.each(['0', '101', 'abc', '2.5'])('limit=%j → 400 invalid_limit', async (limit) => {
    const { key } = await account(t);
    expectError(await t.request('GET', `${CHECKOUTS}?limit=${limit}`, { key }), 400, 'invalid_limit', 'limit');
  });

  it.each(['1', '100'])('accepts limit=%s', async (limit) => {
    const { key } = await account(t);
    await createCheckout(key);
    const res = await list(key, { limit });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
  });

  it.each(['the other mode', 'another business', 'an unknown id', 'a payment link id'])(
    'starting_after of %s → 400 invalid_cursor',
    async (which) => {
      const biz = await t.business();
      const key = (await biz.key()).secret;
      await createCheckout(key);
      let cursor: string;
      if (which === 'the other mode') cursor = (await createCheckout((await biz.key({ mode: 'live' })).secret)).id;
      else if (which === 'another business') cursor = (await createCheckout((await (await t.business()).key()).secret)).id;
      else if (which === 'an unknown id') cursor = newId('chk');
      else {
        const link = await t.request('POST', '/v1/payment_links', { key, body: { amount: '5.00', currency: 'USD', description: 'Tea' } });
        expect(link.status).toBe(201);
        cursor = link.body.id;
      }
      expectError(await list(key, { starting_after: cursor }), 400, 'invalid_cursor', 'starting_after');
    },
  );

  it('is allowed to a read-only key', async () => {
    const biz = await t.business();
    const checkout = await createCheckout((await biz.key()).secret);
    const res = await list((await biz.key({ access: 'read_only' })).secret);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([checkout.id]);
  });
});
