import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_SCOPES } from '../../src/auth/scopes.ts';
import { operations } from '../../src/operations.ts';
import { LINK_BODY as LINK } from '../support/api.ts';
import { startTestApp, type ApiResponse, type TestApp, type TestBusiness } from '../support/harness.ts';

// HTTP conventions (spec 1.5, 4.7, 5, 7.1, 8): headers, bodies, routing, authentication,
// discovery documents.

let t: TestApp;
let biz: TestBusiness;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  biz = await t.business();
  key = (await biz.key()).secret;
});
afterAll(async () => t?.close());
// Refused credentials count per address (spec 8); a new minute keeps each test clear of that limit.
beforeEach(() => t.clock.advance(60_000));

const METADATA_URL = 'https://pay.example.test/.well-known/oauth-protected-resource/v1';
const ORIGIN = { origin: 'https://shop.example' };

function expectErrorShape(response: ApiResponse, status?: number): void {
  if (status !== undefined) expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
  expect(Object.keys(response.body.error).every((name) => ['code', 'message', 'field'].includes(name))).toBe(true);
}

function corsHeaders(response: ApiResponse): string[] {
  return [...response.headers.keys()].filter((name) => name.toLowerCase().startsWith('access-control-'));
}

async function paymentCount(businessId: string): Promise<number> {
  const rows = await t.db.selectFrom('payments').select('id').where('business_id', '=', businessId).execute();
  return rows.length;
}

/** A JSON body of exactly `bytes` bytes that is a valid payment link create (unknown fields are ignored). */
function linkBodyOfSize(bytes: number): string {
  const base = JSON.stringify({ ...LINK, padding: '' });
  return JSON.stringify({ ...LINK, padding: 'x'.repeat(bytes - base.length) });
}

describe('response headers', () => {
  const cases: Array<[string, () => Promise<ApiResponse>, number]> = [
    ['a success', () => t.request('GET', '/v1/payment_links', { key, headers: ORIGIN }), 200],
    ['a created object', () => t.request('POST', '/v1/payment_links', { key, body: LINK, headers: ORIGIN }), 201],
    ['a 400', () => t.request('POST', '/v1/payment_links', { key, body: { ...LINK, amount: 'ten' }, headers: ORIGIN }), 400],
    ['a 401', () => t.request('GET', '/v1/payment_links', { headers: ORIGIN }), 401],
    ['a 403', () => t.request('GET', '/v1/webhook_endpoints', { key: readOnlyKey, headers: ORIGIN }), 403],
    ['a 404 of an unknown id', () => t.request('GET', '/v1/payment_links/pay_unknown', { key, headers: ORIGIN }), 404],
    ['a 404 of an unknown route', () => t.request('GET', '/v1/nope', { key, headers: ORIGIN }), 404],
    ['a 405', () => t.request('PUT', '/v1/payment_links', { key, body: LINK, headers: ORIGIN }), 405],
    ['a 415', () => t.request('POST', '/v1/payment_links', { key, rawBody: 'amount=10', headers: { ...ORIGIN, 'content-type': 'text/plain' } }), 415],
    ['the OpenAPI document', () => t.request('GET', '/v1/openapi.json', { headers: ORIGIN }), 200],
  ];
  let readOnlyKey = '';
  beforeAll(async () => { readOnlyKey = (await biz.key({ access: 'read_only' })).secret; });

  it.each(cases)('send Cache-Control: no-store and no CORS headers on %s, even with an Origin', async (_name, send, status) => {
    const response = await send();
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(corsHeaders(response)).toEqual([]);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    if (status >= 400) expectErrorShape(response);
  });

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v1'])(
    'serve the public discovery document %s to browser-based clients too (CORS, no credentials), never cached',
    async (path) => {
      const response = await t.request('GET', path, { headers: ORIGIN });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    },
  );

  it.each(['/v1/payment_links', '/v1/payment_links/pay_x', '/v1/webhook_endpoints', '/v1/nope'])(
    'refuse an OPTIONS preflight on %s without CORS headers',
    async (path) => {
      const response = await t.request('OPTIONS', path, {
        headers: { ...ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expectErrorShape(response);
      expect(corsHeaders(response)).toEqual([]);
      expect(response.headers.get('cache-control')).toBe('no-store');
    },
  );
});

describe('request bodies', () => {
  it('answers 413 with the error shape for a body over 64 KiB', async () => {
    const before = await paymentCount(biz.id);
    const body = linkBodyOfSize(64 * 1024 + 1);
    expect(Buffer.byteLength(body)).toBe(65_537);
    const response = await t.request('POST', '/v1/payment_links', { key, rawBody: body, headers: { 'content-type': 'application/json' } });
    expectErrorShape(response, 413);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await paymentCount(biz.id)).toBe(before);
  });

  it('accepts a JSON body of exactly 64 KiB', async () => {
    const body = linkBodyOfSize(64 * 1024);
    expect(Buffer.byteLength(body)).toBe(65_536);
    const response = await t.request('POST', '/v1/payment_links', { key, rawBody: body, headers: { 'content-type': 'application/json' } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form encoding', 'application/x-www-form-urlencoded'],
    ['XML', 'application/xml'],
  ])('answers 415 with the error shape for %s', async (_name, contentType) => {
    const response = await t.request('POST', '/v1/payment_links', { key, rawBody: JSON.stringify(LINK), headers: { 'content-type': contentType } });
    expectErrorShape(response, 415);
  });

  it('accepts application/json with a charset', async () => {
    const response = await t.request('POST', '/v1/payment_links', {
      key, rawBody: JSON.stringify(LINK), headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });

  it.each([
    ['invalid JSON', '{"amount": "10.00",'],
    ['trailing garbage', '{"amount": "10.00"} x'],
    ['a JSON array', JSON.stringify([LINK])],
    ['a JSON string', '"hello"'],
    ['JSON null', 'null'],
    ['a JSON number', '42'],
    ['JSON true', 'true'],
  ])('answers 400 invalid_json for %s', async (_name, rawBody) => {
    const response = await t.request('POST', '/v1/payment_links', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expectErrorShape(response, 400);
    expect(response.body.error.code).toBe('invalid_json');
  });

  it.each([
    ['in a value', { ...LINK, description: 'Tea\u0000' }],
    ['in an ignored field', { ...LINK, note: 'a\u0000b' }],
    ['in a field name', { ...LINK, 'x\u0000': 'y' }],
  ])('answers 400 invalid_json for a NUL character %s, storing nothing', async (_name, body) => {
    const before = await paymentCount(biz.id);
    const rawBody = JSON.stringify(body);
    expect(rawBody).toContain('\\u0000');
    const response = await t.request('POST', '/v1/payment_links', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expectErrorShape(response, 400);
    expect(response.body.error.code).toBe('invalid_json');
    expect(await paymentCount(biz.id)).toBe(before);
  });

  // Found from the outside (issue 14): a lone-surrogate escape with deep nesting recursed the
  // parser's checks until the stack ran out (500); so did an error message built from 5,000 levels.
  it.each([
    ['3,000 levels of arrays with a \\uD83D escape (as Python writes emoji)', `{"amount":"10.00","currency":"USD","description":"\\uD83D\\uDE00","metadata":${'['.repeat(3000)}${']'.repeat(3000)}}`],
    ['3,000 levels of objects with a lone surrogate', `{"description":"\\uD800","x":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`],
    ['events nested 5,000 deep', `{"url":"https://hooks.example.com/x","events":${'['.repeat(5000)}"payment.paid"${']'.repeat(5000)}}`],
  ])('answers 400 invalid_json, never a 500, for a body nested too deep: %s', async (name, rawBody) => {
    const path = name.startsWith('events') ? '/v1/webhook_endpoints' : '/v1/payment_links';
    const before = await paymentCount(biz.id);
    const response = await t.request('POST', path, { key, rawBody, headers: { 'content-type': 'application/json' } });
    expectErrorShape(response, 400);
    expect(response.body.error.code).toBe('invalid_json');
    expect(response.body.error.message).toMatch(/nest/);
    expect(await paymentCount(biz.id)).toBe(before);
  });

  it('takes a body nested as deep as the API needs (metadata 20 levels deep)', async () => {
    let metadata: unknown = 'leaf';
    for (let level = 0; level < 20; level += 1) metadata = { level: metadata };
    const response = await t.request('POST', '/v1/payment_links', { key, body: { ...LINK, metadata } });
    expect(response.status, JSON.stringify(response.body)).not.toBe(500);
  });

  it('answers 400 invalid_json for an empty body where the operation needs one, and takes none where it needs none', async () => {
    for (const rawBody of ['', '   ', '\n']) {
      const response = await t.request('POST', '/v1/payment_links', { key, rawBody, headers: { 'content-type': 'application/json' } });
      expectErrorShape(response, 400);
      expect(response.body.error.code).toBe('invalid_json');
      expect(response.body.error.message).toContain('JSON object');
    }
    const link = await t.request('POST', '/v1/payment_links', { key, body: LINK });
    const canceled = await t.request('POST', `/v1/payment_links/${link.body.id}/cancel`, { key, rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
  });

  it('ignores unknown request fields', async () => {
    const response = await t.request('POST', '/v1/payment_links', { key, body: { ...LINK, livemode: true, business_id: 'biz_other', unknown: 1 } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.livemode).toBe(false);
  });
});

describe('routing', () => {
  it.each(['/v1/nope', '/v2/payment_links', '/nope', '/v1/payment_links/pay_x/refund'])(
    'answers 404 not_found with the error shape for the unknown route %s',
    async (path) => {
      const response = await t.request('GET', path, { key });
      expectErrorShape(response, 404);
      expect(response.body.error.code).toBe('not_found');
    },
  );

  it.each([
    ['PUT', '/v1/payment_links', ['GET', 'POST']],
    ['DELETE', '/v1/payment_links', ['GET', 'POST']],
    ['PATCH', '/v1/payment_links/pay_x', ['GET']],
    ['DELETE', '/v1/customers/cus_x', ['GET']],
    ['GET', '/v1/payment_links/pay_x/cancel', ['POST']],
    ['PUT', '/v1/webhook_endpoints/we_x', ['GET', 'DELETE']],
  ] as const)('answers 405 with Allow for %s %s', async (method, path, allowed) => {
    const response = await t.request(method, path, { key });
    expectErrorShape(response, 405);
    const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '' && m !== 'HEAD');
    expect(allow.sort()).toEqual([...allowed].sort());
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('authentication', () => {
  it('answers 401 invalid_api_key with discovery and no error= when no credential is sent', async () => {
    const response = await t.request('GET', '/v1/payment_links');
    expectErrorShape(response, 401);
    expect(response.body.error.code).toBe('invalid_api_key');
    const header = response.headers.get('www-authenticate');
    expect(header).toBe(`Bearer resource_metadata="${METADATA_URL}"`);
    expect(header).not.toContain('error=');
  });

  it.each([
    ['an empty Authorization header', '   '],
  ])('treats %s as no credential', async (_name, authorization) => {
    const response = await t.request('GET', '/v1/payment_links', { headers: { authorization } });
    expectErrorShape(response, 401);
    expect(response.body.error.code).toBe('invalid_api_key');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${METADATA_URL}"`);
  });

  const refused: Array<[string, () => Promise<Record<string, string>>]> = [
    ['a malformed key', async () => ({ authorization: 'Bearer sk_test_short' })],
    ['a key with a space', async () => ({ authorization: 'Bearer sk_test_ abc' })],
    ['an unknown key of the right shape', async () => ({ authorization: `Bearer sk_test_${'A'.repeat(32)}` })],
    ['a revoked key', async () => {
      const revoked = await biz.key();
      await revoked.revoke();
      return { authorization: `Bearer ${revoked.secret}` };
    }],
    ['a test secret with the sk_live_ prefix', async () => {
      const secret = (await biz.key({ mode: 'test' })).secret;
      return { authorization: `Bearer ${secret.replace(/^sk_test_/, 'sk_live_')}` };
    }],
    ['a live secret with the sk_test_ prefix', async () => {
      const secret = (await biz.key({ mode: 'live' })).secret;
      return { authorization: `Bearer ${secret.replace(/^sk_live_/, 'sk_test_')}` };
    }],
    ['a key of another service prefix', async () => ({ authorization: `Bearer pk_test_${'A'.repeat(32)}` })],
    ['Basic credentials', async () => ({ authorization: 'Basic xyz' })],
    ['the key without the Bearer scheme', async () => ({ authorization: key })],
  ];

  it.each(refused)('answers 401 invalid_api_key with error="invalid_token" for %s', async (_name, headers) => {
    const response = await t.request('GET', '/v1/payment_links', { headers: await headers() });
    expectErrorShape(response, 401);
    expect(response.body.error.code).toBe('invalid_api_key');
    const header = response.headers.get('www-authenticate') ?? '';
    expect(header).toMatch(/^Bearer /);
    expect(header).toContain('error="invalid_token"');
    expect(header).toContain(`resource_metadata="${METADATA_URL}"`);
  });

  it('tells a Stripe-style Basic credential (curl -u sk_test_…:) to send the key as a Bearer token', async () => {
    const response = await t.request('GET', '/v1/payment_links', { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } });
    expectErrorShape(response, 401);
    expect(response.body.error).toEqual({ code: 'invalid_api_key', message: 'The credential was sent as Basic authentication. Send the secret key as Authorization: Bearer <secret key>.' });
  });

  it('accepts the Bearer scheme in any letter case', async () => {
    const response = await t.request('GET', '/v1/payment_links', { headers: { authorization: `bearer ${key}` } });
    expect(response.status).toBe(200);
  });

  it('answers 403 insufficient_scope naming the scope to a read-only key that writes', async () => {
    const readOnly = (await biz.key({ access: 'read_only' })).secret;
    const before = await paymentCount(biz.id);
    const response = await t.request('POST', '/v1/payment_links', { key: readOnly, body: LINK });
    expectErrorShape(response, 403);
    expect(response.body.error.code).toBe('insufficient_scope');
    expect(response.body.error.message).toContain('checkouts:write');
    const header = response.headers.get('www-authenticate') ?? '';
    expect(header).toMatch(/^Bearer /);
    expect(header).toContain('error="insufficient_scope"');
    expect(header).toContain('scope="checkouts:write"');
    expect(await paymentCount(biz.id)).toBe(before);
    // Reading is within its scopes.
    expect((await t.request('GET', '/v1/payment_links', { key: readOnly })).status).toBe(200);
  });

  it('answers 403 suspended for a suspended business', async () => {
    const suspended = await t.business();
    const suspendedKey = (await suspended.key()).secret;
    await suspended.update({ status: 'suspended' });
    for (const [method, body] of [['GET', undefined], ['POST', LINK]] as const) {
      const response = await t.request(method, '/v1/payment_links', { key: suspendedKey, body });
      expectErrorShape(response, 403);
      expect(response.body.error.code).toBe('suspended');
    }
  });

  it('sets last_used_at of a key once it is used', async () => {
    const fresh = await biz.key();
    const lastUsed = async () => (await t.db.selectFrom('api_keys').select('last_used_at').where('id', '=', fresh.id).executeTakeFirstOrThrow()).last_used_at;
    expect(await lastUsed()).toBeNull();
    const usedAt = t.clock.now();
    expect((await t.request('GET', '/v1/payment_links', { key: fresh.secret })).status).toBe(200);
    // Written off the request path: wait for the write, not for time.
    await vi.waitFor(async () => expect(await lastUsed()).toEqual(usedAt), { timeout: 5_000, interval: 20 });
  });
});

describe('discovery', () => {
  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v1'])(
    'serves the protected-resource metadata at %s without a credential',
    async (path) => {
      const response = await t.request('GET', path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const document = response.body;
      expect(document.resource).toBe('https://pay.example.test/v1');
      expect([...document.scopes_supported].sort()).toEqual(
        ['checkouts:write', 'customers:read', 'orders:read', 'orders:write', 'payments:read'],
      );
      expect([...document.scopes_supported].sort()).toEqual([...API_SCOPES].sort());
      expect(document.bearer_methods_supported).toEqual(['header']);
      expect(Array.isArray(document.authorization_servers)).toBe(true);
      expect(document.authorization_servers.length).toBeGreaterThan(0);
      for (const server of document.authorization_servers) expect(() => new URL(server)).not.toThrow();
      expect(typeof document.resource_name).toBe('string');
      expect(document.resource_name.length).toBeGreaterThan(0);
      expect(typeof document.resource_documentation).toBe('string');
      expect(() => new URL(document.resource_documentation)).not.toThrow();
    },
  );

  it('serves the same document at both addresses', async () => {
    const root = await t.request('GET', '/.well-known/oauth-protected-resource');
    const v1 = await t.request('GET', '/.well-known/oauth-protected-resource/v1');
    expect(root.body).toEqual(v1.body);
  });

  it('serves an OpenAPI 3.1 document with every registry operation under its name', async () => {
    const response = await t.request('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toMatch(/^3\.1\./);
    const seen: string[] = [];
    for (const operation of operations) {
      const path = `/v1${operation.http.path}`.replace(/:(\w+)/g, '{$1}');
      const entry = document.paths?.[path]?.[operation.http.method.toLowerCase()];
      expect(entry, `${operation.http.method} ${path}`).toBeDefined();
      expect(entry.operationId).toBe(operation.name);
      seen.push(entry.operationId);
    }
    expect(new Set(seen).size).toBe(operations.length);
    // Every path under /v1 is an operation of the registry (the x402 address is the one outside it).
    const documented = Object.entries(document.paths as Record<string, Record<string, { operationId: string }>>)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([, methods]) => Object.values(methods).map((entry) => entry.operationId));
    expect(documented.sort()).toEqual(operations.map((operation) => operation.name).sort());
  });
});
