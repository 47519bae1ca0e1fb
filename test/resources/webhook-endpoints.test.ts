import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountInBothModes, collection, expectCreated, ids, nowSeconds } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Webhook endpoints (spec 2.4, 4.4, 6.1, 7.5, 8).

// Name resolution is replaced by a fixed table: this machine's resolver now and then stalls for
// its 5 s timeout, and the table lets names resolve to private addresses. Every other name
// fails like an unresolvable one (example.com here), which creation allows (spec 6.1: Live
// addresses are checked again at each send).
const DNS: Record<string, string[]> = {
  'public.example.net': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'private.example.net': ['10.1.2.3'],
  'loopback.example.net': ['127.0.0.1'],
  'mixed.example.net': ['93.184.215.14', '192.168.0.10'],
  'mapped.example.net': ['::ffff:10.0.0.1'],
};
async function fakeResolve(hostname: string): Promise<string[]> {
  const answer = DNS[hostname];
  if (answer) return answer;
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  t.context.resolveHost = fakeResolve;
});
afterAll(async () => t?.close());

const ALL_EVENTS = [
  'payment.started', 'payment.paid', 'payment.held', 'payment.updated', 'payment.failed', 'payment.expired', 'payment.canceled',
];
const sorted = (items: readonly string[]) => [...items].sort();

const { create, list } = collection(() => t, '/v1/webhook_endpoints');

async function created(key: string, body: Record<string, unknown>): Promise<{ id: string; secret: string; url: string }> {
  return expectCreated(await create(key, body));
}

/** Looser than expectError of support/api.ts: checks status, code, field when given and a message, not the whole object. */
function expectError(response: { status: number; body: any }, status: number, code: string, field?: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
  expect(typeof response.body.error.message).toBe('string');
  if (field !== undefined) expect(response.body.error.field).toBe(field);
}

describe('POST /v1/webhook_endpoints', () => {
  it('answers 201 with the exact endpoint object and a whsec_ secret, never shown again', async () => {
    const { test } = await accountInBothModes(t);
    const response = await create(test, { url: 'https://example.com/hook', description: 'Orders' });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { secret, ...endpoint } = response.body;
    expect(response.body).toEqual({
      id: expect.stringMatching(/^we_/),
      object: 'webhook_endpoint',
      url: 'https://example.com/hook',
      description: 'Orders',
      events: expect.any(Array),
      livemode: false,
      mode: 'test',
      previous_secret_expires_at: null,
      created: nowSeconds(t),
      secret: expect.stringMatching(/^whsec_./),
    });
    expect(sorted(response.body.events)).toEqual(sorted(ALL_EVENTS));
    expect(typeof secret).toBe('string');

    const read = await t.request('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: test });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(endpoint);
    expect(read.body).not.toHaveProperty('secret');

    const listed = await list(test);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [endpoint], has_more: false, next_cursor: null });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('stores the secret encrypted, tied to the key that added it', async () => {
    const { biz } = await accountInBothModes(t);
    const key = await biz.key();
    const endpoint = await created(key.secret, { url: 'https://example.com/hook' });
    const row = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    expect(row.secret_encrypted).not.toBeNull();
    const stored = row.secret_encrypted as Buffer;
    expect(stored.includes(Buffer.from(endpoint.secret))).toBe(false);
    expect(stored.includes(Buffer.from(endpoint.secret.slice('whsec_'.length)))).toBe(false);
    expect(stored.toString('latin1')).not.toContain(endpoint.secret.slice('whsec_'.length));
    expect(t.context.secrets.open(stored)).toBe(endpoint.secret);
    expect(row).toMatchObject({ business_id: biz.id, livemode: false, added_via: 'api', api_key_id: key.id, deleted_at: null });
  });

  it('makes a Live endpoint in Live mode', async () => {
    const { live } = await accountInBothModes(t);
    const response = await create(live, { url: 'https://example.com/hook' });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toMatchObject({ livemode: true, mode: 'live', description: null, previous_secret_expires_at: null });
  });

  it('keeps a chosen subset of events', async () => {
    const { test } = await accountInBothModes(t);
    const response = await create(test, { url: 'https://example.com/hook', events: ['payment.paid', 'payment.failed'] });
    expect(response.status).toBe(201);
    expect(sorted(response.body.events)).toEqual(['payment.failed', 'payment.paid']);
    const read = await t.request('GET', `/v1/webhook_endpoints/${response.body.id}`, { key: test });
    expect(sorted(read.body.events)).toEqual(['payment.failed', 'payment.paid']);

    const one = await create(test, { url: 'https://example.com/one', events: ['payment.canceled'] });
    expect(one.body.events).toEqual(['payment.canceled']);
  });

  it.each([
    ['an empty array', []],
    ['an unknown type', ['nope']],
    ['a known and an unknown type', ['payment.paid', 'payment.nope']],
    ['a number', [1]],
    ['a string instead of an array', 'payment.paid'],
    ['ping', ['ping']],
    ['null', null],
    ['an object', { 'payment.paid': true }],
  ])('answers 400 invalid_events for %s', async (_name, events) => {
    const { test } = await accountInBothModes(t);
    expectError(await create(test, { url: 'https://example.com/hook', events }), 400, 'invalid_events', 'events');
  });

  describe('url', () => {
    const long = (length: number) => `https://example.com/${'a'.repeat(length - 'https://example.com/'.length)}`;

    it.each([
      ['http:// in Live', 'http://example.com/hook'],
      ['http://localhost in Live', 'http://localhost:4000/hook'],
      ['credentials', 'https://user:pass@example.com/hook'],
      ['a username only', 'https://user@example.com/hook'],
      ['not a URL', 'not a url'],
      ['no scheme', 'example.com/hook'],
      ['a relative path', '/hook'],
      ['another scheme', 'ftp://example.com/hook'],
      ['an empty string', ''],
      ['2,049 characters', long(2049)],
      ['https://localhost', 'https://localhost/hook'],
      ['a .localhost name', 'https://app.localhost/hook'],
      ['https://127.0.0.1', 'https://127.0.0.1/hook'],
      ['https://[::1]', 'https://[::1]/hook'],
      ['https://10.0.0.1', 'https://10.0.0.1/hook'],
      ['https://192.168.1.1', 'https://192.168.1.1/hook'],
      ['https://172.16.0.1', 'https://172.16.0.1/hook'],
      ['cloud metadata 169.254.169.254', 'https://169.254.169.254/latest/meta-data'],
      ['CGNAT 100.64.0.1', 'https://100.64.0.1/hook'],
      ['unique-local [fc00::1]', 'https://[fc00::1]/hook'],
      ['IPv4-mapped loopback [::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]/hook'],
      ['unspecified 0.0.0.0', 'https://0.0.0.0/hook'],
      ['IPv4-compatible loopback [::127.0.0.1]', 'https://[::127.0.0.1]/hook'],
      ['IPv4-compatible private [::10.0.0.1]', 'https://[::10.0.0.1]/hook'],
      ['shorthand loopback 127.1', 'https://127.1/hook'],
      ['decimal loopback 2130706433', 'https://2130706433/hook'],
      ['localhost with a trailing dot', 'https://localhost./hook'],
      ['Azure metadata 168.63.129.16', 'https://168.63.129.16/hook'],
      ['documentation range 192.0.2.1', 'https://192.0.2.1/hook'],
      ['multicast 224.0.0.1', 'https://224.0.0.1/hook'],
      ['IPv6 link-local [fe80::1]', 'https://[fe80::1]/hook'],
      ['a single-label name', 'https://intranet/hook'],
      ['an .internal name', 'https://db.internal/hook'],
      ['a .local name', 'https://printer.local/hook'],
      ['a name resolving to a private address', 'https://private.example.net/hook'],
      ['a name resolving to loopback', 'https://loopback.example.net/hook'],
      ['a name with one private address among public ones', 'https://mixed.example.net/hook'],
      ['a name resolving to an IPv4-mapped private address', 'https://mapped.example.net/hook'],
    ])('answers 400 invalid_url (field url) in Live for %s', async (_name, url) => {
      const { live } = await accountInBothModes(t);
      expectError(await create(live, { url }), 400, 'invalid_url', 'url');
    });

    it.each([
      ['a number', 42],
      ['null', null],
      ['missing', undefined],
    ])('answers 400 invalid_url (field url) when url is %s', async (_name, url) => {
      const { test } = await accountInBothModes(t);
      expectError(await create(test, url === undefined ? {} : { url }), 400, 'invalid_url', 'url');
    });

    it.each([
      ['http://example.com (only localhost may be http)', 'http://example.com/hook'],
      ['a private address', 'https://10.0.0.1/hook'],
      ['a name resolving to a private address', 'https://private.example.net/hook'],
      ['an .internal name', 'https://db.internal/hook'],
      ['credentials on localhost', 'http://user:pass@localhost:4000/x'],
      ['2,049 characters', long(2049)],
    ])('answers 400 invalid_url in Test for %s', async (_name, url) => {
      const { test } = await accountInBothModes(t);
      expectError(await create(test, { url }), 400, 'invalid_url', 'url');
    });

    it.each([
      'http://localhost:4000/x',
      'http://127.0.0.1:4000/x',
      'https://example.com/x',
    ])('accepts %s in Test', async (url) => {
      const { test } = await accountInBothModes(t);
      const response = await create(test, { url });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.url).toBe(url);
    });

    it('accepts a public https:// address in Live even when its name does not resolve now', async () => {
      const { live } = await accountInBothModes(t);
      const response = await create(live, { url: 'https://example.com/hook' });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.url).toBe('https://example.com/hook');
    });

    it.each([
      'https://public.example.net/hook',
      'https://93.184.215.14/hook',
      'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook',
      'https://example.com:8443/hook?source=api',
    ])('accepts the public address %s in Live', async (url) => {
      const { live } = await accountInBothModes(t);
      const response = await create(live, { url });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.url).toBe(url);
    });

    it('accepts a url of exactly 2,048 characters', async () => {
      const { live } = await accountInBothModes(t);
      const url = long(2048);
      expect(url).toHaveLength(2048);
      const response = await create(live, { url });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.url).toBe(url);
    });
  });

  describe('description', () => {
    it.each([
      ['a number', 42, 'invalid_description'],
      ['an object', { text: 'x' }, 'invalid_description'],
      ['81 characters', 'd'.repeat(81), 'too_long'],
    ])('answers 400 for %s', async (_name, description, code) => {
      const { test } = await accountInBothModes(t);
      expectError(await create(test, { url: 'https://example.com/hook', description }), 400, code, 'description');
    });

    it.each([
      ['80 characters', 'd'.repeat(80)],
      ['80 emoji (characters, not UTF-16 units)', '😀'.repeat(80)],
    ])('accepts %s', async (_name, description) => {
      const { test } = await accountInBothModes(t);
      const response = await create(test, { url: 'https://example.com/hook', description });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.description).toBe(description);
    });
  });

  it('answers 409 duplicate_url in the same mode only; a deleted endpoint frees its url', async () => {
    const { test, live } = await accountInBothModes(t);
    const first = await created(test, { url: 'https://example.com/hook' });
    expectError(await create(test, { url: 'https://example.com/hook', description: 'again' }), 409, 'duplicate_url');
    await created(live, { url: 'https://example.com/hook' });

    expect((await t.request('DELETE', `/v1/webhook_endpoints/${first.id}`, { key: test })).status).toBe(200);
    const again = await created(test, { url: 'https://example.com/hook' });
    expect(again.id).not.toBe(first.id);
    expect(again.secret).not.toBe(first.secret);
  });

  it('answers 409 too_many at the 11th endpoint of a mode', async () => {
    const { test, live } = await accountInBothModes(t);
    const endpoints = [];
    for (let i = 1; i <= 10; i++) endpoints.push(await created(test, { url: `https://example.com/hook/${i}` }));
    expectError(await create(test, { url: 'https://example.com/hook/11' }), 409, 'too_many');
    // The other mode has its own ten.
    await created(live, { url: 'https://example.com/hook/11' });
    // Deleting one makes room again.
    expect((await t.request('DELETE', `/v1/webhook_endpoints/${endpoints[0]?.id}`, { key: test })).status).toBe(200);
    await created(test, { url: 'https://example.com/hook/11' });
    expectError(await create(test, { url: 'https://example.com/hook/12' }), 409, 'too_many');
  });

  it('lets only 10 of 12 concurrent creates succeed', async () => {
    const { biz, test } = await accountInBothModes(t);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(test, { url: `https://example.com/concurrent/${i}` })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) expect(response.body.error.code).toBe('too_many');
    const rows = await t.db.selectFrom('webhook_endpoints').select('id')
      .where('business_id', '=', biz.id).where('livemode', '=', false).where('deleted_at', 'is', null).execute();
    expect(rows).toHaveLength(10);
  });

  it('lets only one of concurrent creates with the same url succeed', async () => {
    const { biz, test } = await accountInBothModes(t);
    const responses = await Promise.all(Array.from({ length: 5 }, () => create(test, { url: 'https://example.com/same' })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) expect(response.body.error.code).toBe('duplicate_url');
    const rows = await t.db.selectFrom('webhook_endpoints').select('id').where('business_id', '=', biz.id).where('deleted_at', 'is', null).execute();
    expect(rows).toHaveLength(1);
  });

  it('answers 403 merchant_read_only for an archived business', async () => {
    const { biz, test, live } = await accountInBothModes(t);
    await biz.update({ status: 'archived' });
    expectError(await create(test, { url: 'https://example.com/hook' }), 403, 'merchant_read_only');
    expectError(await create(live, { url: 'https://example.com/hook' }), 403, 'merchant_read_only');
    expect(await t.db.selectFrom('webhook_endpoints').select('id').where('business_id', '=', biz.id).execute()).toEqual([]);
  });

  it('is refused to keys without the webhook scopes', async () => {
    const { biz } = await accountInBothModes(t);
    for (const options of [{ access: 'read_only' as const }, { kind: 'plugin' as const }, { kind: 'legacy' as const }]) {
      const key = (await biz.key(options)).secret;
      const response = await create(key, { url: 'https://example.com/hook' });
      expectError(response, 403, 'insufficient_scope');
      expect(response.body.error.message).toContain('webhooks:write');
      const read = await list(key);
      expectError(read, 403, 'insufficient_scope');
      expect(read.body.error.message).toContain('webhooks:read');
    }
  });
});

describe('GET /v1/webhook_endpoints/:id', () => {
  it("answers 404 not_found for another business's, the other mode's, or an unknown endpoint", async () => {
    const { test, live } = await accountInBothModes(t);
    const endpoint = await created(test, { url: 'https://example.com/hook' });
    const other = (await (await t.business()).key()).secret;
    for (const [key, id] of [[other, endpoint.id], [live, endpoint.id], [test, 'we_doesnotexist']] as const) {
      expectError(await t.request('GET', `/v1/webhook_endpoints/${id}`, { key }), 404, 'not_found');
    }
  });
});

describe('GET /v1/webhook_endpoints', () => {
  it('lists newest first with pagination, only this mode', async () => {
    const { test, live } = await accountInBothModes(t);
    const made: string[] = [];
    for (let i = 1; i <= 5; i++) {
      made.unshift((await created(test, { url: `https://example.com/page/${i}` })).id);
      t.clock.advance(1000);
    }
    const liveOne = await created(live, { url: 'https://example.com/page/live' });

    const all = await list(test);
    expect(ids(all)).toEqual(made);
    for (const item of all.body.data) expect(item).not.toHaveProperty('secret');

    const first = await list(test, { limit: '2' });
    expect(ids(first)).toEqual(made.slice(0, 2));
    expect(first.body).toMatchObject({ has_more: true, next_cursor: made[1] });
    const second = await list(test, { limit: '2', starting_after: first.body.next_cursor });
    expect(ids(second)).toEqual(made.slice(2, 4));
    expect(second.body).toMatchObject({ has_more: true, next_cursor: made[3] });
    const third = await list(test, { limit: '2', starting_after: second.body.next_cursor });
    expect(ids(third)).toEqual(made.slice(4));
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });

    expect(ids(await list(live))).toEqual([liveOne.id]);
  });

  it.each(['0', '101', 'x'])('answers 400 invalid_limit for limit=%s', async (limit) => {
    const { test } = await accountInBothModes(t);
    expectError(await list(test, { limit }), 400, 'invalid_limit', 'limit');
  });

  it("answers 400 invalid_cursor for another business's, the other mode's, or an unknown endpoint", async () => {
    const { test, live } = await accountInBothModes(t);
    await created(test, { url: 'https://example.com/hook' });
    const liveOne = await created(live, { url: 'https://example.com/hook' });
    const other = (await (await t.business()).key()).secret;
    const theirs = await created(other, { url: 'https://example.com/hook' });
    for (const cursor of [theirs.id, liveOne.id, 'we_doesnotexist']) {
      expectError(await list(test, { starting_after: cursor }), 400, 'invalid_cursor', 'starting_after');
    }
  });
});

describe('DELETE /v1/webhook_endpoints/:id', () => {
  it('removes the endpoint: 200 {id, object, deleted}, then 404 and omitted from the list', async () => {
    const { test } = await accountInBothModes(t);
    const keep = await created(test, { url: 'https://example.com/keep' });
    const endpoint = await created(test, { url: 'https://example.com/hook' });
    const response = await t.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: test });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });

    expectError(await t.request('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: test }), 404, 'not_found');
    expectError(await t.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: test }), 404, 'not_found');
    expect(ids(await list(test))).toEqual([keep.id]);

    // Its secret ceases to exist; the row stays for the delivery history.
    const row = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    expect(row.secret_encrypted).toBeNull();
    expect(row.deleted_at).not.toBeNull();
  });

  it("answers 404 for another business's or the other mode's endpoint and leaves it alone", async () => {
    const { test, live } = await accountInBothModes(t);
    const endpoint = await created(test, { url: 'https://example.com/hook' });
    const other = (await (await t.business()).key()).secret;
    for (const key of [other, live]) {
      expectError(await t.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key }), 404, 'not_found');
    }
    expect((await t.request('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: test })).status).toBe(200);
  });

  it('works for a suspended business, whose other calls answer 403 suspended', async () => {
    const { biz, test } = await accountInBothModes(t);
    const endpoint = await created(test, { url: 'https://example.com/hook' });
    const other = await created(test, { url: 'https://example.com/other' });
    await biz.update({ status: 'suspended' });
    const response = await t.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: test });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    expectError(await t.request('GET', `/v1/webhook_endpoints/${other.id}`, { key: test }), 403, 'suspended');
    expectError(await list(test), 403, 'suspended');
  });

  it('works for an archived business', async () => {
    const { biz, test } = await accountInBothModes(t);
    const endpoint = await created(test, { url: 'https://example.com/hook' });
    await biz.update({ status: 'archived' });
    const response = await t.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: test });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
  });
});

describe('revoking a key', () => {
  it('removes the endpoints that key added and keeps those of other keys', async () => {
    const { biz } = await accountInBothModes(t);
    const adder = await biz.key();
    const other = await biz.key();
    const mine = await created(adder.secret, { url: 'https://example.com/by-adder' });
    const theirs = await created(other.secret, { url: 'https://example.com/by-other' });

    await adder.revoke();

    expectError(await t.request('GET', `/v1/webhook_endpoints/${mine.id}`, { key: other.secret }), 404, 'not_found');
    expect((await t.request('GET', `/v1/webhook_endpoints/${theirs.id}`, { key: other.secret })).status).toBe(200);
    expect(ids(await list(other.secret))).toEqual([theirs.id]);
    expectError(await t.request('DELETE', `/v1/webhook_endpoints/${mine.id}`, { key: other.secret }), 404, 'not_found');
    expectError(await list(adder.secret), 401, 'invalid_api_key');

    const row = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', mine.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(row.secret_encrypted).toBeNull();
    // Its url is free again.
    await created(other.secret, { url: 'https://example.com/by-adder' });
  });
});
