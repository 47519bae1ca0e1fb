import { auth } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { localFetch, MemoryOAuthProvider } from '../support/mcp-oauth.ts';

// The sign-in as an MCP client does it, through the official MCP TypeScript SDK's auth(): from
// the protected resource's metadata to the authorization server, dynamic registration, PKCE, the
// person's approval in the dashboard, the code exchange and a refresh.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());


it('signs in with the MCP SDK\'s auth(), then uses and refreshes its token', async () => {
  const fetchFn = localFetch(t);
  const serverUrl = `${t.config.baseUrl}/v1`;
  const provider = new MemoryOAuthProvider('SDK Agent');
  expect(await auth(provider, { serverUrl, fetchFn })).toBe('REDIRECT');
  expect(provider.clientInfo.client_id).toMatch(/^agc_/);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl);

  const biz = await t.business();
  const owner = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email').where('m.business_id', '=', biz.id).executeTakeFirstOrThrow();
  const browser = new Browser(t);
  await browser.signInWith((await createSignInLink(t.context, owner.email))!.url);
  const approvePage = await browser.visit(authorizationUrl.href);
  expect(approvePage.html).toContain('SDK Agent');
  const decided = await browser.request('POST', '/dashboard/approve', {
    ...Browser.form(approvePage.html, '/dashboard/approve'), business: biz.id, mode: 'test', access: 'read_only', decision: 'approve',
  });
  const callback = new URL(decided.location!);
  expect(await auth(provider, { serverUrl, fetchFn, authorizationCode: callback.searchParams.get('code')!, iss: callback.searchParams.get('iss')! })).toBe('AUTHORIZED');
  const first = provider.savedTokens;
  expect(decodeJwt(first.access_token)).toMatchObject({ aud: serverUrl, access: 'read_only', business: biz.id });
  expect((await t.request('GET', '/v1/payment_links', { key: first.access_token })).status).toBe(200);

  // Refresh through the SDK: a new access token and a rotated refresh token.
  await t.jump(6 * 60_000);
  expect((await t.request('GET', '/v1/payment_links', { key: first.access_token })).body.error.code).toBe('invalid_token');
  expect(await auth(provider, { serverUrl, fetchFn })).toBe('AUTHORIZED');
  expect(provider.savedTokens.refresh_token).not.toBe(first.refresh_token);
  expect((await t.request('GET', '/v1/payment_links', { key: provider.savedTokens.access_token })).status).toBe(200);
});
