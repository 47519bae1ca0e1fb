import * as oauth from 'oauth4webapi';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignJWT } from 'jose';
import { MINUTE, SECOND } from '../../src/core/clock.ts';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { forgetExpired } from '../../src/runtime.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';
import { Browser } from '../support/browser.ts';
import { setMember } from '../support/operator.ts';

// Agent access end to end with a strict OAuth 2.1 client we did not write (oauth4webapi): a
// person signs in with a CLI link, approves in the dashboard, the agent gets EdDSA access tokens,
// uses the API, refreshes, and is disconnected.

let t: TestApp;
const REDIRECT = 'http://127.0.0.1:7777/callback';
let options: { [oauth.customFetch]: typeof fetch };
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  // The service's public origin is https://pay.example.test; its requests go to the test server.
  const local: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace(t.config.baseUrl, t.url), init);
  options = { [oauth.customFetch]: local };
  const issuer = new URL(t.config.oauthIssuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
});
afterAll(async () => t?.close());

async function ownerOf(biz: TestBusiness): Promise<string> {
  const row = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow();
  return row.email;
}

async function register(metadata: Partial<oauth.Client> = {}): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], client_name: 'Test Agent', token_endpoint_auth_method: 'none', ...metadata }, options);
  return oauth.processDynamicClientRegistrationResponse(response);
}

interface Signed {
  browser: Browser;
  biz: TestBusiness;
}

async function signedIn(): Promise<Signed> {
  const biz = await t.business();
  const browser = new Browser(t);
  const link = await createSignInLink(t.context, await ownerOf(biz));
  const signed = await browser.signInWith(link!.url);
  expect(signed.status).toBe(303);
  return { browser, biz };
}

/** The whole sign-in: authorize, approve in the dashboard, exchange the code. */
async function connect(person: Signed, client: oauth.Client, choice: { mode?: 'test' | 'live'; access?: 'full' | 'read_only'; resource?: string; scope?: string } = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', REDIRECT);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  url.searchParams.set('resource', choice.resource ?? `${t.config.baseUrl}/v1`);
  if (choice.scope) url.searchParams.set('scope', choice.scope);
  const approvePage = await person.browser.visit(url.href);
  expect(approvePage.status, approvePage.html).toBe(200);
  expect(approvePage.html).toContain('Test Agent');
  expect(approvePage.html).toContain('unverified');
  const fields = Browser.form(approvePage.html, '/dashboard/approve');
  const decided = await person.browser.request('POST', '/dashboard/approve', {
    ...fields, business: person.biz.id, mode: choice.mode ?? 'test', access: choice.access ?? 'full', decision: 'approve',
  });
  expect(decided.status).toBe(303);
  const callback = new URL(decided.location!);
  expect(callback.origin + callback.pathname).toBe(REDIRECT);
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier,
    { ...options, additionalParameters: { resource: choice.resource ?? `${t.config.baseUrl}/v1` } });
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { tokens, callback, verifier };
}

const api = (token: string, method = 'GET', path = '/v1/payment_links', body?: unknown) => t.request(method, path, { key: token, body });

describe('discovery', () => {
  it('publishes RFC 8414 metadata with the exact issuer and what MCP clients need', async () => {
    expect(as).toMatchObject({
      issuer: t.config.oauthIssuer,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      revocation_endpoint: `${t.config.baseUrl}/oauth/revoke`,
    });
    expect(as.token_endpoint_auth_methods_supported).toContain('none');
    const resource = await t.request('GET', '/.well-known/oauth-protected-resource/v1');
    expect(resource.body.authorization_servers).toEqual([t.config.oauthIssuer]);
  });
});

describe('a connected agent', () => {
  it('signs in through the dashboard, gets an EdDSA at+jwt access token for the API, and uses it', async () => {
    const person = await signedIn();
    const client = await register();
    const { tokens, callback } = await connect(person, client);
    expect(callback.searchParams.get('iss')).toBe(t.config.oauthIssuer);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(300);
    expect(tokens.refresh_token).toBeTruthy();
    const header = decodeProtectedHeader(tokens.access_token);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(header.kid).toBeTruthy();
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      iss: t.config.oauthIssuer, aud: `${t.config.baseUrl}/v1`, client_id: client.client_id, business: person.biz.id, mode: 'test', access: 'full',
      scope: 'payments:read checkouts:write orders:read orders:write customers:read',
    });
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(typeof claims.jti).toBe('string');
    expect(typeof claims.connection_id).toBe('string');

    const created = await api(tokens.access_token, 'POST', '/v1/payment_links', { amount: '10.00', currency: 'USD', description: 'Tea' });
    expect(created.status).toBe(201);
    expect((await api(tokens.access_token, 'GET', `/v1/payment_links/${created.body.id}`)).status).toBe(200);
    // Agents never hold webhook scopes.
    const hooks = await api(tokens.access_token, 'GET', '/v1/webhook_endpoints');
    expect(hooks.status).toBe(403);
    expect(hooks.body.error.code).toBe('insufficient_scope');

    // Refresh: a new pair; the connection keeps working.
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, options));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await api(refreshed.access_token)).status).toBe(200);
  });

  it('a Read only agent holds only the read scopes', async () => {
    const person = await signedIn();
    const client = await register();
    const { tokens } = await connect(person, client, { access: 'read_only' });
    expect(decodeJwt(tokens.access_token).scope).toBe('payments:read orders:read customers:read');
    expect((await api(tokens.access_token)).status).toBe(200);
    const write = await api(tokens.access_token, 'POST', '/v1/payment_links', { amount: '10.00', currency: 'USD', description: 'Tea' });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('insufficient_scope');
  });

  it('is refused with agent_disconnected at once after a disconnect in the dashboard, and cannot refresh', async () => {
    const person = await signedIn();
    const client = await register();
    const { tokens } = await connect(person, client);
    expect((await api(tokens.access_token)).status).toBe(200);
    const agents = await person.browser.visit(`/dashboard/businesses/${person.biz.id}/test/agents`);
    expect(agents.html).toContain('Test Agent');
    const connectionId = decodeJwt(tokens.access_token).connection_id as string;
    const action = `/dashboard/businesses/${person.biz.id}/test/agents/${connectionId}/disconnect`;
    const done = await person.browser.request('POST', action, Browser.form(agents.html, action));
    expect(done.status).toBe(303);
    const refused = await api(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('agent_disconnected');
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, options);
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('is refused with agent_disconnected once the approving person no longer manages keys', async () => {
    const person = await signedIn();
    const { tokens } = await connect(person, await register());
    expect((await api(tokens.access_token)).status).toBe(200);
    const owner = await t.db.selectFrom('agent_connections').select('approved_by').where('id', '=', decodeJwt(tokens.access_token).connection_id as string).executeTakeFirstOrThrow();
    // Another process changes the role (as the CLI would): the NOTIFY reaches this server within moments.
    await t.db.updateTable('memberships').set({ role: 'viewer' }).where('business_id', '=', person.biz.id).where('person_id', '=', owner.approved_by).execute();
    await vi.waitFor(async () => {
      const refused = await api(tokens.access_token);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('agent_disconnected');
    }, { timeout: 3_000 });
  });
});

/** Starts an authorization request in a signed-in browser; returns the first answer. */
async function authorize(person: Signed, params: Record<string, string | undefined>) {
  const url = new URL(as.authorization_endpoint!);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return person.browser.request('GET', url.href);
}

/** A request for `verifier`'s challenge, approved in the dashboard; where the browser is sent. */
async function approved(person: Signed, client: oauth.Client, verifier: string) {
  const page = await authorize(person, await validParams(client, { code_challenge: await oauth.calculatePKCECodeChallenge(verifier) }));
  const approvePage = await person.browser.request('GET', page.location!);
  const decided = await person.browser.request('POST', '/dashboard/approve', {
    ...Browser.form(approvePage.html, '/dashboard/approve'), business: person.biz.id, mode: 'test', access: 'full', decision: 'approve',
  });
  return { callback: new URL(decided.location!) };
}

async function validParams(client: oauth.Client, overrides: Record<string, string | undefined> = {}) {
  return {
    client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', state: 'st-1',
    code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256', ...overrides,
  };
}

describe('the authorization request is checked in full before anyone is asked', () => {
  it.each([
    ['with a username', 'http://evil@127.0.0.1:7777/callback'],
    ['in another case', 'http://127.0.0.1:7777/Callback'],
    ['with a trailing slash', 'http://127.0.0.1:7777/callback/'],
    ['with an extra query', 'http://127.0.0.1:7777/callback?x=1'],
    ['on another host', 'http://127.0.0.2:7777/callback'],
    ['with a fragment', 'http://127.0.0.1:7777/callback#x'],
  ])('refuses a redirect_uri %s on a page, redirecting nowhere', async (_name, redirect) => {
    const person = await signedIn();
    const client = await register();
    const page = await authorize(person, await validParams(client, { redirect_uri: redirect }));
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.html).toContain('redirect_uri');
    expect(await t.db.selectFrom('oauth_requests').select('id').where('client_id', '=', client.client_id).execute()).toEqual([]);
  });

  it('accepts a loopback redirect_uri on any port, but a registered https one only exactly', async () => {
    const person = await signedIn();
    const loopback = await register();
    expect((await authorize(person, await validParams(loopback, { redirect_uri: 'http://127.0.0.1:50123/callback' }))).status).toBe(302);
    const web = await register({ redirect_uris: ['https://agent.example/cb'] });
    expect((await authorize(person, await validParams(web, { redirect_uri: 'https://agent.example/cb' }))).status).toBe(302);
    const otherPort = await authorize(person, await validParams(web, { redirect_uri: 'https://agent.example:8443/cb' }));
    expect(otherPort.status).toBe(400);
    expect(otherPort.location).toBeNull();
  });

  it('refuses an unknown client on a page', async () => {
    const person = await signedIn();
    const page = await authorize(person, { client_id: 'agc_unknown', redirect_uri: REDIRECT, response_type: 'code' });
    expect(page.status).toBe(400);
    expect(page.html).toContain('Unknown client_id');
  });

  it.each([
    ['no PKCE', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['a foreign resource', { resource: 'https://elsewhere.example/v1' }, 'invalid_target'],
    ['a webhook scope', { scope: 'payments:read webhooks:write' }, 'invalid_scope'],
  ])('sends %s back to the redirect_uri as an error, with state and iss', async (_name, overrides, error) => {
    const person = await signedIn();
    const client = await register();
    const page = await authorize(person, await validParams(client, overrides));
    expect(page.status).toBe(302);
    const back = new URL(page.location!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe(error);
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(t.config.oauthIssuer);
  });

  it('sends a person who is not signed in to sign in first, then back to the request', async () => {
    const client = await register();
    const browser = new Browser(t);
    const url = new URL(as.authorization_endpoint!);
    for (const [name, value] of Object.entries(await validParams(client))) url.searchParams.set(name, value!);
    const first = await browser.request('GET', url.href);
    expect(first.status).toBe(302);
    const approve = await browser.request('GET', first.location!);
    expect(approve.status).toBe(303);
    expect(approve.location).toMatch(/^\/dashboard\/sign-in\?next=%2Fdashboard%2Fapprove%3Frequest%3Dareq_/);
  });

  it('a denial goes back as access_denied', async () => {
    const person = await signedIn();
    const client = await register();
    const page = await authorize(person, await validParams(client));
    const approvePage = await person.browser.request('GET', page.location!);
    const denied = await person.browser.request('POST', '/dashboard/approve', { ...Browser.form(approvePage.html, '/dashboard/approve'), decision: 'deny' });
    const back = new URL(denied.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
  });

  it('refuses an approval without the session\'s CSRF token, or posted from another site', async () => {
    const person = await signedIn();
    const client = await register();
    const page = await authorize(person, await validParams(client));
    const approvePage = await person.browser.request('GET', page.location!);
    const fields = Browser.form(approvePage.html, '/dashboard/approve');
    const decision = { business: person.biz.id, mode: 'test', access: 'full', decision: 'approve' };
    expect((await person.browser.request('POST', '/dashboard/approve', { ...fields, csrf: 'forged', ...decision })).status).toBe(403);
    expect((await person.browser.request('POST', '/dashboard/approve', { ...fields, ...decision }, { origin: 'https://evil.example' })).status).toBe(403);
    // No script but the dashboard's own asset (its copy buttons), under the page's nonce.
    expect([...approvePage.html.matchAll(/<script[^>]*>/g)].map(([tag]) => tag.replace(/nonce="[^"]+"/, 'nonce'))).toEqual(
      [...approvePage.html.matchAll(/<script src="\/assets\/dashboard\.[0-9a-f]{16}\.js" nonce="[^"]+" defer>/g)].map(([tag]) => tag.replace(/nonce="[^"]+"/, 'nonce')));
  });
});

describe('codes, tokens and refresh tokens', () => {
  it('requires the code_verifier and refuses a wrong one', async () => {
    const person = await signedIn();
    const client = await register();
    const { callback } = await approved(person, client, oauth.generateRandomCodeVerifier());
    const code = callback.searchParams.get('code')!;
    const token = (form: Record<string, string>) => fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    const base = { grant_type: 'authorization_code', code, client_id: client.client_id, redirect_uri: REDIRECT };
    const missing = await token(base);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('treats a reused code as stolen: refused, and the connection it made is revoked', async () => {
    const person = await signedIn();
    const client = await register();
    const { tokens, callback, verifier } = await connect(person, client);
    expect((await api(tokens.access_token)).status).toBe(200);
    const again = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), oauth.validateAuthResponse(as, client, callback, oauth.skipStateCheck), REDIRECT, verifier, options);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await api(tokens.access_token)).body.error.code).toBe('agent_disconnected');
  });

  it('a used code presented without what binds it to its client is refused and disconnects nothing', async () => {
    const person = await signedIn();
    const client = await register();
    const other = await register();
    const { tokens, callback, verifier } = await connect(person, client);
    const code = callback.searchParams.get('code')!;
    const token = (form: Record<string, string>) => fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    const found = { grant_type: 'authorization_code', code, client_id: client.client_id, redirect_uri: REDIRECT, code_verifier: verifier };
    // What someone who found the used code in a log or a history could send.
    for (const form of [
      { ...found, code_verifier: undefined },
      { ...found, code_verifier: oauth.generateRandomCodeVerifier() },
      { ...found, redirect_uri: 'http://127.0.0.1:7777/other' },
      { ...found, client_id: other.client_id },
      { ...found, resource: `${t.config.baseUrl}/mcp` },
    ]) {
      const refused = await token(Object.fromEntries(Object.entries(form).filter(([, value]) => value !== undefined)) as Record<string, string>);
      expect(refused.status).toBe(400);
      expect(['invalid_grant', 'invalid_target']).toContain(((await refused.json()) as { error: string }).error);
      expect((await api(tokens.access_token)).status, JSON.stringify(form)).toBe(200);
    }
    const connection = await t.db.selectFrom('agent_connections').select(['disconnected_at']).where('client_id', '=', client.client_id).executeTakeFirstOrThrow();
    expect(connection.disconnected_at).toBeNull();
    // The whole request again, verifier and all, is the reuse RFC 9700 means: revoked.
    const reused = await token(found);
    expect(((await reused.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await api(tokens.access_token)).body.error.code).toBe('agent_disconnected');
  });

  it('a token for the MCP endpoint is not valid on the API', async () => {
    const person = await signedIn();
    const { tokens } = await connect(person, await register(), { resource: `${t.config.baseUrl}/mcp` });
    expect(decodeJwt(tokens.access_token).aud).toBe(`${t.config.baseUrl}/mcp`);
    const refused = await api(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_token');
  });

  it('refuses alg none, HS256, foreign and expired tokens with invalid_token', async () => {
    const person = await signedIn();
    const { tokens } = await connect(person, await register());
    const claims = decodeJwt(tokens.access_token);
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`;
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(new TextEncoder().encode('a-secret-anyone-could-guess-0123456789'));
    const tampered = tokens.access_token.replace(/\.[^.]+\./, `.${b64({ ...claims, access: 'full', business: 'biz_other' })}.`);
    for (const token of [none, hs256, tampered, 'eyJhbGciOiJFZERTQSJ9.e30.c2ln']) {
      const refused = await api(token);
      expect(refused.status, token).toBe(401);
      expect(refused.body.error.code).toBe('invalid_token');
    }
    await t.jump(5 * MINUTE + SECOND);
    const expired = await api(tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({ code: 'invalid_token', message: expect.stringContaining('expired') });
  });

  it('rotates refresh tokens: a reuse within the grace window works once, and only one chain goes on', async () => {
    const person = await signedIn();
    const client = await register();
    const { tokens } = await connect(person, client);
    const refresh = (token: string) => oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, options);
    const first = await oauth.processRefreshTokenResponse(as, client, await refresh(tokens.refresh_token!));
    await t.jump(10 * SECOND);
    // A second refresher (or a thief) within the window gets a token, which becomes the only current one.
    const twin = await oauth.processRefreshTokenResponse(as, client, await refresh(tokens.refresh_token!));
    expect(twin.access_token).toBeTruthy();
    await t.jump(MINUTE);
    // The other chain's next use is taken as theft: refused, and the connection is revoked.
    const other = await refresh(first.refresh_token!);
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await api(twin.access_token)).body.error.code).toBe('agent_disconnected');
    expect((await refresh(twin.refresh_token!)).status).toBe(400);
    expect((await refresh(tokens.refresh_token!)).status).toBe(400);
  });

  it('revokes through RFC 7009: the connection ends', async () => {
    const person = await signedIn();
    const client = await register();
    const { tokens } = await connect(person, client);
    const revoked = await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, options);
    await oauth.processRevocationResponse(revoked);
    expect((await api(tokens.access_token)).body.error.code).toBe('agent_disconnected');
    // Unknown tokens are answered the same way.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), 'not-a-token', options));
  });

  it('rotates signing keys without breaking live tokens', async () => {
    const person = await signedIn();
    const client = await register();
    const { tokens } = await connect(person, client);
    const oldKid = decodeProtectedHeader(tokens.access_token).kid;
    await t.context.signingKeys.rotate();
    expect((await api(tokens.access_token)).status).toBe(200);
    const next = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, options));
    expect(decodeProtectedHeader(next.access_token).kid).not.toBe(oldKid);
    const jwks = (await t.request('GET', '/oauth/jwks')).body;
    expect(jwks.keys.map((key: { kid: string }) => key.kid)).toEqual(expect.arrayContaining([oldKid, decodeProtectedHeader(next.access_token).kid]));
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
  });
});

describe('registration (RFC 7591)', () => {
  it.each([
    [{ redirect_uris: ['http://agent.example/cb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://agent.example/cb'], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    [{ redirect_uris: ['com.example.agent:/cb'], application_type: 'web' }, 'invalid_redirect_uri'],
  ])('refuses %j with %s', async (metadata, error) => {
    const response = await fetch(`${t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe(error);
  });

  it('registers a native client with a private-use scheme', async () => {
    const client = await register({ redirect_uris: ['com.example.agent:/oauth/cb'], application_type: 'native' });
    expect(client).toMatchObject({ application_type: 'native', token_endpoint_auth_method: 'none' });
  });

  it('answers bad bodies with OAuth errors, never a 500', async () => {
    for (const [path, type, body] of [['/oauth/register', 'application/json', '[1,2]'], ['/oauth/register', 'application/json', '{'],
      ['/oauth/token', 'application/json', '{}'], ['/oauth/token', 'application/x-www-form-urlencoded', 'grant_type=password'],
      ['/oauth/token', 'application/x-www-form-urlencoded', 'grant_type=authorization_code&grant_type=refresh_token'],
      ['/oauth/revoke', 'application/x-www-form-urlencoded', '']] as const) {
      const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
      expect(response.status, `${path} ${body}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${path} ${body}`).toBeLessThan(500);
      expect(typeof ((await response.json()) as { error: unknown }).error).toBe('string');
    }
  });
});


describe('clients', () => {
  it('forgets a registered client nobody used for 90 days', async () => {
    const person = await signedIn();
    const client = await register();
    await t.jump(91 * 24 * 60 * MINUTE);
    const page = await authorize(person, await validParams(client));
    expect(page.status).toBe(400);
    expect(page.html).toContain('Unknown client_id');
    await forgetExpired(t.context);
    expect(await t.db.selectFrom('oauth_clients').select('client_id').where('client_id', '=', client.client_id).execute()).toEqual([]);
  });

  describe('Client ID Metadata Documents', () => {
    const CLIENT_ID = 'https://agent.example/oauth/client.json';
    let documents: Map<string, { status: number; body: string }>;
    let fetched: string[];
    let original: typeof t.context.outbound.fetchDocument;
    beforeAll(() => {
      // The document would be on the public internet, which tests cannot reach: its fetching is the
      // webhooks' vetted sender (tested there); here the documents are served from this map.
      original = t.context.outbound.fetchDocument.bind(t.context.outbound);
      documents = new Map();
      fetched = [];
      t.context.outbound.fetchDocument = async (url) => {
        fetched.push(url);
        const document = documents.get(url);
        if (!document) throw new Error('not served');
        return { ...document, cacheControl: 'max-age=600' };
      };
    });
    afterAll(() => { t.context.outbound.fetchDocument = original; });

    it('uses a client known by its metadata document URL, and caches the document', async () => {
      documents.set(CLIENT_ID, { status: 200, body: JSON.stringify({ client_id: CLIENT_ID, client_name: 'Document Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) });
      const person = await signedIn();
      const client = { client_id: CLIENT_ID, token_endpoint_auth_method: 'none' } as oauth.Client;
      const page = await authorize(person, await validParams(client));
      expect(page.status).toBe(302);
      const approvePage = await person.browser.request('GET', page.location!);
      expect(approvePage.html).toContain('Document Agent');
      expect(approvePage.html).toContain(CLIENT_ID);
      await authorize(person, await validParams(client));
      expect(fetched.filter((url) => url === CLIENT_ID)).toHaveLength(1);
    });

    it('refuses a document that names another client_id, and one that cannot be fetched, on a page', async () => {
      const person = await signedIn();
      const other = 'https://agent.example/oauth/other.json';
      documents.set(other, { status: 200, body: JSON.stringify({ client_id: 'https://evil.example/x.json', redirect_uris: [REDIRECT] }) });
      const mismatched = await authorize(person, { client_id: other, redirect_uri: REDIRECT, response_type: 'code' });
      expect(mismatched.status).toBe(400);
      expect(mismatched.html).toContain('must name its own URL as client_id');
      const missing = await authorize(person, { client_id: 'https://agent.example/oauth/missing.json', redirect_uri: REDIRECT, response_type: 'code' });
      expect(missing.status).toBe(400);
      expect(missing.html).toContain('could not be fetched');
    });
  });

  it('fetches metadata documents only from public addresses', async () => {
    const person = await signedIn();
    const resolve = t.context.resolveHost;
    t.context.resolveHost = async () => ['10.0.0.5'];
    try {
      const page = await authorize(person, { client_id: 'https://agent.internal-looking.example/client.json', redirect_uri: REDIRECT, response_type: 'code' });
      expect(page.status).toBe(400);
      expect(page.html).toContain('not on the public internet');
    } finally {
      t.context.resolveHost = resolve;
    }
  });
});

describe('tenancy', () => {
  it('an agent sees only its own business and mode', async () => {
    const person = await signedIn();
    const { tokens } = await connect(person, await register());
    const otherKey = (await (await t.business()).key()).secret;
    const other = await t.request('POST', '/v1/payment_links', { key: otherKey, body: { amount: '10.00', currency: 'USD', description: 'Tea' } });
    const liveKey = (await person.biz.key({ mode: 'live' })).secret;
    const live = await t.request('POST', '/v1/payment_links', { key: liveKey, body: { amount: '10.00', currency: 'USD', description: 'Tea' } });
    for (const id of [other.body.id, live.body.id]) {
      const read = await api(tokens.access_token, 'GET', `/v1/payment_links/${id}`);
      expect(read.status).toBe(404);
      expect(read.body.error.code).toBe('not_found');
    }
  });
});

describe('review regressions', () => {
  it('a wrong code_verifier does not spend the code', async () => {
    const person = await signedIn();
    const client = await register();
    const verifier = oauth.generateRandomCodeVerifier();
    const { callback } = await approved(person, client, verifier);
    const params = oauth.validateAuthResponse(as, client, callback, 'st-1');
    const wrong = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, oauth.generateRandomCodeVerifier(), options);
    expect(wrong.status).toBe(400);
    const right = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, options));
    expect((await api(right.access_token)).status).toBe(200);
  });

  it('choosing a business one cannot approve for leaves the request open to choose again', async () => {
    const person = await signedIn();
    const client = await register();
    const page = await authorize(person, await validParams(client));
    const approvePage = await person.browser.request('GET', page.location!);
    const fields = Browser.form(approvePage.html, '/dashboard/approve');
    const other = await t.business();
    // Another business is not found, as everywhere; a viewer's role is refused by the action.
    const refused = await person.browser.request('POST', '/dashboard/approve', { ...fields, business: other.id, mode: 'test', access: 'full', decision: 'approve' });
    expect(refused.status).toBe(404);
    await setMember(t.context, { businessId: other.id, email: await ownerOf(person.biz), role: 'viewer' });
    const viewer = await person.browser.request('POST', '/dashboard/approve', { ...fields, business: other.id, mode: 'test', access: 'full', decision: 'approve' });
    expect(viewer.status).toBe(403);
    const approved = await person.browser.request('POST', '/dashboard/approve', { ...fields, business: person.biz.id, mode: 'test', access: 'full', decision: 'approve' });
    expect(new URL(approved.location!).searchParams.get('code')).toBeTruthy();
  });

  it('answers text with NUL or control characters with a 400, never a 500', async () => {
    const person = await signedIn();
    const client = await register();
    const token = await fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=x&client_id=%00' });
    expect(token.status).toBe(400);
    const revoke = await fetch(`${t.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=x&client_id=%00' });
    expect(revoke.status).toBe(400);
    const withState = await authorize(person, await validParams(client, { state: 'a\u0000b' }));
    expect(withState.status).toBe(400);
    for (const path of ['/dashboard/approve?request=%00', `/dashboard/businesses/%00/test/agents`, `/dashboard/businesses/%00/test/team`]) {
      expect((await person.browser.request('GET', path)).status, path).toBe(400);
    }
    const nul = await fetch(`${t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'a\u0001b' }) });
    expect(nul.status).toBe(400);
  });

  it('registers an editor\'s own scheme (cursor://) and shows it whole on the approval page', async () => {
    const person = await signedIn();
    const client = await register({ redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'], application_type: 'native' });
    const page = await authorize(person, await validParams(client, { redirect_uri: 'cursor://anysphere.cursor-mcp/oauth/callback' }));
    const approvePage = await person.browser.request('GET', page.location!);
    expect(approvePage.html).toContain('cursor://anysphere.cursor-mcp/oauth/callback (an application on this device)');
    const spoof = await register({ redirect_uris: ['com.evil.app://accounts.google.com/cb'], application_type: 'native' });
    const spoofPage = await person.browser.request('GET', (await authorize(person, await validParams(spoof, { redirect_uri: 'com.evil.app://accounts.google.com/cb' }))).location!);
    expect(spoofPage.html).toContain('com.evil.app://accounts.google.com/cb (an application on this device)');
  });
});
