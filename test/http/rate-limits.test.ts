import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import { accountInBothModes, LINK_BODY as LINK } from '../support/api.ts';
import { startTestApp, type ApiResponse, type TestApp } from '../support/harness.ts';
import { connectAgent } from '../support/agents.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Rate limits (spec 7.1, 8): per business across all keys and modes, and per address for
// missing or invalid credentials; 429 rate_limited with Retry-After: 60.

/** The plain sentences of spec 8's limits at this file's small values: which limit, and when to retry. */
const ACCOUNT = 'This account passed its limit of 5 requests a minute, counted across all its keys and both modes. Retry after 60 seconds.';
const ADDRESS = 'This address passed the limit of 3 requests a minute with a missing or invalid credential. Retry after 60 seconds.';
const AGENT = 'This agent passed its limit of 3 requests a minute. Retry after 60 seconds.';
const STARTS = (mode: 'Test' | 'Live') => `This account passed its limit of 2 ${mode} payment starts a minute. Retry after 60 seconds.`;

function expectRateLimited(response: ApiResponse, message: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(429);
  expect(response.headers.get('retry-after')).toBe('60');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.body).toEqual({ error: { code: 'rate_limited', message } });
}

/** Sends `count` requests in batches, returning their statuses in order. */
async function statuses(count: number, send: (i: number) => Promise<ApiResponse>, batch = 20): Promise<number[]> {
  const out: number[] = [];
  for (let start = 0; start < count; start += batch) {
    const responses = await Promise.all(Array.from({ length: Math.min(batch, count - start) }, (_, i) => send(start + i)));
    out.push(...responses.map((response) => response.status));
  }
  return out;
}

const missing = (t: TestApp) => t.request('GET', '/v1/payment_links');
const malformed = (t: TestApp) => t.request('GET', '/v1/payment_links', { key: 'sk_test_nope' });
const unknown = (t: TestApp) => t.request('GET', '/v1/payment_links', { key: `sk_live_${'Z'.repeat(32)}` });

describe('with small limits', () => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp({ RATE_LIMIT_BUSINESS_PER_MINUTE: '5', RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' }); });
  afterAll(async () => t?.close());
  // A new minute for every test: the per-address budget is shared by the whole file.
  beforeEach(() => t.clock.advance(MINUTE));

  it('shares one budget per business across keys and modes, then answers 429 until the minute passes', async () => {
    const { biz, test, live } = await accountInBothModes(t);
    const readOnly = (await biz.key({ mode: 'test', access: 'read_only' })).secret;
    const calls = [
      () => t.request('GET', '/v1/payment_links', { key: test }),
      () => t.request('POST', '/v1/payment_links', { key: live, body: LINK }),
      () => t.request('GET', '/v1/customers', { key: readOnly }),
      () => t.request('GET', '/v1/payment_links', { key: live }),
      () => t.request('POST', '/v1/payment_links', { key: test, body: LINK }),
    ];
    for (const call of calls) expect((await call()).status).toBeLessThan(300);

    for (const key of [test, live, readOnly]) expectRateLimited(await t.request('GET', '/v1/payment_links', { key }), ACCOUNT);
    // Writes are limited too, and a limited write stores nothing.
    const before = await t.db.selectFrom('payments').select('id').where('business_id', '=', biz.id).execute();
    expectRateLimited(await t.request('POST', '/v1/payment_links', { key: test, body: LINK }), ACCOUNT);
    const after = await t.db.selectFrom('payments').select('id').where('business_id', '=', biz.id).execute();
    expect(after).toHaveLength(before.length);

    // Another business has its own budget.
    const other = await t.business();
    const otherKey = (await other.key()).secret;
    expect((await t.request('GET', '/v1/payment_links', { key: otherKey })).status).toBe(200);

    t.clock.advance(MINUTE);
    for (const key of [test, live, readOnly]) expect((await t.request('GET', '/v1/payment_links', { key })).status).toBe(200);
  });

  it('counts requests spread over the minute', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    for (let i = 0; i < 5; i++) {
      expect((await t.request('GET', '/v1/payment_links', { key })).status).toBe(200);
      t.clock.advance(1_000);
    }
    expectRateLimited(await t.request('GET', '/v1/payment_links', { key }), ACCOUNT);
  });

  it('lets exactly the budget through when requests arrive at once', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    const got = await statuses(12, () => t.request('GET', '/v1/payment_links', { key }), 12);
    expect(got.filter((status) => status === 200)).toHaveLength(5);
    expect(got.filter((status) => status === 429)).toHaveLength(7);
  });

  it('limits missing and invalid credentials per address, while a valid key from that address still works', async () => {
    for (const send of [missing, malformed, unknown]) {
      const response = await send(t);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_api_key');
    }
    for (const send of [missing, malformed, unknown]) expectRateLimited(await send(t), ADDRESS);

    const biz = await t.business();
    const key = await biz.key();
    expect((await t.request('GET', '/v1/payment_links', { key: key.secret })).status).toBe(200);
    // A revoked key is an invalid one.
    await key.revoke();
    expectRateLimited(await t.request('GET', '/v1/payment_links', { key: key.secret }), ADDRESS);

    t.clock.advance(MINUTE);
    expect((await missing(t)).status).toBe(401);
  });

  it('does not count requests with a valid key against the address budget', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    for (let i = 0; i < 5; i++) expect((await t.request('GET', '/v1/payment_links', { key })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await missing(t)).status).toBe(401);
    expectRateLimited(await missing(t), ADDRESS);
  });
});

describe('with RATE_LIMITS=off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMITS: 'off', RATE_LIMIT_BUSINESS_PER_MINUTE: '5', RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' });
  });
  afterAll(async () => t?.close());

  it('limits nothing', async () => {
    const { test, live } = await accountInBothModes(t);
    const got = await statuses(200, (i) => t.request('GET', '/v1/payment_links', { key: i % 2 ? test : live }));
    expect(got.filter((status) => status !== 200)).toEqual([]);
    const refused = await statuses(30, (i) => (i % 2 ? missing(t) : malformed(t)));
    expect(refused.filter((status) => status !== 401)).toEqual([]);
  });
});

describe('with the default limits', () => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(); });
  afterAll(async () => t?.close());
  beforeEach(() => t.clock.advance(MINUTE));

  it('lets 120 requests of a business through in a minute and answers the 121st with 429', async () => {
    const { test, live } = await accountInBothModes(t);
    const got = await statuses(120, (i) => t.request('GET', '/v1/payment_links', { key: i % 3 ? test : live }));
    expect(got.filter((status) => status !== 200)).toEqual([]);
    expectRateLimited(await t.request('GET', '/v1/payment_links', { key: test }), ACCOUNT.replace(' 5 ', ' 120 '));
    expectRateLimited(await t.request('GET', '/v1/payment_links', { key: live }), ACCOUNT.replace(' 5 ', ' 120 '));
    t.clock.advance(MINUTE);
    expect((await t.request('GET', '/v1/payment_links', { key: test })).status).toBe(200);
  });

  it('lets 60 refused credentials from an address through in a minute and answers the 61st with 429', async () => {
    const got = await statuses(60, (i) => (i % 2 ? missing(t) : malformed(t)));
    expect(got.filter((status) => status !== 401)).toEqual([]);
    expectRateLimited(await missing(t), ADDRESS.replace(' 3 ', ' 60 '));
  });
});

describe('connected agents', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_BUSINESS_PER_MINUTE: '5', RATE_LIMIT_AGENT_PER_MINUTE: '3', RATE_LIMIT_SESSION_STARTS_PER_MINUTE: '2' });
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.jump(MINUTE));

  it('each agent has its own budget, apart from its account\'s keys and from other agents', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    const first = (await connectAgent(t, biz)).token;
    const second = (await connectAgent(t, biz)).token;
    const list = (credential: string) => t.request('GET', '/v1/payment_links', { key: credential });
    expect(await statuses(3, () => list(first))).toEqual([200, 200, 200]);
    const over = await list(first);
    expectRateLimited(over, AGENT);
    expect(await statuses(3, () => list(second))).toEqual([200, 200, 200]);
    expect(await statuses(5, () => list(key))).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await list(key), ACCOUNT);
  });

  // Issue 31: an agent's Test starts count too (they mail receipts), in Test's own budget. Failed on the old code: the third Test start passed.
  it('counts an agent\'s session starts toward the account\'s starts, each mode apart', async () => {
    const biz = await t.business();
    const liveKey = (await biz.key({ mode: 'live' })).secret;
    // A new agent for each start: each has its own 3 requests a minute.
    const liveAgent = async () => (await connectAgent(t, biz, { mode: 'live' })).token;
    const testAgent = async () => (await connectAgent(t, biz, { mode: 'test' })).token;
    const start = async (credential: string) => {
      const session = await t.request('POST', '/v1/checkout_sessions', { key: credential, body: { amount: '10.00', currency: 'USD' } });
      expect(session.status, JSON.stringify(session.body)).toBe(201);
      return t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key: credential, body: { email: 'buyer@example.com' } });
    };
    expect((await start(await testAgent())).status).toBe(200);
    expect((await start(await testAgent())).status).toBe(200);
    expectRateLimited(await start(await testAgent()), STARTS('Test'));
    await reportProcessorStatus(t);
    expect((await start(await liveAgent())).status).toBe(200);
    expect((await start(liveKey)).status).toBe(200);
    expectRateLimited(await start(await liveAgent()), STARTS('Live'));
  });

  it('counts each mode\'s starts apart: Test starts never use up Live\'s', async () => {
    const biz = await t.business();
    const keys = { test: (await biz.key({ mode: 'test' })).secret, live: (await biz.key({ mode: 'live' })).secret };
    const create = async (mode: 'test' | 'live') => {
      const session = await t.request('POST', '/v1/checkout_sessions', { key: keys[mode], body: { amount: '10.00', currency: 'USD' } });
      expect(session.status, JSON.stringify(session.body)).toBe(201);
      return { mode, id: session.body.id as string };
    };
    const start = (session: { mode: 'test' | 'live'; id: string }) =>
      t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key: keys[session.mode], body: { email: 'buyer@example.com' } });
    const sessions = [await create('test'), await create('test'), await create('test'), await create('live')];
    // A new minute of the account's 5 requests: the four starts alone.
    await t.jump(MINUTE);
    await reportProcessorStatus(t);
    expect((await start(sessions[0]!)).status).toBe(200);
    expect((await start(sessions[1]!)).status).toBe(200);
    expectRateLimited(await start(sessions[2]!), STARTS('Test'));
    expect((await start(sessions[3]!)).status).toBe(200);
  });
});
