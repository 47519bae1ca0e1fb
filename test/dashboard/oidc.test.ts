import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setMember } from '../support/operator.ts';
import { Browser, type Page } from '../support/browser.ts';
import { freePort, startTestApp, type TestApp } from '../support/harness.ts';

// People's sign-in through a real OpenID provider on loopback (oidc-provider, with its
// development login and consent pages): @fastify/oauth2 runs the code flow with PKCE, the
// id_token is verified with jose, and the person lands in the dashboard signed in.

let t: TestApp;
let server: Server;
let issuer: string;
const CLIENT = { id: 'payment-dashboard', secret: 'dashboard-secret-0123456789abcdef' };


beforeAll(async () => {
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT.id, client_secret: CLIENT.secret, grant_types: ['authorization_code'], response_types: ['code'],
      redirect_uris: ['https://pay.example.test/dashboard/sign-in/oidc/callback'],
    }],
    // Any login is accepted: the provider vouches for the email it is given.
    // A login starting with "unverified-" gets an email the provider does not vouch for.
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => (id.startsWith('unverified-') ? { sub: id, email: id.slice('unverified-'.length) } : { sub: id, email: id, email_verified: true }),
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
  } as never);
  server = provider.listen(port, '127.0.0.1') as unknown as Server;
  t = await startTestApp({ RATE_LIMITS: 'off', OIDC_ISSUER: issuer, OIDC_CLIENT_ID: CLIENT.id, OIDC_CLIENT_SECRET: CLIENT.secret, OIDC_NAME: 'Example ID' });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Follows redirects anywhere (our service or the provider) until a page answers. */
async function follow(browser: Browser, page: Page, from: string): Promise<{ page: Page; url: string }> {
  let url = from;
  for (let hops = 0; page.location && hops < 15; hops += 1) {
    url = new URL(page.location, url).href;
    page = await browser.request('GET', url);
  }
  return { page, url };
}

/** Posts the provider's one form on `page` with `fields`. */
async function submit(browser: Browser, page: Page, url: string, fields: Record<string, string>) {
  const action = /<form[^>]*action="([^"]+)"/.exec(page.html)?.[1];
  if (!action) throw new Error(`No form on ${url}:\n${page.html}`);
  const target = new URL(action, url).href;
  return follow(browser, await browser.request('POST', target, fields), target);
}

it('signs a member in through the OpenID provider and back to where they were going', async () => {
  const biz = await t.business();
  const email = `oidc-${biz.id}@shop.example`.toLowerCase();
  await setMember(t.context, { businessId: biz.id, email, role: 'developer' });
  const browser = new Browser(t);
  const signIn = await browser.request('GET', '/dashboard/sign-in?next=%2Fdashboard%2Fbusinesses');
  expect(signIn.html).toContain('Sign in with Example ID');
  const start = await browser.request('GET', '/dashboard/sign-in/oidc?next=%2Fdashboard');
  expect(start.status).toBe(303);
  const authorize = new URL(start.location!);
  expect(authorize.origin).toBe(issuer);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('nonce')).toBeTruthy();
  expect(authorize.searchParams.get('state')).toBeTruthy();
  expect(authorize.searchParams.get('prompt'), 'a first sign-in lets the provider use its own session').toBeNull();
  // Signing in again (for a payout wallet change) asks the provider to ask too, and the page offers it so.
  const again = await browser.request('GET', '/dashboard/sign-in?next=%2Fdashboard&again=1');
  expect(again.html).toContain('/dashboard/sign-in/oidc?next=%2Fdashboard&amp;again=1');
  const startAgain = await new Browser(t).request('GET', '/dashboard/sign-in/oidc?next=%2Fdashboard&again=1');
  expect(new URL(startAgain.location!).searchParams.get('prompt')).toBe('login');

  const login = await follow(browser, await browser.request('GET', authorize.href), authorize.href);
  expect(login.page.html).toContain('name="login"');
  const consent = await submit(browser, login.page, login.url, { prompt: 'login', login: email, password: 'anything' });
  const landed = consent.page.html.includes('name="prompt" value="consent"')
    ? await submit(browser, consent.page, consent.url, { prompt: 'consent' })
    : consent;
  expect(landed.url).toBe(`${t.config.baseUrl}/dashboard`);
  expect(landed.page.status).toBe(200);
  expect(landed.page.html).toContain(biz.id);
  expect(landed.page.html).toContain(email);
});

it('refuses a person who is in no business, and a callback that did not start in this browser', async () => {
  const browser = new Browser(t);
  const start = await browser.request('GET', '/dashboard/sign-in/oidc');
  const login = await follow(browser, await browser.request('GET', start.location!), start.location!);
  const consent = await submit(browser, login.page, login.url, { prompt: 'login', login: 'stranger@nowhere.example', password: 'x' });
  const landed = consent.page.html.includes('name="prompt" value="consent"') ? await submit(browser, consent.page, consent.url, { prompt: 'consent' }) : consent;
  expect(landed.page.status).toBe(400);
  expect(landed.page.html).toContain('is not a member of any business');

  const forged = await new Browser(t).request('GET', '/dashboard/sign-in/oidc/callback?code=abc&state=xyz');
  expect(forged.status).toBe(400);
  expect(forged.html).toContain('could not be completed');
});

it('refuses an email the provider does not say it verified', async () => {
  const biz = await t.business();
  const email = `plain-${biz.id}@shop.example`.toLowerCase();
  await setMember(t.context, { businessId: biz.id, email, role: 'owner' });
  const browser = new Browser(t);
  const start = await browser.request('GET', '/dashboard/sign-in/oidc');
  const login = await follow(browser, await browser.request('GET', start.location!), start.location!);
  const consent = await submit(browser, login.page, login.url, { prompt: 'login', login: `unverified-${email}`, password: 'x' });
  const landed = consent.page.html.includes('name="prompt" value="consent"') ? await submit(browser, consent.page, consent.url, { prompt: 'consent' }) : consent;
  expect(landed.page.status).toBe(400);
  expect(landed.page.html).toContain('did not give a verified email address');
});
