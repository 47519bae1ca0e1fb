import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../../src/core/clock.ts';
import { account, expectCreated, expectError } from '../support/api.ts';
import { startTestApp, type ApiResponse, type TestApp } from '../support/harness.ts';

// Idempotency-Key on checkout-session creation, spec 4.6 (and 7.1, 8: 1 to 120 printable
// ASCII characters, remembered 24 hours), through real HTTP with the database checked.

let t: TestApp;
// Rate limits are covered elsewhere; the concurrent tests send bursts.
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => { await t?.close(); });

const SESSIONS = '/v1/checkout_sessions';

const ORDER = {
  id: 'store-7001',
  items: [
    { name: 'Coffee beans', quantity: 2, unit_amount: '15.00', amount: '30.00' },
    { name: 'Filter papers', quantity: 1, unit_amount: '10.00', amount: '10.00' },
  ],
  subtotal: '40.00', total: '40.00',
};
const BODY = {
  amount: '40.00', currency: 'USD', reference: 'cart-1',
  metadata: { cart: 'c-1', channel: 'web', items: 3 },
  customer: { email: 'ann@buyer.example', name: 'Ann Buyer' },
  order: ORDER,
};

function createWithKey(key: string, idempotencyKey: string | null, body: unknown = BODY): Promise<ApiResponse> {
  const headers: Record<string, string> = idempotencyKey === null ? {} : { 'Idempotency-Key': idempotencyKey };
  return t.request('POST', SESSIONS, { key, body, headers });
}

async function counts(businessId: string): Promise<{ payments: number; orders: number; keys: number }> {
  const count = async (table: 'payments' | 'orders' | 'idempotency_keys') => {
    const row = await t.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('business_id', '=', businessId).executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return { payments: await count('payments'), orders: await count('orders'), keys: await count('idempotency_keys') };
}

async function getSession(key: string, id: string): Promise<any> {
  const res = await t.request('GET', `${SESSIONS}/${id}`, { key });
  expect(res.status).toBe(200);
  return res.body;
}

async function call(key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await t.request(method, path, { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Checks a replay: 200 with exactly the session as it reads now. */
async function expectReplay(res: ApiResponse, key: string, id: string): Promise<any> {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toStrictEqual(await getSession(key, id));
  return res.body;
}

describe('same key', () => {
  it('first request 201; same key and body 200 with the same session; nothing new stored', async () => {
    const { biz, key } = await account(t);
    const first = expectCreated(await createWithKey(key, 'order-7001-attempt-1'));
    expect(first.status).toBe('open');
    const again = await expectReplay(await createWithKey(key, 'order-7001-attempt-1'), key, first.id);
    expect(again).toStrictEqual(first);
    expect(await counts(biz.id)).toEqual({ payments: 1, orders: 1, keys: 1 });
  });

  it('the replay carries the session\'s current status: started, then paid', async () => {
    const { key } = await account(t);
    const first = expectCreated(await createWithKey(key, 'k-current'));
    await call(key, 'POST', `${SESSIONS}/${first.id}/start`, { email: 'ann@buyer.example' });
    const afterStart = await expectReplay(await createWithKey(key, 'k-current'), key, first.id);
    expect(afterStart).toMatchObject({ id: first.id, status: 'open', started_at: expect.any(Number) });
    await call(key, 'POST', `/v1/payments/${first.id}/simulate`, { outcome: 'paid' });
    const afterPaid = await expectReplay(await createWithKey(key, 'k-current'), key, first.id);
    expect(afterPaid).toMatchObject({ id: first.id, status: 'paid', paid_at: expect.any(Number) });
  });

  it('the replay of an expired session answers it expired, not a new one', async () => {
    const { biz, key } = await account(t);
    const first = expectCreated(await createWithKey(key, 'k-expired'));
    await call(key, 'POST', `/v1/payments/${first.id}/simulate`, { outcome: 'expired' });
    expect((await expectReplay(await createWithKey(key, 'k-expired'), key, first.id)).status).toBe('expired');
    expect((await counts(biz.id)).payments).toBe(1);
  });

  it('ignores metadata key order (and the order of the body\'s own keys)', async () => {
    const { biz, key } = await account(t);
    const first = expectCreated(await createWithKey(key, 'k-order'));
    const reordered = {
      order: ORDER,
      customer: { name: 'Ann Buyer', email: 'ann@buyer.example' },
      metadata: { items: 3, channel: 'web', cart: 'c-1' },
      reference: 'cart-1', currency: 'USD', amount: '40.00',
    };
    await expectReplay(await createWithKey(key, 'k-order', reordered), key, first.id);
    expect((await counts(biz.id)).payments).toBe(1);
  });

  it.each<[string, Record<string, unknown>]>([
    ['the amount (with the order\'s shipping)', { amount: '41.00', order: { ...ORDER, shipping: '1.00', total: '41.00' } }],
    ['the reference', { reference: 'cart-2' }],
    ['a metadata value', { metadata: { ...BODY.metadata, cart: 'c-2' } }],
    ['one metadata key more', { metadata: { ...BODY.metadata, extra: true } }],
    ['only the order items', { order: { ...ORDER, items: [{ ...ORDER.items[0], name: 'Tea leaves' }, ORDER.items[1]] } }],
    ['only an item quantity', { order: { ...ORDER, items: [{ name: 'Coffee beans', quantity: 3, unit_amount: '10.00', amount: '30.00' }, ORDER.items[1]] } }],
    ['only the customer name', { customer: { ...BODY.customer, name: 'Ann B.' } }],
    ['only the customer email', { customer: { ...BODY.customer, email: 'bo@buyer.example' } }],
    ['a field added', { description: 'Coffee' }],
    ['a field left out', { reference: undefined }],
  ])('same key with a different body (%s): 409 idempotency_conflict, nothing stored', async (_case, change) => {
    const { biz, key } = await account(t);
    const first = expectCreated(await createWithKey(key, 'k-conflict'));
    expectError(await createWithKey(key, 'k-conflict', { ...BODY, ...change }), 409, 'idempotency_conflict');
    expect(await counts(biz.id)).toEqual({ payments: 1, orders: 1, keys: 1 });
    // The key still answers the first body with the first session.
    await expectReplay(await createWithKey(key, 'k-conflict'), key, first.id);
  });
});

describe('scope and lifetime', () => {
  it('is scoped per business and per mode', async () => {
    const biz = await t.business();
    const [testKey, liveKey] = [(await biz.key()).secret, (await biz.key({ mode: 'live' })).secret];
    const test = expectCreated(await createWithKey(testKey, 'shared-key'));
    const live = expectCreated(await createWithKey(liveKey, 'shared-key'));
    expect(live).toMatchObject({ livemode: true });
    expect(live.id).not.toBe(test.id);
    const other = expectCreated(await createWithKey((await account(t)).key, 'shared-key'));
    expect(other.id).not.toBe(test.id);
    // Each keeps answering its own session; a second key of the same business and mode shares the memory.
    await expectReplay(await createWithKey((await biz.key()).secret, 'shared-key'), testKey, test.id);
    await expectReplay(await createWithKey(liveKey, 'shared-key'), liveKey, live.id);
  });

  it('remembers a key 24 hours; after that the same key creates a new session', async () => {
    const { biz, key } = await account(t);
    const first = expectCreated(await createWithKey(key, 'k-day'));
    t.clock.advance(DAY - MINUTE);
    await expectReplay(await createWithKey(key, 'k-day'), key, first.id);
    t.clock.advance(2 * MINUTE);
    const second = expectCreated(await createWithKey(key, 'k-day'));
    expect(second.id).not.toBe(first.id);
    expect(second.status).toBe('open');
    // The key now stands for the new session.
    await expectReplay(await createWithKey(key, 'k-day'), key, second.id);
    expect((await counts(biz.id)).payments).toBe(2);
  });

  it('a key past its 24 hours takes a different body too', async () => {
    const { key } = await account(t);
    const first = expectCreated(await createWithKey(key, 'k-day-2'));
    t.clock.advance(DAY + MINUTE);
    const second = expectCreated(await createWithKey(key, 'k-day-2', { ...BODY, amount: '12.00', order: undefined }));
    expect(second).toMatchObject({ amount: '12.00' });
    expect(second.id).not.toBe(first.id);
  });

  it('without the header every create makes a new session', async () => {
    const { biz, key } = await account(t);
    const plain = { amount: '10.00', currency: 'USD' };
    const a = expectCreated(await createWithKey(key, null, plain));
    const b = expectCreated(await createWithKey(key, null, plain));
    expect(a.id).not.toBe(b.id);
    expect(await counts(biz.id)).toEqual({ payments: 2, orders: 2, keys: 0 });
  });

  it('an idempotency_key field in the body is not the header: unknown fields are ignored (spec 4.7, 9.3)', async () => {
    const { biz, key } = await account(t);
    const withField = { amount: '10.00', currency: 'USD', idempotency_key: 'in-body' };
    const a = expectCreated(await createWithKey(key, null, withField));
    const b = expectCreated(await createWithKey(key, null, withField));
    expect(a.id).not.toBe(b.id);
    // Not even read as a key: a number there is ignored like any unknown field.
    expectCreated(await createWithKey(key, null, { ...withField, idempotency_key: 5 }));
    expect(await counts(biz.id)).toEqual({ payments: 3, orders: 3, keys: 0 });
  });

  it('a request refused before anything was written does not use up its key', async () => {
    const { biz, key } = await account(t);
    expectError(await createWithKey(key, 'k-refused', { ...BODY, amount: '0.50' }), 400, 'invalid_amount', 'amount');
    await biz.update({ commerce: 'paused' });
    expectError(await createWithKey(key, 'k-refused'), 409, 'commerce_paused');
    await biz.update({ commerce: 'active' });
    expect(await counts(biz.id)).toEqual({ payments: 0, orders: 0, keys: 0 });
    expectCreated(await createWithKey(key, 'k-refused'));
  });
});

describe('key format', () => {
  it('accepts 1 and 120 printable ASCII characters, spaces and symbols included', async () => {
    const { key } = await account(t);
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('').trim();
    for (const idempotencyKey of ['k', 'k'.repeat(120), printable]) {
      const first = expectCreated(await createWithKey(key, idempotencyKey));
      await expectReplay(await createWithKey(key, idempotencyKey), key, first.id);
    }
  });

  // Header values travel as bytes: a non-ASCII key goes as its UTF-8 bytes (fetch takes them as
  // Latin-1 characters), which is what a client sending "ключ" puts on the wire.
  const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

  it.each([
    ['121 characters', 'k'.repeat(121)],
    ['blank', '   '],
    ['empty', ''],
    ['non-ASCII', utf8('ключ')],
    ['non-ASCII among ASCII', utf8('order-1042-é')],
    ['a control character (tab)', 'order\t1042'],
  ])('answers 400 invalid_idempotency_key for a key that is %s, and creates nothing', async (_case, idempotencyKey) => {
    const { biz, key } = await account(t);
    const res = await createWithKey(key, idempotencyKey);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    // The spec names no `field` for this error (the parameter is a header), so it is not pinned here.
    expect(res.body.error).toMatchObject({ code: 'invalid_idempotency_key', message: expect.any(String) });
    expect(await counts(biz.id)).toEqual({ payments: 0, orders: 0, keys: 0 });
  });

  it('never truncates: the 120-character prefix of a refused key is a different, unused key', async () => {
    const { biz, key } = await account(t);
    expect((await createWithKey(key, `${'p'.repeat(120)}x`)).status).toBe(400);
    const created = await createWithKey(key, 'p'.repeat(120));
    expect(created.status).toBe(201);
    expect(await counts(biz.id)).toEqual({ payments: 1, orders: 1, keys: 1 });
  });
});

describe('concurrent requests', () => {
  it('25 at once with one key and body: one 201, 24 × 200, one session, one order', async () => {
    const { biz, key } = await account(t);
    const responses = await Promise.all(Array.from({ length: 25 }, () => createWithKey(key, 'k-burst')));
    const statuses = responses.map((res) => res.status);
    expect(statuses.filter((s) => s === 201), JSON.stringify(responses.map((r) => r.body))).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(24);
    const ids = new Set(responses.map((res) => res.body.id));
    expect(ids.size).toBe(1);
    expect(await counts(biz.id)).toEqual({ payments: 1, orders: 1, keys: 1 });
    const customers = await t.db.selectFrom('customers').select('id').where('business_id', '=', biz.id).execute();
    expect(customers).toHaveLength(1);
  });

  it('25 at once with a plain session (no store order): one 201, one session', async () => {
    const { biz, key } = await account(t);
    const body = { amount: '10.00', currency: 'USD', metadata: { cart: 'c-9' } };
    const responses = await Promise.all(Array.from({ length: 25 }, () => createWithKey(key, 'k-burst-plain', body)));
    expect(responses.filter((res) => res.status === 201)).toHaveLength(1);
    expect(responses.filter((res) => res.status === 200)).toHaveLength(24);
    expect(new Set(responses.map((res) => res.body.id)).size).toBe(1);
    expect(await counts(biz.id)).toEqual({ payments: 1, orders: 1, keys: 1 });
  });

  it('at once with one key and different bodies: one 201; 200 only for the winner\'s body, 409 for the others', async () => {
    const { biz, key } = await account(t);
    const amounts = ['10.00', '11.00', '12.00', '13.00'];
    const bodies = Array.from({ length: 20 }, (_, i) => ({ amount: amounts[i % amounts.length], currency: 'USD' }));
    const responses = await Promise.all(bodies.map((body) => createWithKey(key, 'k-race', body)));
    const winners = responses.filter((res) => res.status === 201);
    expect(winners, JSON.stringify(responses.map((r) => [r.status, r.body]))).toHaveLength(1);
    const winner = winners[0]?.body;
    responses.forEach((res, i) => {
      if (bodies[i]?.amount === winner.amount) {
        expect([200, 201]).toContain(res.status);
        expect(res.body.id).toBe(winner.id);
      } else {
        expectError(res, 409, 'idempotency_conflict');
      }
    });
    expect(await counts(biz.id)).toEqual({ payments: 1, orders: 1, keys: 1 });
  });
});
