import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY, MINUTE, unixSeconds } from '../../src/core/clock.ts';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { Browser as HttpBrowser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, verifiesWith, type Receiver } from '../support/receiver.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// A buyer's whole journey through the payer pages of payment links and checkout sessions, in
// real headless Chromium, in Test mode, with no secret key on the buyer's side: what the buyer
// sees at each step, the payment as the merchant's API reads it, and the signed webhook events
// a real receiver gets. Rate limits are on (the pages' 12 starts a minute are a case here);
// the per-address and per-visitor limits are raised so one browser on loopback can walk every journey.

let t: TestApp;
let browser: Browser;
let receiver: Receiver;
let shop: MerchantSite;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const executablePath = ensureChromium();
  t = await startTestApp({
    RATE_LIMIT_BUSINESS_PER_MINUTE: '1000', RATE_LIMIT_PAYER_PAGES_PER_MINUTE: '1000', RATE_LIMIT_PAYER_FORMS_PER_MINUTE: '1000',
    RATE_LIMIT_PAYER_STARTS_PER_VISITOR_PER_MINUTE: '1000',
  }, { workers: true });
  receiver = await startReceiver();
  shop = await startMerchantSite();
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}, 600_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await shop?.close();
  await receiver?.close();
  await t?.close();
});

// ---- the merchant: its site (where success_url points), its key and its webhook endpoint ----

interface MerchantSite {
  origin: string;
  /** Paths (with query) the site was asked for, in order. */
  visits: string[];
  close(): Promise<void>;
}

async function startMerchantSite(): Promise<MerchantSite> {
  const visits: string[] = [];
  const server = createServer((request, response) => {
    visits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Shop</title><h1>Thanks from the shop</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    visits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Merchant {
  name: string;
  key: string;
  /** The endpoint's signing secret and where the receiver gets its deliveries. */
  secret: string;
  path: string;
}

let merchants = 0;
async function merchant(name: string): Promise<Merchant> {
  merchants += 1;
  const biz = await t.business({ name });
  const key = (await biz.key()).secret;
  const path = `/hooks/${merchants}`;
  const endpoint = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `${receiver.url}${path}` } });
  expect(endpoint.status).toBe(201);
  return { name, key, secret: endpoint.body.secret, path };
}

async function createLink(m: Merchant, body: Record<string, unknown>) {
  const created = await t.request('POST', '/v1/payment_links', { key: m.key, body: { amount: '25.00', currency: 'USD', ...body } });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; tracking_url: string };
}

async function readLink(m: Merchant, id: string) {
  const read = await t.request('GET', `/v1/payment_links/${id}`, { key: m.key });
  expect(read.status).toBe(200);
  return read.body;
}

/** The payment's events as written, in order (they are written with the change, so absence is certain). */
async function eventTypes(paymentId: string): Promise<string[]> {
  return (await t.db.selectFrom('events').select('type').where('payment_id', '=', paymentId).orderBy('seq').execute()).map((event) => event.type);
}

/** Deliveries whose signature was checked, each on the clock of its arrival (the tolerance is 300 s). */
const verified = new WeakSet<object>();

/** Waits until the merchant's receiver got every event of the payment, each signed with the endpoint's secret. */
async function expectDelivered(m: Merchant, paymentId: string, types: string[]) {
  const written = await t.db.selectFrom('events').select(['id', 'type']).where('payment_id', '=', paymentId).orderBy('seq').execute();
  expect(written.map((event) => event.type)).toEqual(types);
  await vi.waitFor(() => {
    const got = receiver.received.filter((request) => request.path === m.path).map((request) => ({ request, event: JSON.parse(request.body) }))
      .filter(({ event }) => event.data?.payment?.id === paymentId);
    expect(got.map(({ event }) => event.id).sort()).toEqual(written.map((event) => event.id).sort());
    for (const { request, event } of got) {
      if (verified.has(request)) continue;
      expect(verifiesWith(request.headers['service-signature'] as string, m.secret, request.body, unixSeconds(t.clock.now())), event.type).toBe(true);
      expect(event.livemode).toBe(false);
      verified.add(request);
    }
  }, { timeout: 10_000, interval: 50 });
}

// ---- the buyer: a browser of their own, and what it received ----

interface Received {
  response: Response;
  /** Headers and body as received (asked for at once: a page navigated away from or closed no longer has them). */
  headers: Promise<Record<string, string>>;
  body: Promise<Buffer>;
}

interface Buyer {
  page: Page;
  context: BrowserContext;
  /** Every response of the service, with its body. */
  responses: Received[];
  /** Requests to any origin but the service's. */
  elsewhere: string[];
  /** Script errors and console errors (a CSP refusal shows here). */
  problems: string[];
}

async function buyer(options: { javaScript?: boolean } = {}): Promise<Buyer> {
  const context = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true });
  contexts.push(context);
  const page = await context.newPage();
  const seen: Buyer = { page, context, responses: [], elsewhere: [], problems: [] };
  context.on('request', (request) => {
    if (new URL(request.url()).origin !== t.url) seen.elsewhere.push(request.url());
  });
  context.setDefaultTimeout(10_000);
  context.on('response', (response) => {
    if (new URL(response.url()).origin !== t.url) return;
    const body = response.status() >= 300 && response.status() < 400 ? Promise.resolve(Buffer.alloc(0)) : response.body();
    const headers = response.allHeaders();
    // Read only by the checks that await them; a response still arriving when the context closes is not a failure here.
    body.catch(() => undefined);
    headers.catch(() => undefined);
    seen.responses.push({ response, headers, body });
  });
  page.on('pageerror', (error) => seen.problems.push(error.message));
  page.on('console', (message) => {
    // A page answered 4xx on purpose is reported as a failed load; anything else is a problem.
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) seen.problems.push(message.text());
  });
  return seen;
}

const pathOf = (url: string) => `${t.url}${new URL(url).pathname}`;

/**
 * What every response of the payer pages must carry: a CSP whose script nonce is this page's own
 * script's, no framing, no referrer, and a Cache-Control that keeps it out of shared caches. And
 * nothing was fetched from anywhere else (but the merchant's own site, when the journey ends there).
 */
async function expectSafeResponses(b: Buyer, allowedElsewhere: string[] = []) {
  const nonces = new Set<string>();
  const pages = b.responses.filter(({ response }) => /^\/(pay|track)\//.test(new URL(response.url()).pathname));
  expect(pages.length).toBeGreaterThan(0);
  for (const { response, body, headers: received } of pages) {
    const headers = await received;
    const where = `${response.request().method()} ${response.url()} ${response.status()}`;
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(headers['content-security-policy'] ?? '')?.[1];
    expect(nonce, where).toBeDefined();
    expect(headers['content-security-policy'], where).toContain("default-src 'none'");
    expect(headers['content-security-policy'], where).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options'], where).toBe('DENY');
    expect(headers['referrer-policy'], where).toBe('no-referrer');
    expect(headers['cache-control'], where).toMatch(/no-store/);
    expect(headers['cache-control'], where).not.toMatch(/public/);
    if (response.request().resourceType() === 'document' && response.status() < 300) {
      const html = (await body).toString('utf8');
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
      expect(scripts.length, where).toBeGreaterThan(0);
      for (const script of scripts) expect(script, where).toContain(`nonce="${nonce}"`);
      expect(nonces.has(nonce!), where).toBe(false);
      nonces.add(nonce!);
    }
  }
  expect(b.elsewhere.filter((url) => !allowedElsewhere.some((origin) => url.startsWith(origin)))).toEqual([]);
  expect(b.problems).toEqual([]);
}

const heading = (page: Page) => page.locator('h1').first().innerText();
const text = (page: Page) => page.locator('body').innerText();

/** Opens the payer page, gives the email (and whatever else `fill` types) and continues to the ways to pay. */
async function startPaying(b: Buyer, url: string, fill?: (page: Page) => Promise<void>) {
  const { page } = b;
  await page.goto(pathOf(url));
  await page.getByLabel('Email').fill('buyer@example.com');
  await fill?.(page);
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
}

// ---- the journeys ----

describe('a payment link paid by card provider', () => {
  it('details, ways to pay, the Test provider, the receipt, then the merchant\'s success_url with the placeholders filled; events signed', async () => {
    const m = await merchant('Corner Café');
    const link = await createLink(m, {
      description: 'Coffee beans, 1 kg', reference: 'order 42/α&x?', customer_email: 'Ada@Example.com', customer_name: 'Ada',
      memo: 'Roasted on Monday', success_url: `${shop.origin}/thanks/{PAYMENT_ID}?ref={REFERENCE}&from=pay`,
    });
    expect((await readLink(m, link.id)).status).toBe('open');
    const b = await buyer();
    const { page } = b;

    // The details step: what is paid, to whom, in Test mode; the email the merchant gave, prefilled.
    const response = await page.goto(pathOf(link.url));
    expect(response!.status()).toBe(200);
    expect(await page.title()).toBe('Pay for Coffee beans, 1 kg · Corner Café');
    expect(await heading(page)).toBe('Coffee beans, 1 kg');
    const start = await text(page);
    expect(start).toContain('Test mode');
    expect(start).toContain('$25.00');
    expect(start).toContain('For Ada');
    expect(start).toContain('Roasted on Monday');
    expect(await page.getByLabel('Email').inputValue()).toBe('ada@example.com');
    await page.getByRole('button', { name: 'Continue to payment' }).click();

    // Ways to pay: card providers by routing (the first recommended) and the Test wallet panel.
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/pay/${link.id}`);
    const started = await readLink(m, link.id);
    expect(started).toMatchObject({ status: 'open', customer_email: 'ada@example.com' });
    expect(started.started_at).toBe(unixSeconds(t.clock.now()));
    await page.getByRole('button', { name: 'Pay with MoonPay Recommended' }).click();

    // The Test provider's page: reaching it made the payment pending.
    await page.getByRole('heading', { name: 'MoonPay (Test)' }).waitFor();
    expect(await text(page)).toContain('Coffee beans, 1 kg: $25.00');
    expect((await readLink(m, link.id)).status).toBe('pending');
    expect((await t.request('POST', `/v1/payment_links/${link.id}/cancel`, { key: m.key })).body.error.code).toBe('not_cancelable');
    // The same provider page open in a second tab, to press its button again later.
    const second = await b.context.newPage();
    await second.goto(page.url());
    await page.getByRole('button', { name: 'Card accepted: the full amount is sent' }).click();

    // The receipt, then on to the merchant by itself.
    await page.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    const receipt = await text(page);
    expect(receipt).toContain('Corner Café has received your payment.');
    expect(receipt).toContain('Paid with\nMoonPay');
    expect(receipt).toContain(link.id);
    await page.waitForURL(`${shop.origin}/**`, { timeout: 10_000 });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe(`/thanks/${link.id}`);
    expect(landed.search).toBe('?ref=order%2042%2F%CE%B1%26x%3F&from=pay');
    expect(landed.searchParams.get('ref')).toBe('order 42/α&x?');
    // The shop got exactly that address (besides the browser's own favicon request).
    expect(shop.visits.filter((visit) => visit !== '/favicon.ico')).toEqual([`/thanks/${link.id}?ref=order%2042%2F%CE%B1%26x%3F&from=pay`]);
    expect(await heading(page)).toBe('Thanks from the shop');

    const paid = await readLink(m, link.id);
    expect(paid).toMatchObject({ status: 'paid', paid_at: unixSeconds(t.clock.now()) });
    await expectDelivered(m, link.id, ['payment.started', 'payment.paid']);

    // Pressing the provider's button again in the other tab pays nothing twice: it shows the receipt.
    await second.getByRole('button', { name: 'Card accepted: the full amount is sent' }).click();
    await second.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    await second.close();
    // And going back to the provider's page shows the receipt too.
    await page.goBack();
    await page.goBack();
    expect(new URL(page.url()).pathname).toBe(`/pay/${link.id}`);
    expect(await heading(page)).toBe('Thank you: paid');
    expect(await eventTypes(link.id)).toEqual(['payment.started', 'payment.paid']);
    await expectSafeResponses(b, [shop.origin]);
  });
});

describe('paying from the buyer\'s own wallet (the Test panel)', () => {
  it('the full amount arrives: paid, with a receipt and no provider', async () => {
    const m = await merchant('Tea House');
    const link = await createLink(m, { description: 'Green tea', amount: '12.50' });
    const b = await buyer();
    await startPaying(b, link.url);
    await b.page.getByRole('button', { name: 'The full amount arrives' }).click();
    await b.page.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    const receipt = await text(b.page);
    expect(receipt).toContain('$12.50');
    expect(receipt).toContain('Paid with\nUSDC on Polygon');
    // No success_url: the receipt is where the journey ends.
    expect(await b.page.getByRole('link', { name: /Continue to/ }).count()).toBe(0);
    expect((await readLink(m, link.id)).status).toBe('paid');
    await expectDelivered(m, link.id, ['payment.started', 'payment.paid']);
    await expectSafeResponses(b);
  });

  it('less than asked arrives: held, said in plain words', async () => {
    const m = await merchant('Book Nook');
    const link = await createLink(m, { description: 'Three novels', amount: '40.00' });
    const b = await buyer();
    await startPaying(b, link.url);
    await b.page.getByRole('button', { name: 'Less than asked arrives' }).click();
    await b.page.getByRole('heading', { name: 'Your payment needs a check' }).waitFor();
    const held = await text(b.page);
    expect(held).toContain('Book Nook will contact you');
    // 80% arrived (the simulation's default): what arrived and what is missing, in the link's currency.
    expect(held).toContain('We received $32.00 of $40.00; $8.00 is missing.');
    expect(held).not.toMatch(/underpaid|USDC|Polygon|\b0x[0-9a-f]|txid|hold|webhook|threshold|%|status|pending/i);
    expect((await readLink(m, link.id)).status).toBe('held');
    await expectDelivered(m, link.id, ['payment.started', 'payment.held']);
    await expectSafeResponses(b);
  });
});

describe('a declined card', () => {
  it('leaves the payment unpaid, sends no event, and offers the ways to pay again', async () => {
    const m = await merchant('Bike Shop');
    const link = await createLink(m, { description: 'Bell', amount: '30.00' });
    const b = await buyer();
    await startPaying(b, link.url);
    await b.page.getByRole('button', { name: /Pay with Transak/ }).click();
    await b.page.getByRole('heading', { name: 'Transak (Test)' }).waitFor();
    await b.page.getByRole('button', { name: 'Card declined' }).click();

    await b.page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    expect(await text(b.page)).toContain('The card was declined');
    const after = await readLink(m, link.id);
    // The buyer reached a provider (spec 3), so the link stays pending; never failed, nothing paid.
    expect(after).toMatchObject({ status: 'pending', paid_at: null });
    expect(await eventTypes(link.id)).toEqual(['payment.started']);

    // Paying again works: the wallet this time.
    await b.page.getByRole('button', { name: 'The full amount arrives' }).click();
    await b.page.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    await expectDelivered(m, link.id, ['payment.started', 'payment.paid']);
    await expectSafeResponses(b);
  });
});

describe('the pending page', () => {
  it('offers another way to pay, by a plain link, while the money is on its way', async () => {
    const m = await merchant('Flower Stall');
    const link = await createLink(m, { description: 'Tulips', amount: '22.00' });
    const b = await buyer({ javaScript: false });
    await startPaying(b, link.url);
    await b.page.getByRole('button', { name: /Pay with MoonPay/ }).click();
    await b.page.getByRole('heading', { name: 'MoonPay (Test)' }).waitFor();
    await b.page.getByRole('link', { name: 'Back to the payment' }).click();
    await b.page.getByRole('heading', { name: 'Waiting for MoonPay' }).waitFor();
    await b.page.getByRole('link', { name: 'Choose another way to pay' }).click();
    await b.page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    await b.page.getByRole('button', { name: /Pay with Transak/ }).click();
    await b.page.getByRole('heading', { name: 'Transak (Test)' }).waitFor();
    expect((await t.db.selectFrom('payments').select(['status', 'provider']).where('id', '=', link.id).executeTakeFirstOrThrow())).toEqual({ status: 'pending', provider: 'transak' });
    await expectSafeResponses(b);
  });
});

describe('links that no longer take payments', () => {
  it('a canceled link shows the closed page, also to a buyer who submits the page they had open', async () => {
    const m = await merchant('Lamp Works');
    const link = await createLink(m, { description: 'Desk lamp' });
    const b = await buyer();
    await b.page.goto(pathOf(link.url));
    expect(await heading(b.page)).toBe('Desk lamp');
    const canceled = await t.request('POST', `/v1/payment_links/${link.id}/cancel`, { key: m.key });
    expect(canceled.body).toMatchObject({ status: 'expired', canceled_at: unixSeconds(t.clock.now()) });

    // The form of the page the buyer had open starts nothing: it shows where the link is now.
    await b.page.getByLabel('Email').fill('late@example.com');
    await b.page.getByRole('button', { name: 'Continue to payment' }).click();
    await b.page.getByRole('heading', { name: 'This payment is closed' }).waitFor();
    expect(await text(b.page)).toContain('Lamp Works canceled this payment request, so it no longer takes payments.');
    // Nobody started paying, so no money can be on its way: nothing to play out either.
    expect(await b.page.getByRole('button').count()).toBe(0);
    expect(await readLink(m, link.id)).toMatchObject({ status: 'expired', started_at: null, customer_email: null });
    expect(await eventTypes(link.id)).toEqual(['payment.canceled']);

    await b.page.goto(pathOf(link.tracking_url));
    expect(await text(b.page)).toContain('Status\nCanceled');
    expect(await text(b.page)).toContain('Canceled on\n');
    await expectSafeResponses(b);
  });

  it('an expired link shows the closed page, and money sent before the end still shows as paid', async () => {
    const m = await merchant('Map Maker');
    const link = await createLink(m, { description: 'Old map', expires_in_days: 1 });
    const b = await buyer();
    await startPaying(b, link.url);
    // Delivered (and verified) on the clock of its sending, before the day passes.
    await expectDelivered(m, link.id, ['payment.started']);
    await t.jump(DAY);
    // The expiry job runs as the worker's schedule fires (spec 6.2: within five minutes).
    await vi.waitFor(async () => {
      await t.tick(10_000);
      expect(await eventTypes(link.id)).toContain('payment.expired');
    }, { timeout: 10_000, interval: 20 });
    await b.page.reload();
    expect(await heading(b.page)).toBe('This payment is closed');
    expect(await text(b.page)).toContain('The time to pay has run out');
    expect((await readLink(m, link.id)).status).toBe('expired');

    // Test mode: the money the buyer sent arrives late.
    await b.page.getByRole('button', { name: 'The money arrives after the time is up' }).click();
    await b.page.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    expect((await readLink(m, link.id)).status).toBe('paid');
    await expectDelivered(m, link.id, ['payment.started', 'payment.expired', 'payment.paid']);
    await expectSafeResponses(b);
  });
});

describe('the page follows the payment', () => {
  it('a pending page turns into the receipt by itself when the money arrives another way', async () => {
    const m = await merchant('Record Store');
    const link = await createLink(m, { description: 'Vinyl', amount: '35.00' });
    const b = await buyer();
    // payer.js's timers on a clock the test moves, from the server's time.
    await b.page.clock.install({ time: t.clock.now() });
    await startPaying(b, link.url);
    await b.page.getByRole('button', { name: /Pay with MoonPay/ }).click();
    await b.page.getByRole('heading', { name: 'MoonPay (Test)' }).waitFor();
    await b.page.goto(pathOf(link.url));
    await b.page.getByRole('heading', { name: 'Waiting for MoonPay' }).waitFor();

    // Nothing changed yet: the page asks and stays.
    const firstPoll = b.page.waitForResponse((response) => new URL(response.url()).pathname === `/pay/${link.id}/status`);
    await b.page.clock.runFor(4_000);
    await firstPoll;
    expect(await b.page.getByRole('heading', { name: 'Waiting for MoonPay' }).count()).toBe(1);

    const simulated = await t.request('POST', `/v1/payments/${link.id}/simulate`, { key: m.key, body: { outcome: 'paid', provider: 'moonpay' } });
    expect(simulated.status).toBe(200);
    await expect.poll(async () => {
      await b.page.clock.runFor(5_000);
      return b.page.getByRole('heading', { name: 'Thank you: paid' }).count();
    }, { timeout: 10_000 }).toBe(1);
    // It asked for the status (the same read as the page's) and reloaded itself; the test never navigated.
    const polled = b.responses.filter(({ response }) => new URL(response.url()).pathname === `/pay/${link.id}/status`);
    expect(polled.length).toBeGreaterThanOrEqual(2);
    expect(new URL(b.page.url()).pathname).toBe(`/pay/${link.id}`);
    await expectSafeResponses(b);
  });
});

describe('without JavaScript', () => {
  it('a buyer completes a Test payment by card and reaches the merchant by the link', async () => {
    const m = await merchant('Plain Shop');
    const link = await createLink(m, { description: 'Notebook', amount: '21.00', reference: 'nb-1', success_url: `${shop.origin}/done/{REFERENCE}` });
    const b = await buyer({ javaScript: false });
    await startPaying(b, link.url);
    await b.page.getByRole('button', { name: /Pay with MoonPay/ }).click();
    await b.page.getByRole('button', { name: 'Card accepted: the full amount is sent' }).click();
    await b.page.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    // The script that would go on by itself does not run: the link takes the buyer there.
    expect(await b.page.locator('.going-on').isHidden()).toBe(true);
    await b.page.getByRole('link', { name: 'Continue to Plain Shop' }).click();
    await b.page.waitForURL(`${shop.origin}/done/nb-1`);
    expect((await readLink(m, link.id)).status).toBe('paid');
    await expectDelivered(m, link.id, ['payment.started', 'payment.paid']);
    await expectSafeResponses(b, [shop.origin]);
  });
});

describe('the tracking page', () => {
  it('shows status, amount, description and times, and none of the payer\'s details', async () => {
    const m = await merchant('Tailor');
    const link = await createLink(m, {
      description: 'Suit alterations', amount: '80.00', customer_name: 'Grace Hopper', customer_email: 'grace@navy.example',
      collect: { name: true, phone: true, shipping_address: true, billing_address: true },
    });
    const b = await buyer();
    await startPaying(b, link.url, async (page) => {
      await page.getByLabel('Full name').fill('Grace B. Hopper');
      await page.getByLabel('Phone').fill('+1 202 555 0143');
      const shipping = page.getByRole('group', { name: 'Shipping address' });
      await shipping.getByLabel('Country').selectOption('US');
      await shipping.getByLabel('Address line 1').fill('1 Navy Yard Lane');
      await shipping.getByLabel('City').fill('Arlington');
      await shipping.getByLabel('State', { exact: true }).selectOption({ label: 'Virginia' });
      await shipping.getByLabel('Postal code').fill('22202');
      const billing = page.getByRole('group', { name: 'Billing address' });
      await billing.getByLabel('Country').selectOption({ label: 'United Kingdom' });
      await billing.getByLabel('Address line 1').fill('7 Compiler Court');
      await billing.getByLabel('City').fill('Leeds');
      await billing.getByLabel('Postal code').fill('LS1 4AP');
    });
    // Going back to change a detail keeps the others as given.
    await b.page.getByRole('link', { name: 'Change your details' }).click();
    await expect(b.page.getByLabel('Full name').inputValue()).resolves.toBe('Grace B. Hopper');
    await expect(b.page.getByLabel('Phone').inputValue()).resolves.toBe('+1 202 555 0143');
    await expect(b.page.getByRole('group', { name: 'Shipping address' }).getByLabel('State', { exact: true }).inputValue()).resolves.toBe('VA');
    await expect(b.page.getByRole('group', { name: 'Billing address' }).getByLabel('Country').inputValue()).resolves.toBe('GB');
    await expect(b.page.getByRole('group', { name: 'Billing address' }).getByLabel('Postal code').inputValue()).resolves.toBe('LS1 4AP');
    const order = await t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select(['o.customer_name', 'o.customer_phone', 'o.ship_to', 'o.bill_to']).where('p.id', '=', link.id).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ customer_name: 'Grace B. Hopper', customer_phone: '+1 202 555 0143', ship_to: { city: 'Arlington', region: 'VA' }, bill_to: { city: 'Leeds', country: 'GB' } });

    const secrets = ['grace', 'Hopper', '202 555', '0143', 'Navy Yard', 'Arlington', '22202', 'Compiler', 'Leeds', 'LS1'];
    const track = async () => {
      const response = await b.page.goto(pathOf(link.tracking_url));
      expect(response!.status()).toBe(200);
      const html = await response!.text();
      for (const secret of secrets) expect(html.toLowerCase()).not.toContain(secret.toLowerCase());
      // Nor the payment's id: it would open the payer page, with the buyer's email.
      expect(html).not.toContain(link.id);
      return text(b.page);
    };
    const waiting = await track();
    expect(await heading(b.page)).toBe('Payment status');
    expect(waiting).toContain('Status\nWaiting for payment');
    expect(waiting).toContain('For\nSuit alterations');
    expect(waiting).toContain('Amount\n$80.00');
    expect(waiting).toContain('Requested on\n');
    expect(waiting).toContain('This payment can be made until\n');
    const created = await readLink(m, link.id);
    expect(await b.page.locator('time').evaluateAll((times) => times.map((time) => time.getAttribute('datetime'))))
      .toEqual([new Date(created.created * 1000).toISOString(), new Date(created.expires_at * 1000).toISOString()]);

    await b.page.goto(pathOf(link.url));
    await b.page.getByRole('button', { name: 'The full amount arrives' }).click();
    await b.page.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    const paid = await track();
    expect(paid).toContain('Status\nPaid');
    expect(paid).toContain('Paid on\n');
    expect(paid).not.toContain('This payment can be made until');

    // A checkout session is not a link: it has no tracking page.
    const session = await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '10.00', currency: 'USD' } });
    expect((await b.page.goto(`${t.url}/track/${session.body.id}`))!.status()).toBe(404);
    // A link's tracking page is at its token only.
    expect(link.tracking_url).toMatch(/\/track\/trk_[0-9A-Za-z]{24}$/);
    expect((await b.page.goto(`${t.url}/track/${link.id}`))!.status()).toBe(404);
    await expectSafeResponses(b);
  });
});

describe('a checkout session with an order', () => {
  it('shows the items and totals; a refused address is explained beside its field and keeps what was typed; nothing starts', async () => {
    const m = await merchant('Garden Center');
    const session = await t.request('POST', '/v1/checkout_sessions', {
      key: m.key, body: {
        currency: 'USD', description: 'Garden order #1001', collect: { shipping_address: true },
        order: {
          id: '1001', items: [
            { name: 'Rose bush', variant: 'red', quantity: 2, unit_amount: '15.00', amount: '30.00' },
            { name: 'Watering can', quantity: 1, amount: '12.00' },
          ],
          shipping: '5.00', tax: '3.50', total: '50.50',
        },
      },
    });
    expect(session.status).toBe(201);
    const b = await buyer();
    const { page } = b;
    await page.goto(pathOf(session.body.url));
    expect(await heading(page)).toBe('Garden order #1001');
    const items = await page.locator('.items > li').allInnerTexts();
    expect(items.map((item) => item.replace(/\s+/g, ' '))).toEqual(['Rose bush red × 2 $30.00', 'Watering can × 1 $12.00']);
    const totals = await page.locator('.totals').innerText();
    expect(totals).toBe('Subtotal\n$42.00\nShipping\n$5.00\nTax\n$3.50\nTotal\n$50.50');
    expect(await text(page)).toMatch(/Amount due\s+\$50\.50/);

    // Country first, from a list of names; the US takes its state from a list too.
    const shipping = page.getByRole('group', { name: 'Shipping address' });
    await page.getByLabel('Email').fill('gardener@example.com');
    await shipping.getByLabel('Country').selectOption({ label: 'United States' });
    await shipping.getByLabel('Address line 1').fill('12 Elm Street');
    await shipping.getByLabel('City').fill('Springfield');
    await shipping.getByLabel('State', { exact: true }).selectOption({ label: 'Illinois' });
    await shipping.getByLabel('Postal code').fill('6270');
    const refused = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    expect((await refused).status()).toBe(400);
    await page.getByText('Please check the fields marked below.').waitFor();
    // Said in the buyer's words beside the field, with what was typed and chosen kept.
    const postal = shipping.getByLabel('Postal code');
    expect(await postal.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#field-shipping_address-postal_code-error').innerText()).toBe('Error: This postal code does not fit the country. Check it and try again.');
    expect(await postal.inputValue()).toBe('6270');
    expect(await shipping.getByLabel('Country').inputValue()).toBe('US');
    expect(await shipping.getByLabel('State', { exact: true }).inputValue()).toBe('IL');
    expect(await shipping.getByLabel('Address line 1').inputValue()).toBe('12 Elm Street');
    expect(await page.getByLabel('Email').inputValue()).toBe('gardener@example.com');

    const read = await t.request('GET', `/v1/checkout_sessions/${session.body.id}`, { key: m.key });
    expect(read.body).toMatchObject({ status: 'open', started_at: null, customer_email: null });
    expect(await eventTypes(session.body.id)).toEqual([]);

    await postal.fill('62704');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    const started = await t.request('GET', `/v1/checkout_sessions/${session.body.id}`, { key: m.key });
    expect(started.body).toMatchObject({ status: 'open', customer_email: 'gardener@example.com' });
    expect(await eventTypes(session.body.id)).toEqual(['payment.started']);
    await expectSafeResponses(b);
  });
});

describe('a phone number the business can call', () => {
  it('is refused beside its field in the buyer\'s words when it is not digits, or too few, and taken as typed when it is', async () => {
    const m = await merchant('Courier Co');
    const link = await createLink(m, { description: 'Same-day delivery', amount: '12.00', collect: { phone: true } });
    const b = await buyer();
    const { page } = b;
    await page.goto(pathOf(link.url));
    await page.getByLabel('Email').fill('sender@example.com');
    const phone = page.getByLabel('Phone');
    for (const typed of ['call me after six', '12', '+1 (202) 555-0143 or 0144 or 0145']) {
      await phone.fill(typed);
      const refused = page.waitForResponse((response) => response.request().method() === 'POST');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      expect((await refused).status(), typed).toBe(400);
      expect(await page.locator('#field-phone-error').innerText()).toBe('Error: Enter your phone number in digits, with the country code, such as +1 415 555 0100.');
      expect(await phone.inputValue()).toBe(typed);
    }
    expect((await readLink(m, link.id)).started_at).toBeNull();
    await phone.fill('+1 (202) 555-0143');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    const order = await t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.customer_phone').where('p.id', '=', link.id).executeTakeFirstOrThrow();
    expect(order.customer_phone).toBe('+1 (202) 555-0143');
  });
});

describe('limits and form tokens', () => {
  it('over the pages\' 12 starts a minute the buyer is told to try again in a minute (429, Retry-After); a refused form uses none; the merchant\'s own starts are apart', async () => {
    const m = await merchant('Busy Bakery');
    const serverStart = async (n: number) => {
      const session = await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '5.00', currency: 'USD', customer_email: `s${n}@example.com` } });
      return (await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key: m.key, body: {} })).status;
    };
    // Eleven starts by the merchant's server: its own budget, which the pages never draw on.
    for (let n = 0; n < 11; n += 1) expect(await serverStart(n)).toBe(200);
    // Eleven buyers start on their links' pages (plain HTTP): one start of the pages' minute is left.
    for (let n = 0; n < 11; n += 1) {
      const link = await createLink(m, { description: `Bun ${n}`, amount: '3.00' });
      const http = new HttpBrowser(t);
      const action = `${new URL(link.url).pathname}/start`;
      const opened = await http.request('GET', link.url);
      const started = await http.request('POST', action, { [CSRF_FIELD]: HttpBrowser.form(opened.html, action)[CSRF_FIELD]!, email: `b${n}@example.com` });
      expect(started.status).toBe(303);
    }
    // A buyer's mistyped address is refused before it counts; corrected, it takes the last start.
    const delivered = await createLink(m, { description: 'Cake, delivered', amount: '30.00', collect: { shipping_address: true } });
    const first = await buyer();
    await startPaying(first, delivered.url, async (page) => {
      // A British postcode with the United States chosen: refused, then the country corrected.
      await page.getByLabel('Country').selectOption('US');
      await page.getByLabel('Address line 1').fill('3 Mill Road');
      await page.getByLabel('City').fill('Cambridge');
      await page.getByLabel('State', { exact: true }).selectOption('NY');
      await page.getByLabel('Postal code').fill('CB1 2AD');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.locator('#field-shipping_address-postal_code-error').waitFor();
      await page.getByLabel('Country').selectOption('GB');
    });

    // The pages' thirteenth start of the minute, from another buyer: a page that says to try again.
    const link = await createLink(m, { description: 'Sourdough loaf', amount: '8.00' });
    const b = await buyer();
    await b.page.goto(pathOf(link.url));
    await b.page.getByLabel('Email').fill('baker@example.com');
    const answered = b.page.waitForResponse((response) => response.request().method() === 'POST');
    await b.page.getByRole('button', { name: 'Continue to payment' }).click();
    const tooMany = await answered;
    expect(tooMany.status()).toBe(429);
    expect(await tooMany.headerValue('retry-after')).toBe('60');
    expect(await heading(b.page)).toBe('Busy right now');
    expect(await text(b.page)).toContain('Try again in a minute.');
    expect(await text(b.page)).not.toMatch(/rate_limited|error|\{/);
    expect((await readLink(m, link.id)).started_at).toBeNull();
    // The merchant's server still has its twelfth start of the minute.
    expect(await serverStart(11)).toBe(200);

    await t.jump(MINUTE);
    await b.page.goBack();
    await b.page.getByLabel('Email').fill('baker@example.com');
    await b.page.getByRole('button', { name: 'Continue to payment' }).click();
    await b.page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    expect((await readLink(m, link.id)).customer_email).toBe('baker@example.com');
    await expectSafeResponses(first);
    await expectSafeResponses(b);
  });

  it('a form without its token, or with another page\'s, gets "this page has expired" (403) and changes nothing', async () => {
    const m = await merchant('Token Toys');
    const link = await createLink(m, { description: 'Yo-yo', amount: '9.00' });
    const other = await createLink(m, { description: 'Kite', amount: '19.00' });
    const b = await buyer();
    await b.page.goto(pathOf(other.url));
    const otherToken = await b.page.locator(`input[name="${CSRF_FIELD}"]`).first().inputValue();

    const tries: Array<[string, (page: Page) => Promise<void>]> = [
      ['without a token', (page) => page.locator(`input[name="${CSRF_FIELD}"]`).evaluateAll((inputs) => inputs.forEach((input) => input.remove()))],
      ['with a wrong token', (page) => page.locator(`input[name="${CSRF_FIELD}"]`).evaluateAll((inputs) => inputs.forEach((input) => { (input as HTMLInputElement).value = 'forged'; }))],
      ['with another page\'s token', (page) => page.locator(`input[name="${CSRF_FIELD}"]`).evaluateAll((inputs, token) => inputs.forEach((input) => { (input as HTMLInputElement).value = token; }), otherToken)],
    ];
    for (const [how, tamper] of tries) {
      await b.page.goto(pathOf(link.url));
      await b.page.getByLabel('Email').fill('kid@example.com');
      await tamper(b.page);
      const answered = b.page.waitForResponse((response) => response.request().method() === 'POST');
      await b.page.getByRole('button', { name: 'Continue to payment' }).click();
      expect((await answered).status(), how).toBe(403);
      expect(await heading(b.page), how).toBe('This page has expired');
      expect(await text(b.page), how).toContain('Open the payment page again and repeat the last step.');
    }
    // Nor from another browser, holding the page's token but not its cookie.
    await b.page.goto(pathOf(link.url));
    const token = await b.page.locator(`input[name="${CSRF_FIELD}"]`).first().inputValue();
    const stranger = await fetch(`${t.url}/pay/${link.id}/start`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ [CSRF_FIELD]: token, email: 'x@example.com' }) });
    expect(stranger.status).toBe(403);

    const read = await readLink(m, link.id);
    expect(read).toMatchObject({ status: 'open', started_at: null, customer_email: null });
    expect(await eventTypes(link.id)).toEqual([]);
    await expectSafeResponses(b);
  });
});

describe('page weight', () => {
  /** What a fresh browser receives for one page: the document, its stylesheet and its script, in bytes. */
  async function weigh(url: string): Promise<{ total: number; types: string[]; html: string }> {
    const fresh = await buyer();
    const response = await fresh.page.goto(url, { waitUntil: 'load' });
    expect(response!.status()).toBe(200);
    // The icon the browser may fetch beside the page (when it gets to it) is a cached asset of the service, not the page's weight.
    const page = fresh.responses.filter((received) => !/\/(favicon\.ico|assets\/icon\.[0-9a-f]+\.svg)$/.test(new URL(received.response.url()).pathname));
    let total = 0;
    for (const received of page) total += (await received.body).length;
    await expectSafeResponses(fresh);
    return { total, types: page.map((received) => received.response.request().resourceType()).sort(), html: await response!.text() };
  }

  it('the heaviest payer page states (ways to pay with a long order; a Live wallet with its QR code) are under 60 KB each', async () => {
    const m = await merchant('Weighty Wares');
    const items = Array.from({ length: 20 }, (_, n) => ({ name: `Item number ${n + 1} with a longer name`, variant: 'large', quantity: 1, amount: '10.00' }));
    const session = await t.request('POST', '/v1/checkout_sessions', {
      key: m.key, body: { currency: 'USD', description: 'A big order', order: { id: 'big-1', items, shipping: '10.00', tax: '20.00', total: '230.00' } },
    });
    expect(session.status).toBe(201);
    await startPaying(await buyer(), session.body.url);
    const test = await weigh(pathOf(session.body.url));
    expect(test.types).toEqual(['document', 'script', 'stylesheet']);
    expect(test.html).toContain('Item number 20');
    expect(test.total).toBeLessThan(60 * 1024);

    // Live: the buyer's own wallet, with the address, the amount and the QR code inline.
    const biz = await t.business({ name: 'Weighty Live' });
    const live = await t.request('POST', '/v1/payment_links', { key: (await biz.key({ mode: 'live' })).secret, body: { amount: '230.00', currency: 'USD', description: 'A big order', memo: 'x'.repeat(500) } });
    expect(live.status).toBe(201);
    await reportProcessorStatus(t, { networks: ['polygon'] });
    await startPaying(await buyer(), live.body.url);
    const wallet = await weigh(pathOf(live.body.url));
    expect(wallet.html).toContain('<svg');
    expect(wallet.types).toEqual(['document', 'script', 'stylesheet']);
    expect(wallet.total).toBeLessThan(60 * 1024);
  });
});
