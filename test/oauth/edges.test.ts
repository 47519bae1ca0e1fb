import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, dashboardMerchant } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Issue 14, finding 7 (edges probed from outside): the token and revocation endpoints took JSON
// and answered 500 when a field was not a string; a dashboard form posted as malformed JSON
// answered 500. Each accepts only what it advertises (form encoding) and refuses the rest.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

describe('OAuth token and revocation endpoints take only form encoding', () => {
  it.each([
    ['/oauth/token', { grant_type: 'refresh_token', refresh_token: 12345, client_id: 'agc_x' }],
    ['/oauth/token', { grant_type: 'authorization_code', code: { nested: true }, client_id: 'agc_x' }],
    ['/oauth/token', { grant_type: 'authorization_code', code: 'x', client_id: { id: 'agc_x' } }],
    ['/oauth/revoke', { token: 12345, client_id: 'agc_x' }],
    ['/oauth/revoke', { token: 'x', client_id: ['agc_x'] }],
  ])('%s refuses a JSON body (%j) with invalid_request, never a 500', async (path, body) => {
    const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(400);
    const answer = await response.json();
    expect(answer.error).toBe('invalid_request');
    expect(answer.error_description).toContain('application/x-www-form-urlencoded');
  });

  it('still refuses an unknown form-encoded grant as before (unsupported_grant_type)', async () => {
    const response = await fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&client_id=agc_x' });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('unsupported_grant_type');
  });
});

describe('dashboard forms take only form encoding', () => {
  it('a form posted as JSON (malformed or not) is refused with 415 and changes nothing', async () => {
    const m = await dashboardMerchant(t);
    const page = await m.owner.request('GET', m.area('keys'));
    const before = await t.db.selectFrom('api_keys').select('id').where('business_id', '=', m.biz.id).execute();
    for (const body of ['{bad', JSON.stringify({ csrf: csrfOf(page.html), name: 'json key', access: 'full' })]) {
      const refused = await m.owner.request('POST', m.area('keys'), undefined, { 'content-type': 'application/json' }, body);
      expect(refused.status, body).toBe(415);
    }
    expect(await t.db.selectFrom('api_keys').select('id').where('business_id', '=', m.biz.id).execute()).toEqual(before);
  });
});

describe('a person\'s email, wherever it is entered', () => {
  const long = `${'a'.repeat(5000)}@example.com`;

  it('a team member\'s email of 5,000 characters is refused in the dashboard, as the API refuses one, and stored nowhere', async () => {
    const m = await dashboardMerchant(t);
    const page = await m.owner.request('GET', m.area('team'));
    const refused = await m.owner.request('POST', m.area('team'), { csrf: csrfOf(page.html), email: long, role: 'viewer' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('too long');
    expect(await t.db.selectFrom('people').select('id').where('email', 'like', 'aaaa%').execute()).toEqual([]);
  });

  it('a new business\'s owner takes the same rules (the operator\'s CLI)', async () => {
    const { createBusiness } = await import('../../src/tenancy/businesses.ts');
    await expect(createBusiness(t.db, t.clock, { name: 'Long owner', ownerEmail: long })).rejects.toMatchObject({ code: 'invalid_email' });
    await expect(createBusiness(t.db, t.clock, { name: 'Not an owner', ownerEmail: 'not-an-email' })).rejects.toMatchObject({ code: 'invalid_email' });
    expect(await t.db.selectFrom('businesses').select('id').where('name', 'in', ['Long owner', 'Not an owner']).execute()).toEqual([]);
  });
});

describe('text a client registers', () => {
  it.each([
    ['a right-to-left override (U+202E)', 'Evil\u202Edeifirevnu'],
    ['a left-to-right isolate (U+2066)', 'Name\u2066x\u2069'],
    ['a zero-width joiner (U+200D)', 'Pay\u200Dpal'],
    ['a byte order mark (U+FEFF)', '\uFEFFAgent'],
  ])('refuses a client_name with %s', async (_name, clientName) => {
    const response = await fetch(`${t.url}/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: clientName, redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(response.status).toBe(400);
    const answer = await response.json();
    expect(answer.error).toBe('invalid_client_metadata');
    expect(answer.error_description).toContain('invisible formatting');
  });

  it('still takes names in any script (Arabic, Hebrew, emoji)', async () => {
    const response = await fetch(`${t.url}/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'مساعد الدفع עוזר 🤖', redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(response.status).toBe(201);
  });
});

describe('native redirect URIs (RFC 8252 7.1)', () => {
  const registration = (redirect: string) => fetch(`${t.url}/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Native agent', redirect_uris: [redirect], application_type: 'native', token_endpoint_auth_method: 'none' }),
  });

  it.each(['ms-msdt:id=PCWDiagnostic', 'search-ms:query=invoice', 'view-source:https://pay.example.test/', 'jar:https://agent.example/x.jar!/', 'chrome://settings', 'myapp:/callback', 'com-example:/cb', 'com.-example:/cb'])(
    'refuses %s with invalid_redirect_uri', async (redirect) => {
      const response = await registration(redirect);
      expect(response.status).toBe(400);
      const answer = await response.json();
      expect(answer.error).toBe('invalid_redirect_uri');
      expect(answer.error_description).toContain('reverse-domain');
    });

  it.each(['com.example.app:/oauth/callback', 'io.github.someone.agent:/cb', 'cursor://anysphere.cursor-mcp/oauth/callback', 'vscode://example.publisher/cb', 'windsurf://codeium.windsurf/cb'])(
    'takes %s', async (redirect) => {
      expect((await registration(redirect)).status).toBe(201);
    });

  it('a client registered with such a scheme before it was refused never gets a redirect to it', async () => {
    const now = t.clock.now();
    const clientId = 'agc_old_ms_msdt';
    await t.db.insertInto('oauth_clients').values({
      client_id: clientId, kind: 'registered', client_name: 'Old client', client_uri: null, logo_uri: null, redirect_uris: ['ms-msdt:id=PCWDiagnostic'],
      application_type: 'native', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
      scope: null, software_id: null, software_version: null, created_at: now, last_used_at: now, fetched_at: null,
    }).execute();
    for (const query of [`client_id=${clientId}`, `client_id=${clientId}&redirect_uri=${encodeURIComponent('ms-msdt:id=PCWDiagnostic')}`]) {
      // response_type missing: an error the service would otherwise send back to the redirect URI.
      const response = await fetch(`${t.url}/oauth/authorize?${query}`, { redirect: 'manual' });
      expect(response.status, query).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('redirect_uri is not one of');
    }
  });
});

describe('the sign-in endpoints\' per-address limits', () => {
  let limited: TestApp;
  // 3 a minute unauthenticated: 15 requests a minute to the OAuth endpoints, 1 registration.
  beforeAll(async () => { limited = await startTestApp({ RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' }); });
  afterAll(async () => limited?.close());
  const register = () => fetch(`${limited.url}/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Limits', redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'none' }),
  });
  const revoke = () => fetch(`${limited.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=x&client_id=agc_x' });

  it('say in a sentence which limit was passed and when to retry, as Retry-After does', async () => {
    expect((await register()).status).toBe(201);
    const secondRegistration = await register();
    expect(secondRegistration.status).toBe(429);
    expect(secondRegistration.headers.get('retry-after')).toBe('60');
    expect(await secondRegistration.json()).toEqual({ error: 'invalid_request', error_description: 'This address passed the limit of 1 client registration a minute. Retry after 60 seconds.' });
    for (let i = 0; i < 13; i += 1) expect((await revoke()).status).not.toBe(429);
    const over = await revoke();
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ error: 'invalid_request', error_description: 'This address passed the limit of 15 requests a minute to the sign-in endpoints. Retry after 60 seconds.' });
    limited.clock.advance(60_000);
    expect((await revoke()).status).not.toBe(429);
  });
});
