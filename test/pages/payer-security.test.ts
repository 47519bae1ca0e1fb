import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';

// The payer pages as a stranger meets them over plain HTTP: the headers of every response
// (a fresh CSP nonce, no framing, no referrer, no shared caching), forms refused without this
// page's token in this browser, per-address limits answered with a page, odd headers and
// addresses that never make a 500, and pages that show nothing beyond their own payment.
// Rate limits are on, low, and counted per client address (TRUST_PROXY: each test is its own
// address through X-Forwarded-For, so one test's loads never spend another's budget).

const PAGES_PER_MINUTE = 20;
const FORMS_PER_MINUTE = 6;

let t: TestApp;
let biz: TestBusiness;
let key: string;
let checkout: { id: string; slug: string; url: string };
let otherCheckout: { slug: string };
let link: { id: string; url: string; tracking_url: string };
/** The link's tracking page, at its own token. */
let tracking: string;
let otherLink: { id: string };

let addresses = 0;
/** A client address no other test uses. */
const address = () => `203.0.113.${(addresses += 1)}`;

/** One request from `ip`, the app's public origin mapped to the test server. */
function get(ip: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.url}${path.replace(t.config.baseUrl, '')}`, { headers: { 'x-forwarded-for': ip, ...headers }, redirect: 'manual' });
}

/** A browser (its own cookie jar) at its own address. */
function buyer() {
  const browser = new Browser(t);
  const ip = address();
  const from = { 'x-forwarded-for': ip };
  return {
    ip,
    browser,
    open: (path: string) => browser.request('GET', path, undefined, from),
    post: (path: string, form: Record<string, string>) => browser.request('POST', path, form, from),
  };
}

const checkoutAction = (slug: string) => `/c/${slug}`;
const tokenIn = (html: string, action: string) => Browser.form(html, action)[CSRF_FIELD]!;

async function payments(source?: string): Promise<Array<{ id: string; checkout_id: string | null; started_at: number | null }>> {
  const listed = await t.request('GET', `/v1/payments?limit=100${source ? `&source=${source}` : ''}`, { key });
  expect(listed.status).toBe(200);
  return listed.body.data;
}

async function createCheckout(body: Record<string, unknown> = {}, withKey = key) {
  const created = await t.request('POST', '/v1/checkouts', { key: withKey, body: { name: 'House blend', amount: '18.50', currency: 'EUR', ...body } });
  expect(created.status).toBe(201);
  return created.body;
}

beforeAll(async () => {
  t = await startTestApp({
    TRUST_PROXY: 'true',
    RATE_LIMIT_PAYER_PAGES_PER_MINUTE: String(PAGES_PER_MINUTE),
    RATE_LIMIT_PAYER_FORMS_PER_MINUTE: String(FORMS_PER_MINUTE),
  });
  expect(t.config.rateLimits.enabled).toBe(true);
  biz = await t.business({ name: 'Kestrel Coffee' });
  key = (await biz.key()).secret;
  checkout = await createCheckout({ description: 'Whole beans, 1 kg' });
  otherCheckout = await createCheckout({ name: 'Decaf' });
  const created = await t.request('POST', '/v1/payment_links', { key, body: { amount: '25.00', currency: 'USD', description: 'Teapot', customer_email: 'ada@example.com' } });
  link = created.body;
  tracking = new URL(link.tracking_url).pathname;
  otherLink = (await t.request('POST', '/v1/payment_links', { key, body: { amount: '99.00', currency: 'USD', description: 'Other buyer secret thing', customer_name: 'Zed Other' } })).body;
});
afterAll(async () => {
  await t?.close();
});

/** The directives of a Content-Security-Policy header. */
function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((part) => part.trim().split(/\s+/)).filter((words) => words[0]).map(([name, ...values]) => [name!, values]));
}

/** What every payer HTML response carries; returns its CSP nonce. */
function expectPageHeaders(response: Response, where: string): string {
  expect(response.headers.get('content-type'), where).toBe('text/html; charset=utf-8');
  const csp = directives(response.headers.get('content-security-policy') ?? '');
  expect(csp.get('default-src'), where).toEqual(["'none'"]);
  expect(csp.get('frame-ancestors'), where).toEqual(["'none'"]);
  expect(csp.get('base-uri'), where).toEqual(["'none'"]);
  const scriptSrc = csp.get('script-src') ?? [];
  expect(scriptSrc, where).toHaveLength(1);
  const nonce = /^'nonce-([A-Za-z0-9+/]{22,}={0,2})'$/.exec(scriptSrc[0] ?? '')?.[1];
  expect(nonce, where).toBeDefined();
  const all = [...csp.values()].flat();
  for (const loose of ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", '*', 'data:', 'http:', 'https:']) expect(all, where).not.toContain(loose);
  expect(response.headers.get('x-frame-options'), where).toBe('DENY');
  expect(response.headers.get('referrer-policy'), where).toBe('no-referrer');
  expect(response.headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(response.headers.get('cache-control'), where).toBe('no-store');
  return nonce!;
}

describe('headers', () => {
  it('every payer page and message page: a strict CSP with a fresh nonce per response, no framing, no referrer, no caching', async () => {
    const ip = address();
    const deleted = await createCheckout({ name: 'Gone' });
    await t.db.updateTable('checkouts').set({ active: false }).where('id', '=', deleted.id).execute();
    const cases: Array<[string, number]> = [
      [link.url, 200],
      [tracking, 200],
      [`/track/${link.id}`, 404], // the payment's id opens the payer page, never the tracking page
      [checkout.url, 200],
      [deleted.url, 410],
      ['/pay/pay_000000000000000000000000', 404],
      ['/c/no-such-checkout', 404],
      ['/track/pay_nope', 404],
      ['/c/%00', 400],
    ];
    for (const [path, status] of cases) {
      const first = await get(ip, path);
      expect(first.status, path).toBe(status);
      const html = await first.text();
      const nonce = expectPageHeaders(first, path);
      // The page's one script (when it has one) carries this response's nonce, and no other is inline.
      for (const script of html.matchAll(/<script\b[^>]*>/g)) expect(script[0], path).toContain(`nonce="${nonce}"`);
      expect(html, path).not.toMatch(/<script\b[^>]*>[^<]/);
      const second = await get(ip, path);
      await second.text();
      expect(expectPageHeaders(second, path), `${path}: a second response, a new nonce`).not.toBe(nonce);
    }
  });

  it('the form token cookie is HttpOnly, Secure (an https BASE_URL) and SameSite=Lax', async () => {
    const response = await get(address(), checkout.url);
    expect(response.headers.get('set-cookie')).toMatch(/^ps_payer=[\w-]{22}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });

  it('/embed.js: small, for any origin, cached briefly (also with a cache buster); the page script cached for good', async () => {
    const ip = address();
    for (const path of ['/embed.js', '/embed.js?v=2']) {
      const embed = await get(ip, path);
      expect(embed.status).toBe(200);
      expect(embed.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(embed.headers.get('access-control-allow-origin')).toBe('*');
      expect(embed.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(embed.headers.get('x-content-type-options')).toBe('nosniff');
      const maxAge = Number(/^public, max-age=(\d+)$/.exec(embed.headers.get('cache-control') ?? '')?.[1]);
      expect(maxAge, path).toBeGreaterThanOrEqual(300);
      expect(maxAge, path).toBeLessThanOrEqual(86_400);
      const source = await embed.text();
      expect(Buffer.byteLength(source)).toBeLessThan(10 * 1024);
      expect(source).not.toMatch(/\beval\(|new Function\(|innerHTML|document\.write/);
    }
    const script = /<script src="(\/assets\/payer\.[0-9a-f]{16}\.js)"/.exec(await (await get(ip, checkout.url)).text())?.[1];
    expect(script).toBeDefined();
    const asset = await get(ip, script!);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});

describe('forms', () => {
  it('a checkout form without a token, with another page\'s token, or with another browser\'s token is refused 403 and makes nothing', async () => {
    const a = buyer();
    const b = buyer();
    const pageA = await a.open(checkout.url);
    const pageB = await b.open(checkout.url);
    const tokenA = tokenIn(pageA.html, checkoutAction(checkout.slug));
    const tokenB = tokenIn(pageB.html, checkoutAction(checkout.slug));
    expect(tokenA).not.toBe(tokenB);
    const otherCheckoutToken = tokenIn((await a.open(`/c/${otherCheckout.slug}`)).html, checkoutAction(otherCheckout.slug));
    const linkToken = tokenIn((await a.open(link.url)).html, `/pay/${link.id}/start`);
    const before = await payments('checkout');

    const refused: Array<[string, Promise<Awaited<ReturnType<typeof a.post>>>]> = [];
    const email = { email: 'mallory@example.com' };
    refused.push(['no token', a.post(checkoutAction(checkout.slug), email)]);
    refused.push(['an empty token', a.post(checkoutAction(checkout.slug), { ...email, [CSRF_FIELD]: '' })]);
    refused.push(['another checkout\'s token', a.post(checkoutAction(checkout.slug), { ...email, [CSRF_FIELD]: otherCheckoutToken })]);
    refused.push(['a payment page\'s token', a.post(checkoutAction(checkout.slug), { ...email, [CSRF_FIELD]: linkToken })]);
    refused.push(['another browser\'s token', b.post(checkoutAction(checkout.slug), { ...email, [CSRF_FIELD]: tokenA })]);
    refused.push(['the token without its cookie', new Browser(t).request('POST', checkoutAction(checkout.slug), { ...email, [CSRF_FIELD]: tokenA }, { 'x-forwarded-for': address() })]);
    for (const [what, posted] of refused) {
      const page = await posted;
      expect(page.status, what).toBe(403);
      expect(page.location, what).toBeNull();
      expect(page.html, what).toContain('<h1>This page has expired</h1>');
    }
    expect(await payments('checkout')).toEqual(before);

    // The same form with its own token in its own browser goes through.
    const bought = await a.post(checkoutAction(checkout.slug), { ...email, [CSRF_FIELD]: tokenA });
    expect(bought.status).toBe(303);
    expect(bought.location).toMatch(/^\/pay\/pay_\w+$/);
    expect((await payments('checkout')).length).toBe(before.length + 1);
  });

  it('a payment page\'s start form without its token, or with a checkout\'s, is refused 403 and starts nothing', async () => {
    const a = buyer();
    const checkoutToken = tokenIn((await a.open(checkout.url)).html, checkoutAction(checkout.slug));
    await a.open(link.url);
    for (const form of [{ email: 'mallory@example.com' }, { email: 'mallory@example.com', [CSRF_FIELD]: checkoutToken }] as Array<Record<string, string>>) {
      const page = await a.post(`/pay/${link.id}/start`, form);
      expect(page.status).toBe(403);
    }
    const read = await t.request('GET', `/v1/payment_links/${link.id}`, { key });
    expect(read.body.started_at).toBeNull();
    expect(read.body.customer_email).toBe('ada@example.com');
  });

  it('a checkout form without an email makes no payment: the form again, the email marked', async () => {
    const a = buyer();
    const token = tokenIn((await a.open(checkout.url)).html, checkoutAction(checkout.slug));
    const before = await payments('checkout');
    const page = await a.post(checkoutAction(checkout.slug), { [CSRF_FIELD]: token, email: '  ' });
    expect(page.status).toBe(400);
    expect(page.html).toMatch(/<input id="field-email"[^>]*aria-invalid="true"/);
    expect(page.html).toContain('Enter your email address.');
    expect(await payments('checkout')).toEqual(before);
  });

  it('a checkout of a paused account says so before anyone types, and a form posted to it makes nothing', async () => {
    const owner = await t.business({ name: 'Pausing Roaster' });
    const ownerKey = (await owner.key()).secret;
    const made = await createCheckout({ name: 'Espresso' }, ownerKey);
    const a = buyer();
    const token = tokenIn((await a.open(made.url)).html, checkoutAction(made.slug));
    await owner.update({ commerce: 'paused' });
    const page = await a.open(made.url);
    expect(page.status).toBe(403);
    expect(page.html).toContain('<h1>Not taking payments right now</h1>');
    expect(page.html).not.toContain('<form');
    const posted = await a.post(checkoutAction(made.slug), { [CSRF_FIELD]: token, email: 'buyer@example.com' });
    expect(posted.status).toBe(403);
    expect(posted.location).toBeNull();
    const listed = await t.request('GET', '/v1/payments', { key: ownerKey });
    expect(listed.body.data).toEqual([]);
    const button = await get(a.ip, `/c/${made.slug}/button.json`);
    expect(button.status).toBe(410);
  });
});

describe('limits per address', () => {
  it('page loads over the limit get the 429 page with Retry-After, not JSON; another address is not affected; the next minute it loads again', async () => {
    const ip = address();
    for (let i = 0; i < PAGES_PER_MINUTE; i += 1) expect((await get(ip, i % 2 ? checkout.url : link.url)).status).toBe(200);
    const over = await get(ip, checkout.url);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    expectPageHeaders(over, '429');
    const html = await over.text();
    expect(html).toContain('<h1>Too many tries</h1>');
    expect(html).toContain('Try again in a minute.');
    expect((await get(ip, '/embed.js')).status).toBe(429);
    expect((await get(address(), checkout.url)).status).toBe(200);
    await t.tick(MINUTE);
    expect((await get(ip, checkout.url)).status).toBe(200);
  });

  it('posted forms over the limit get the 429 page, and make nothing', async () => {
    const a = buyer();
    const token = tokenIn((await a.open(checkout.url)).html, checkoutAction(checkout.slug));
    const before = await payments('checkout');
    for (let i = 0; i < FORMS_PER_MINUTE; i += 1) expect((await a.post(checkoutAction(checkout.slug), { [CSRF_FIELD]: token, email: 'not an email' })).status).toBe(400);
    const over = await a.post(checkoutAction(checkout.slug), { [CSRF_FIELD]: token, email: 'buyer@example.com' });
    expect(over.status).toBe(429);
    expect(over.html).toContain('<h1>Too many tries</h1>');
    expect(await payments('checkout')).toEqual(before);
  });

  it('forged posts count too: over the limit, even a form with its token gets the 429 page', async () => {
    const a = buyer();
    const token = tokenIn((await a.open(checkout.url)).html, checkoutAction(checkout.slug));
    for (let i = 0; i < FORMS_PER_MINUTE; i += 1) expect((await a.post(checkoutAction(checkout.slug), { email: 'mallory@example.com' })).status).toBe(403);
    expect((await a.post(checkoutAction(checkout.slug), { [CSRF_FIELD]: token, email: 'buyer@example.com' })).status).toBe(429);
  });

  it('the payer pages\' 12 starts a minute per business: the 13th buyer gets the 429 page and no payment; mistyped forms count for nothing', async () => {
    const owner = await t.business({ name: 'Busy Roaster' });
    const ownerKey = (await owner.key()).secret;
    const made = await createCheckout({ name: 'Filter' }, ownerKey);
    // Mistyped forms (more of them than the account's starts) use up none of its starts.
    for (let i = 0; i < 13; i += 1) {
      const b = buyer();
      const token = tokenIn((await b.open(made.url)).html, checkoutAction(made.slug));
      expect((await b.post(checkoutAction(made.slug), { [CSRF_FIELD]: token, email: 'not an email' })).status).toBe(400);
    }
    const bought: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const b = buyer();
      const token = tokenIn((await b.open(made.url)).html, checkoutAction(made.slug));
      const page = await b.post(checkoutAction(made.slug), { [CSRF_FIELD]: token, email: `buyer${i}@example.com` });
      expect(page.status).toBe(303);
      bought.push(page.location!);
    }
    expect(new Set(bought).size).toBe(12);
    const late = buyer();
    const token = tokenIn((await late.open(made.url)).html, checkoutAction(made.slug));
    const page = await late.post(checkoutAction(made.slug), { [CSRF_FIELD]: token, email: 'late@example.com' });
    expect(page.status).toBe(429);
    expect(page.html).toContain('<h1>Busy right now</h1>');
    expect((await t.request('GET', '/v1/payments?limit=100', { key: ownerKey })).body.data).toHaveLength(12);
  });
});

describe('the x402 address (docs/x402.md): the same budgets of starts, JSON never a page', () => {
  const x402 = (ip: string, id: string, headers: Record<string, string> = {}) => get(ip, `/x402/pay/${id}`, headers);
  /** Links of a business of their own: the per-business budget of starts (and each address's share of it) is each test's alone. */
  const shop = async () => {
    const ownKey = (await (await t.business({ name: 'Tea Importers' })).key()).secret;
    return async () => (await t.request('POST', '/v1/payment_links', { key: ownKey, body: { amount: '1.00', currency: 'USD', description: 'Tea sample' } })).body as { id: string };
  };

  it('an address\'s fourth start a minute is 429 in the API\'s error shape with Retry-After, and starts nothing; asking again an offer it started costs nothing', async () => {
    const ip = address();
    const fresh = await shop();
    const started: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const made = await fresh();
      expect((await x402(ip, made.id)).status).toBe(402);
      started.push(made.id);
    }
    // The offers already started answer again without a start.
    for (const id of started) expect((await x402(ip, id)).status).toBe(402);
    const late = await fresh();
    const refused = await x402(ip, late.id);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await refused.json()).error.code).toBe('rate_limited');
    const row = await t.db.selectFrom('payments').select('started_at').where('id', '=', late.id).executeTakeFirstOrThrow();
    expect(row.started_at).toBeNull();
    // Another address is not affected.
    expect((await x402(address(), late.id)).status).toBe(402);
  });

  const LONG = 'x'.repeat(10_000);
  it.each([['pay_000000000000000000000000', 404], [LONG, 404], ['%00', 404], ['pay_x%01', 404], ['__proto__', 404], ['constructor', 404]] as const)('GET /x402/pay/%s: %s in the API\'s error shape', async (id, status) => {
    const response = await x402(address(), id);
    expect(response.status).toBeLessThan(500);
    expect([status, 400]).toContain(response.status);
    expect((await response.json()).error.code).toMatch(/^(not_found|invalid_request)$/);
  });

  it.each([
    ['a PAYMENT-SIGNATURE of 100,000 characters', { 'payment-signature': 'A'.repeat(100_000) }],
    ['a PAYMENT-SIGNATURE that is JSON with a __proto__', { 'payment-signature': Buffer.from('{"__proto__":{"x402Version":2},"constructor":{"prototype":{}}}').toString('base64') }],
    ['an X-PAYMENT that is not base64', { 'x-payment': '{not: base64}' }],
    ['an email of 5,000 characters', {}, `?email=${'a'.repeat(5000)}@example.com`],
    ['an email given twice', {}, '?email=a@example.com&email=b@example.com'],
  ] as Array<[string, Record<string, string>, string?]>)('%s: refused in the error shape, nothing claimed', async (_name, headers, query = '') => {
    const made = await (await shop())();
    const response = await get(address(), `/x402/pay/${made.id}${query}`, headers);
    expect(response.status).toBeLessThan(500);
    // Node refuses a header over its 16 KiB limit itself (431, no body of ours).
    expect([400, 402, 431]).toContain(response.status);
    if (response.status !== 431) expect((await response.json()).error.code).toEqual(expect.any(String));
    const claims = await t.db.selectFrom('x402_authorizations').select('id').where('payment_id', '=', made.id).execute();
    expect(claims).toEqual([]);
  });
});

describe('what cannot make a 500', () => {
  const LANGUAGES = ['constructor', '__proto__', 'toString, valueOf;q=1', 'x'.repeat(5000), 'en;q=abc', 'en;q=1e999', 'de;q=-1, fr;q=NaN', '*', ';;,,;q=,', 'hasOwnProperty-US'];

  it.each(LANGUAGES.map((value) => ({ value, name: value.length > 40 ? `${value.length} characters` : JSON.stringify(value) })))('Accept-Language $name on every page', async ({ value }) => {
    const ip = address();
    for (const path of [checkout.url, link.url, tracking, '/c/no-such-checkout', `/c/${checkout.slug}/button.json`]) {
      const response = await get(ip, path, { 'accept-language': value });
      expect(response.status, path).toBeLessThan(500);
      if (response.headers.has('content-language')) expect(['en', 'de'], path).toContain(response.headers.get('content-language'));
      await response.text();
    }
  });

  const LONG = 'x'.repeat(10_000);
  const ODD = [
    ['/pay/pay_000000000000000000000000', 404], ['/c/no-such-checkout', 404], ['/track/pay_000000000000000000000000', 404],
    [`/pay/${LONG}`, 404], [`/track/${LONG}`, 404], [`/c/${LONG}`, 404], [`/c/${LONG}/button.json`, 404], [`/pay/${LONG}/status`, 404],
    ['/pay/%00', 400], ['/track/pay_%00x', 400], ['/c/%00', 400], ['/c/a%0Ab', 404] /* a line break is text: no such slug */, ['/c/a%7Fb', 400], ['/pay/pay_x%01', 400],
    ['/c/', 404], ['/pay/pay_x/no-such-step', 404], ['/c/x/y/z', 404],
  ] as const;

  it.each(ODD.map(([path, status]) => ({ path, status, name: path.length > 60 ? `${path.slice(0, 20)}… (${path.length} characters)` : path })))('GET $name: the $status page', async ({ path, status }) => {
    const response = await get(address(), path);
    expect(response.status).toBe(status);
    if (path.endsWith('/button.json') && status === 404) return;
    expectPageHeaders(response, path);
    expect(await response.text()).toMatch(/<h1>(Page not found|Something went wrong)<\/h1>/);
  });

  it('form fields named like an object\'s own properties are fields like any other', async () => {
    // Five starts of the shared checkout: a new minute of its business's budget, and a visitor (address and browser) for each.
    await t.jump(MINUTE);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const ip = address();
      const opened = await get(ip, checkout.url);
      const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
      const token = tokenIn(await opened.text(), checkoutAction(checkout.slug));
      const posted = await fetch(`${t.url}${checkoutAction(checkout.slug)}`, {
        method: 'POST', redirect: 'manual',
        headers: { 'x-forwarded-for': ip, 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams([[name, 'x'], [CSRF_FIELD, token], ['email', 'proto@example.com']]).toString(),
      });
      expect(posted.status, name).toBe(303);
    }
  });

  it('a POST to an unknown checkout, payment or step is the 404 page', async () => {
    const ip = address();
    for (const path of ['/c/no-such-checkout', `/c/${LONG}`, '/pay/pay_000000000000000000000000/start', `/pay/${link.id}/no-such-step`]) {
      const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'x-forwarded-for': ip, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40b.example' });
      expect(response.status, path).toBe(404);
      expectPageHeaders(response, path);
    }
  });
});

describe('what the pages show', () => {
  /** Ids of every kind the service makes (ours and the spec's), and secret keys. */
  const ID = /\b(?:pay|ord|cus|chk|we|evt|dlv|biz|key|per|con)_[0-9A-Za-z]{24}\b|\bsk_(?:test|live)_/g;

  it('a checkout\'s page and its buyer\'s payment page show no other payment, no key, no internal id but the payment\'s own', async () => {
    const a = buyer();
    const other = buyer();
    const otherToken = tokenIn((await other.open(checkout.url)).html, checkoutAction(checkout.slug));
    const otherBought = await other.post(checkoutAction(checkout.slug), { [CSRF_FIELD]: otherToken, email: 'zed.other@example.com' });
    const otherId = otherBought.location!.split('/').pop()!;

    const checkoutPage = await a.open(checkout.url);
    const token = tokenIn(checkoutPage.html, checkoutAction(checkout.slug));
    const bought = await a.post(checkoutAction(checkout.slug), { [CSRF_FIELD]: token, email: 'ada.buyer@example.com' });
    const ownId = bought.location!.split('/').pop()!;
    const payPage = await a.open(bought.location!);
    expect(payPage.status).toBe(200);
    expect(payPage.html).toContain('House blend');

    const [owner] = await t.db.selectFrom('businesses').select('id').where('id', '=', biz.id).execute();
    const linkPage = (await a.open(link.url)).html;
    const trackPage = (await a.open(tracking)).html;
    expect(trackPage).not.toContain('ada@example.com');
    for (const [name, html, own] of [
      ['checkout page', checkoutPage.html, null], ['payment page', payPage.html, ownId], ['link page', linkPage, link.id], ['tracking page', trackPage, null],
    ] as const) {
      expect([...html.matchAll(ID)].map((match) => match[0]).filter((id) => id !== own), name).toEqual([]);
      expect(html, name).not.toContain(owner!.id);
      expect(html, name).not.toContain(key);
      for (const other of [otherId, otherLink.id, ownId, link.id].filter((id) => id !== own)) expect(html, name).not.toContain(other);
      expect(html, name).not.toContain('zed.other@example.com');
      expect(html, name).not.toContain('Other buyer secret thing');
      expect(html, name).not.toContain(checkout.id);
    }
  });

  it('button.json carries only what the button shows, for any origin; unknown and deleted checkouts answer JSON too', async () => {
    const ip = address();
    const response = await get(ip, `/c/${checkout.slug}/button.json`, { origin: 'https://merchant.example' });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await response.json()).toStrictEqual({ label: 'Pay €18.50', name: 'House blend', theme: 'light' });

    const german = await get(ip, `/c/${checkout.slug}/button.json`, { 'accept-language': 'de-DE, en;q=0.5' });
    expect((await german.json()).label).toBe('18,50\u00a0€ bezahlen');

    const unknown = await get(ip, '/c/no-such-checkout/button.json');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
    expect((await unknown.json()).error.code).toBe('not_found');
    const deleted = await createCheckout({ name: 'Old blend' });
    await t.db.updateTable('checkouts').set({ active: false }).where('id', '=', deleted.id).execute();
    const gone = await get(ip, `/c/${deleted.slug}/button.json`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('access-control-allow-origin')).toBe('*');
    expect((await gone.json()).error.code).toBe('checkout_inactive');
  });
});
