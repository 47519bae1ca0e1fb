import { createHmac, randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { LINK_BODY } from '../support/api.ts';
import { Browser } from '../support/browser.ts';
import { startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { captureLog, type LogCapture } from '../support/log-capture.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { webhookBench } from '../webhooks/support.ts';

// No key material in the log. An app logging at its most verbose level (trace) into a captured
// stream carries a slice of the suite's traffic: secret keys (the API's, MCP's, one made in the
// dashboard, wrong and revoked ones), an agent's whole OAuth sign-in (code, verifier, access and
// refresh tokens, revocation), webhook endpoint secrets (made, rolled, used to sign a real
// delivery), sign-in links and the session they open, processor notices signed with its secret,
// a payment's tracking link and the metrics token. Then every log line is searched for each of
// them, and for anything shaped like one.

const METRICS_TOKEN = `metrics-${randomBytes(24).toString('hex')}`;
const REDIRECT = 'http://127.0.0.1:7777/callback';

let t: TestApp;
let log: LogCapture;
let receiver: Receiver;
/** What the traffic used, by what it is: none of it may reach a log line. */
const secrets = new Map<string, string>();
const keep = (what: string, value: string | null | undefined) => {
  expect(value, what).toBeTruthy();
  secrets.set(what, value!);
};

beforeAll(async () => {
  log = captureLog();
  t = await startTestApp({ LOG_LEVEL: 'trace', METRICS_TOKEN, RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' }, { workers: true, logStream: log.stream });
  receiver = await startReceiver();
  keep('metrics token', METRICS_TOKEN);
  keep('processor secret', TEST_PROCESSOR_SECRET);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const { startPayment, at } = webhookBench(() => t, () => receiver);

/** Shapes of key material whatever its value: secret keys, webhook secrets, JWTs, credentials in a query. */
const SHAPES: Array<[string, RegExp]> = [
  ['a secret key', /sk_(test|live)_[A-Za-z0-9]{12,}/],
  ['a webhook secret', /whsec_[A-Za-z0-9+/=_-]{12,}/],
  ['a JWT', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\./],
  ['a credential in a query', /[?&](token|code|code_verifier|refresh_token|client_secret)=/],
  ['a header that carries credentials', /"(authorization|cookie|set-cookie|processor-signature|service-signature)"/i],
];

/** Every (what, line) where a kept secret or a secret's shape appears. */
function findings(lines: readonly string[]): string[] {
  const found: string[] = [];
  for (const line of lines) {
    for (const [what, value] of secrets) if (line.includes(value)) found.push(`${what}: ${line}`);
    for (const [what, shape] of SHAPES) if (shape.test(line)) found.push(`${what}: ${line}`);
  }
  return found;
}

async function apiTraffic(): Promise<void> {
  const biz = await t.business();
  const test = await biz.key();
  const live = await biz.key({ mode: 'live' });
  keep('secret key', test.secret);
  keep('live secret key', live.secret);
  const link = await t.request('POST', '/v1/payment_links', { key: test.secret, body: LINK_BODY });
  expect(link.status).toBe(201);
  expect((await t.request('GET', `/v1/payment_links/${link.body.id}`, { key: test.secret })).status).toBe(200);
  // The tracking link is the buyer's credential to the payment.
  const tracking = new URL(link.body.tracking_url as string);
  keep('tracking token', tracking.pathname.split('/').pop());
  expect((await fetch(`${t.url}${tracking.pathname}`)).status).toBe(200);
  expect((await fetch(`${t.url}${tracking.pathname}/status`)).status).toBeLessThan(500);
  // Over MCP, with a key.
  const mcp = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${test.secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  expect(mcp.status).toBe(200);
  // Wrong, malformed and revoked keys, past the per-address limit.
  const wrong = `sk_test_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`;
  keep('wrong secret key', wrong);
  await test.revoke();
  for (const key of [wrong, test.secret, 'Bearer-ish nonsense', wrong, wrong]) expect((await t.request('GET', '/v1/payment_links', { key })).status).toBeGreaterThanOrEqual(400);
  await t.clock.advance(60_000);
}

async function webhookTraffic(browser: Browser, businessId: string, key: string): Promise<void> {
  const created = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `${receiver.url}/logged` } });
  expect(created.status).toBe(201);
  keep('webhook secret', created.body.secret);
  // Rolled in the dashboard, keeping the previous one: the page shows the new secret once.
  const endpoint = `/dashboard/businesses/${businessId}/test/webhooks/${created.body.id}`;
  const roll = `${endpoint}/roll`;
  const rolled = await browser.request('POST', roll, { ...Browser.form((await browser.request('GET', roll)).html, roll), keep_previous: 'yes' });
  expect(rolled.status).toBe(303);
  keep('rolled webhook secret', /<code>(whsec_\w+)<\/code>/.exec((await browser.request('GET', endpoint)).html)?.[1]);
  await startPayment(key);
  await vi.waitFor(() => expect(at('/logged')).toHaveLength(1), { timeout: 10_000 });
  keep('a delivery\'s signature', at('/logged')[0]!.headers['service-signature'] as string);
}

async function signInTraffic(): Promise<{ browser: Browser; businessId: string }> {
  const biz = await t.business();
  const owner = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow();
  const link = (await createSignInLink(t.context, owner.email))!.url;
  keep('sign-in link token', new URL(link).searchParams.get('token'));
  const browser = new Browser(t);
  expect((await browser.signInWith(link)).status).toBe(303);
  for (const value of browser.cookieValues()) keep('a dashboard cookie', value);
  // A used link again, and one never made.
  expect((await new Browser(t).signInWith(link)).status).toBe(400);
  const forged = `${t.config.baseUrl}/dashboard/sign-in/link?token=${randomBytes(32).toString('base64url')}`;
  keep('a forged sign-in token', new URL(forged).searchParams.get('token'));
  expect((await new Browser(t).signInWith(forged)).status).toBe(400);
  // A key made in the dashboard, shown once on its page.
  const keys = `/dashboard/businesses/${biz.id}/test/keys`;
  const form = Browser.form((await browser.visit(keys)).html, keys);
  const shown = await browser.request('POST', keys, { ...form, name: 'Till', access: 'full' });
  expect(shown.status).toBe(303);
  keep('a key made in the dashboard', /sk_test_[A-Za-z0-9]+/.exec((await browser.visit(shown.location!)).html)?.[0]);
  return { browser, businessId: biz.id };
}

async function agentTraffic(browser: Browser): Promise<void> {
  const local: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace(t.config.baseUrl, t.url), init);
  const options = { [oauth.customFetch]: local };
  const issuer = new URL(t.config.oauthIssuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
  const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], client_name: 'Log Agent', token_endpoint_auth_method: 'none' }, options));
  const verifier = oauth.generateRandomCodeVerifier();
  keep('PKCE verifier', verifier);
  const url = new URL(as.authorization_endpoint!);
  const resource = `${t.config.baseUrl}/v1`;
  for (const [name, value] of Object.entries({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 'st', resource })) url.searchParams.set(name, value);
  const approve = await browser.visit(url.href);
  expect(approve.status).toBe(200);
  const businessId = /name="business" value="([^"]+)"/.exec(approve.html)?.[1] ?? (await t.db.selectFrom('businesses').select('id').orderBy('created_at', 'desc').executeTakeFirstOrThrow()).id;
  const decided = await browser.request('POST', '/dashboard/approve', { ...Browser.form(approve.html, '/dashboard/approve'), business: businessId, mode: 'test', access: 'full', decision: 'approve' });
  expect(decided.status).toBe(303);
  const callback = new URL(decided.location!);
  keep('authorization code', callback.searchParams.get('code'));
  const params = oauth.validateAuthResponse(as, client, callback, 'st');
  const tokens = await oauth.processAuthorizationCodeResponse(as, client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...options, additionalParameters: { resource } }));
  keep('access token', tokens.access_token);
  keep('refresh token', tokens.refresh_token);
  expect((await t.request('GET', '/v1/payment_links', { key: tokens.access_token })).status).toBe(200);
  // The used code again (refused, and the connection revoked), then a refresh and a revocation.
  await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...options, additionalParameters: { resource } });
  await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, options);
  await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, options);
}

async function processorTraffic(): Promise<void> {
  const body = JSON.stringify({ id: `ntc_${randomBytes(8).toString('hex')}`, type: 'deposit.confirmed', deposit_address: '0x2222222222222222222222222222222222222222', coin: 'polygon_usdc', network: 'polygon', amount: '1.000000', txid: `0x${randomBytes(32).toString('hex')}`, forwarded_to: '0x1111111111111111111111111111111111111111' });
  const timestamp = Math.floor(t.clock.now().getTime() / 1000);
  const signature = `t=${timestamp},v1=${createHmac('sha256', TEST_PROCESSOR_SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
  keep('a processor notice\'s signature', signature);
  for (const header of [signature, `t=${timestamp},v1=${'0'.repeat(64)}`]) {
    const response = await fetch(`${t.url}/processor/notices`, { method: 'POST', headers: { 'content-type': 'application/json', 'processor-signature': header }, body });
    expect(response.status).toBeLessThan(500);
  }
}

describe('the log at LOG_LEVEL=trace', () => {
  it('carries no key material through a slice of the suite\'s traffic', async () => {
    await apiTraffic();
    const { browser, businessId } = await signInTraffic();
    await webhookTraffic(browser, businessId, secrets.get('a key made in the dashboard')!);
    await agentTraffic(browser);
    await processorTraffic();
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    // The traffic was logged (a line per request and more), and nothing in it is a secret.
    expect(log.entries().filter((entry) => entry.msg === 'request completed').length).toBeGreaterThan(30);
    expect(secrets.size).toBeGreaterThanOrEqual(18);
    expect(findings(log.lines())).toEqual([]);
  });

  it('would see a secret that reached a log line', async () => {
    const planted = `sk_test_${randomBytes(16).toString('hex')}`;
    keep('planted secret', planted);
    await fetch(`${t.url}/v1/nothing/${planted}`);
    await vi.waitFor(() => expect(findings(log.lines()).some((finding) => finding.startsWith('planted secret: '))).toBe(true));
    secrets.delete('planted secret');
  });
});
