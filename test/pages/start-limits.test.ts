import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { Browser } from '../support/browser.ts';
import { freshRates } from '../support/fx-rates.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Payment starts strangers cannot use up (issue 21): what buyers start on the payer pages has
// budgets of its own, per business and mode (12 a minute) and per visitor (3 a minute, by
// address and by browser), apart from the merchant's API starts (spec 8: 12 a minute, per mode
// here). The default limits, as a hosted service runs them; TRUST_PROXY gives each visitor
// its own address through X-Forwarded-For.

let t: TestApp;
let addresses = 0;
/** A client address no other visitor uses. */
const address = () => `198.51.100.${(addresses += 1)}`;

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: 'true' });
  // Its checkouts are priced in EUR: Live starts need a recent rate.
  await freshRates(t);
});
afterAll(async () => t?.close());
beforeEach(() => t.jump(MINUTE));

/** A visitor: a browser (new unless given: its own cookies) at an address, sending `headers` besides. */
function visitor(ip = address(), headers: Record<string, string> = {}, browser = new Browser(t)) {
  const from = { 'x-forwarded-for': ip, ...headers };
  return {
    ip,
    /** Opens the checkout page and posts its form with `email`: the buyer's start. */
    async buy(checkout: { url: string; slug: string }, email = 'buyer@example.com') {
      const action = `/c/${checkout.slug}`;
      const page = await browser.request('GET', checkout.url, undefined, from);
      expect(page.status).toBe(200);
      return browser.request('POST', action, { [CSRF_FIELD]: Browser.form(page.html, action)[CSRF_FIELD]!, email }, from);
    },
  };
}

async function checkoutOf(key: string) {
  const created = await t.request('POST', '/v1/checkouts', { key, body: { name: 'House blend', amount: '18.50', currency: 'EUR' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { url: string; slug: string };
}

/** The merchant's server starts a new session: its own budget, whatever the payer pages did. */
async function merchantStart(key: string) {
  const session = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '10.00', currency: 'USD' } });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  // Live starts need a network a healthy processor watches, recently reported.
  await reportProcessorStatus(t);
  return t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key, body: { email: 'server@example.com' } });
}

/** What a business holds: payments, orders and customers, in each mode. */
async function rows(biz: TestBusiness) {
  const count = async (table: 'payments' | 'orders' | 'customers') =>
    (await t.db.selectFrom(table).select('livemode').where('business_id', '=', biz.id).execute()).length;
  return { payments: await count('payments'), orders: await count('orders'), customers: await count('customers') };
}

async function merchant() {
  const biz = await t.business();
  return { biz, test: (await biz.key({ mode: 'test' })).secret, live: (await biz.key({ mode: 'live' })).secret };
}

describe('the probe\'s attack', () => {
  it('13 posts from one address to a Test checkout page: 3 start, the rest get a page and make nothing, and the merchant\'s Live start still succeeds', async () => {
    const { biz, test, live } = await merchant();
    const page = await checkoutOf(test);
    const attacker = visitor();
    const answers: number[] = [];
    for (let i = 0; i < 13; i += 1) answers.push((await attacker.buy(page, `buyer${i}@example.com`)).status);
    expect(answers).toEqual([303, 303, 303, ...Array(10).fill(429)]);
    // The three started made a payment, an order and a customer each; the ten refused, nothing.
    expect(await rows(biz)).toEqual({ payments: 3, orders: 3, customers: 3 });

    const started = await merchantStart(live);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await merchantStart(test)).status).toBe(200);
  });

  it('a visitor over its share gets a page a person reads, in their language, with Retry-After; new cookies from the same address do not help', async () => {
    const { test } = await merchant();
    const page = await checkoutOf(test);
    const ip = address();
    for (let i = 0; i < 3; i += 1) expect((await visitor(ip).buy(page)).status).toBe(303);
    // A new browser (no cookies) at the same address: the address is still over its share.
    const refused = await visitor(ip).buy(page);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(refused.html).toContain('<h1>Too many tries</h1>');
    expect(refused.html).toContain('You started several payments in the last minute. Nothing was charged. Try again in a minute.');
    expect(refused.html).not.toMatch(/rate_limited|\{"error/);
    const german = await visitor(ip, { 'accept-language': 'de' }).buy(page);
    expect(german.status).toBe(429);
    expect(german.html).toContain('Sie haben in der letzten Minute mehrere Zahlungen begonnen.');
    // Another address is another visitor; and after a minute this one may start again.
    expect((await visitor().buy(page)).status).toBe(303);
    await t.jump(MINUTE);
    expect((await visitor(ip).buy(page)).status).toBe(303);
  });

  it('one browser moving between addresses is still one visitor', async () => {
    const { test } = await merchant();
    const page = await checkoutOf(test);
    const browser = new Browser(t);
    const answers: number[] = [];
    for (let i = 0; i < 4; i += 1) answers.push((await visitor(address(), {}, browser).buy(page)).status);
    expect(answers).toEqual([303, 303, 303, 429]);
  });
});

describe('budgets apart', () => {
  it('many visitors can use up the pages\' 12 Test starts a minute, but neither the merchant\'s API starts nor the Live pages\'', async () => {
    const { biz, test, live } = await merchant();
    const testPage = await checkoutOf(test);
    const livePage = await checkoutOf(live);
    for (let i = 0; i < 12; i += 1) expect((await visitor().buy(testPage, `buyer${i}@example.com`)).status).toBe(303);
    const before = await rows(biz);
    const busy = await visitor().buy(testPage, 'late@example.com');
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('60');
    expect(busy.html).toContain('<h1>Busy right now</h1>');
    expect(busy.html).toContain('This shop is taking many payments right now, so yours was not started. Nothing was charged. Try again in a minute.');
    // The refused buyer made no payment, order or customer.
    expect(await rows(biz)).toEqual(before);

    expect((await merchantStart(test)).status).toBe(200);
    expect((await merchantStart(live)).status).toBe(200);
    expect((await visitor().buy(livePage, 'live@example.com')).status).toBe(303);
  });

  it('the merchant\'s own 12 starts a minute, used up, leave the payer pages theirs', async () => {
    const { live } = await merchant();
    const livePage = await checkoutOf(live);
    for (let i = 0; i < 12; i += 1) expect((await merchantStart(live)).status).toBe(200);
    const over = await merchantStart(live);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    expect((await visitor().buy(livePage)).status).toBe(303);
  });

  it('a payment link\'s page counts its buyer\'s start the same way: a refused start leaves the link unstarted', async () => {
    const { test } = await merchant();
    const ip = address();
    const links: Array<{ id: string; url: string }> = [];
    for (let i = 0; i < 4; i += 1) {
      const created = await t.request('POST', '/v1/payment_links', { key: test, body: { amount: '25.00', currency: 'USD', description: `Teapot ${i}` } });
      expect(created.status).toBe(201);
      links.push(created.body);
    }
    const statuses: number[] = [];
    for (const link of links) {
      const browser = new Browser(t);
      const from = { 'x-forwarded-for': ip };
      const action = `${new URL(link.url).pathname}/start`;
      const page = await browser.request('GET', link.url, undefined, from);
      statuses.push((await browser.request('POST', action, { [CSRF_FIELD]: Browser.form(page.html, action)[CSRF_FIELD]!, email: 'ada@example.com' }, from)).status);
    }
    expect(statuses).toEqual([303, 303, 303, 429]);
    const last = await t.request('GET', `/v1/payment_links/${links[3]!.id}`, { key: test });
    expect(last.body).toMatchObject({ started_at: null, customer_email: null });
    const customers = await t.request('GET', '/v1/customers', { key: test });
    expect(customers.body.data).toHaveLength(1);
  });
});
