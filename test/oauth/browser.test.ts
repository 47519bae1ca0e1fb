import * as oauth from 'oauth4webapi';
import { expect, it } from 'vitest';
import { appWithChromium } from '../support/browser-app.ts';
import { createSignInLink } from '../../src/auth/sessions.ts';

// The agent sign-in once in a real headless browser (Debian's Chromium, driven by
// playwright-core): the person opens a sign-in link, signs in, is sent to approve the agent's
// request, chooses and approves; the agent exchanges the code with oauth4webapi.

const app = appWithChromium();

it('a person approves an agent in Chromium; the agent gets a Read only token that works', async () => {
  const http = { [oauth.allowInsecureRequests]: true };
  const issuer = new URL(app.t.config.oauthIssuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, algorithm: 'oauth2' }));
  const redirect = 'http://127.0.0.1:7777/callback';
  const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as,
    { redirect_uris: [redirect], client_name: 'Browser Agent', token_endpoint_auth_method: 'none' }, http));

  const biz = await app.t.business({ name: 'Corner Shop' });
  const owner = await app.t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow();
  const page = await app.browser.newPage();
  let callback: URL | undefined;
  // The agent's loopback listener: the browser's arrival there is the authorization response.
  await page.route('http://127.0.0.1:7777/**', async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can close this window.' });
  });

  await page.goto((await createSignInLink(app.t.context, owner.email))!.url);
  await page.click('button');
  await page.waitForURL(`${app.t.config.baseUrl}/dashboard`);
  expect(await page.textContent('body')).toContain('Corner Shop');

  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  for (const [name, value] of Object.entries({
    client_id: client.client_id, redirect_uri: redirect, response_type: 'code', state, code_challenge_method: 'S256',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), resource: `${app.t.config.baseUrl}/v1`,
  })) url.searchParams.set(name, value);
  await page.goto(url.href);
  expect(page.url()).toContain('/dashboard/approve?request=');
  const body = await page.textContent('body');
  expect(body).toContain('Browser Agent');
  expect(body).toContain('unverified');
  await page.selectOption('select[name="business"]', biz.id);
  await page.check('input[name="access"][value="read_only"]');
  await page.click('button[value="approve"]');
  await page.waitForURL(/127\.0\.0\.1:7777\/callback/);

  expect(callback!.searchParams.get('iss')).toBe(app.t.config.oauthIssuer);
  const params = oauth.validateAuthResponse(as, client, callback!, state);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirect, verifier, http));
  expect((await app.t.request('GET', '/v1/payment_links', { key: tokens.access_token })).status).toBe(200);
  const write = await app.t.request('POST', '/v1/payment_links', { key: tokens.access_token, body: { amount: '10.00', currency: 'USD', description: 'Tea' } });
  expect(write.body.error.code).toBe('insufficient_scope');
  await page.close();
}, 60_000);
