import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { activeParts, HOSTILE, hostileName } from '../support/hostile.ts';

// A checkout as buyers meet it in real headless Chromium: its hosted page (/c/:slug) in its
// theme, with its label, fields and ways to pay; two buyers of one checkout, each with their own
// payment and order as the merchant's API reads them; a deleted checkout; and the buy button
// (embed.js) on a merchant's page served from a second origin under a strict CSP. Hostile
// checkout text stays text on the page and in the button.

let t: TestApp;
let browser: Browser;
let shop: MerchantSite;
let key: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const executablePath = ensureChromium();
  // Limits off: one browser on loopback loads more pages than a buyer would; payer-security.test.ts checks them.
  t = await startTestApp({ RATE_LIMITS: 'off' });
  shop = await startMerchantSite();
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const biz = await t.business({ name: 'Kestrel Coffee' });
  key = (await biz.key()).secret;
}, 600_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await shop?.close();
  await t?.close();
});

// ---- the merchant: its checkouts (through the API) and its own website on another origin ----

interface Checkout {
  id: string;
  slug: string;
  url: string;
  name: string;
}

async function createCheckout(body: Record<string, unknown>): Promise<Checkout> {
  const created = await t.request('POST', '/v1/checkouts', { key, body: { amount: '18.50', currency: 'EUR', ...body } });
  expect(created.status).toBe(201);
  return created.body;
}

/** Deleted in the dashboard (which has no checkout area yet): the row as it leaves it, `active` false. */
async function deleteCheckout(checkout: Checkout): Promise<void> {
  await t.db.updateTable('checkouts').set({ active: false }).where('id', '=', checkout.id).execute();
  expect((await t.request('GET', `/v1/checkouts/${checkout.id}`, { key })).body.active).toBe(false);
}

/** The API's list, all of it (limit 100 is plenty here). */
async function listed(path: string): Promise<any[]> {
  const response = await t.request('GET', `${path}?limit=100`, { key });
  expect(response.status).toBe(200);
  return response.body.data;
}

interface MerchantSite {
  /** http://localhost:<port>: another site than the service's 127.0.0.1, as a merchant's is. */
  origin: string;
  /** The CSP the shop's pages are served with. */
  csp: string;
  /** A page of the shop holding one buy button per entry (null: an element without a checkout). */
  page(slugs: Array<string | null>): string;
  close(): Promise<void>;
}

// The merchant's own stylesheet, hostile to anything it can reach: hidden red links and
// buttons, and inherited text styles that would leak into an element that does not stop them.
const MERCHANT_CSS = `button, a { color: red !important; display: none !important; background: yellow !important; }
body { text-transform: uppercase; letter-spacing: 6px; font-family: serif; color: green; line-height: 3; }`;

async function startMerchantSite(): Promise<MerchantSite> {
  const pages: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/shop.css') return void response.writeHead(200, { 'content-type': 'text/css' }).end(MERCHANT_CSS);
    const body = pages[Number(url.searchParams.get('page'))];
    if (url.pathname !== '/shop' || body === undefined) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': site.csp }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  // Scripts only from the service, fetches only to it, styles only the shop's own: no
  // 'unsafe-inline', no 'unsafe-eval' anywhere.
  const site: MerchantSite = {
    origin,
    csp: `default-src 'self'; script-src ${t.url}; connect-src ${t.url}; style-src 'self'; base-uri 'none'`,
    page(slugs) {
      const buttons = slugs.map((slug) => (slug === null ? '<buy-button></buy-button>' : `<buy-button checkout="${slug}"></buy-button>`)).join('\n');
      pages.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kestrel Coffee shop</title>
        <link rel="stylesheet" href="/shop.css"><script src="${t.url}/embed.js" defer></script></head>
        <body><h1>Our beans</h1>${buttons}</body></html>`);
      return `${origin}/shop?page=${pages.length - 1}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return site;
}

// ---- buyers: each a browser context of their own ----

interface Buyer {
  context: BrowserContext;
  page: Page;
  /** alert(), confirm() or prompt() opened by anything. */
  dialogs: string[];
  /** Script errors, and console errors other than a resource answered 4xx on purpose. */
  problems: string[];
  /** Console warnings (what a site's developer reads). */
  warnings: string[];
}

async function buyer(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<Buyer> {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light' });
  contexts.push(context);
  const seen: Buyer = { context, page: await context.newPage(), dialogs: [], problems: [], warnings: [] };
  context.on('dialog', (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  context.on('weberror', (error) => seen.problems.push(error.error().message));
  context.on('console', (message) => {
    if (message.type() === 'warning') seen.warnings.push(message.text());
    if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) seen.problems.push(message.text());
  });
  return seen;
}

/** The app's public address (https://pay.example.test) as the test server's. */
const local = (url: string) => `${t.url}${url.slice(t.config.baseUrl.length)}`;

const payPath = /^\/pay\/(pay_\w+)$/;

/** Types the buyer's details into the checkout page and presses its button; returns the payment id of the page it lands on. */
async function buy(b: Buyer, checkout: Checkout, label: string, details: { email: string; name?: string; address?: Record<string, string> }): Promise<string> {
  const { page } = b;
  await page.goto(local(checkout.url));
  await page.getByLabel('Email').fill(details.email);
  if (details.name) await page.getByLabel('Full name').fill(details.name);
  // Country first (it decides whether the region is a list), then the rest; lists are chosen from.
  for (const [part, value] of Object.entries(details.address ?? {})) {
    const field = page.getByRole('group', { name: 'Shipping address' }).getByLabel(part, { exact: true });
    if (part === 'Country' || part === 'State') await field.selectOption(value);
    else await field.fill(value);
  }
  await page.getByRole('button', { name: label, exact: true }).click();
  await page.waitForURL((url) => payPath.test(url.pathname));
  await expect.poll(() => page.getByRole('heading', { name: 'How would you like to pay?' }).count()).toBe(1);
  return payPath.exec(new URL(page.url()).pathname)![1]!;
}

const ADA = { 'Country': 'US', 'Address line 1': '1 Market St', 'City': 'San Francisco', 'State': 'CA', 'Postal code': '94105' };
const BEN = { 'Country': 'GB', 'Address line 1': '10 Downing St', 'City': 'London', 'Postal code': 'SW1A 2AA' };

/** The computed style of an element, by a function run in the page. */
const backgroundOf = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);

// ---- the journeys ----

describe('the checkout page', () => {
  it('shows name, description, price, the default label with the price, the fields collect asks for, crypto, in the light theme', async () => {
    const checkout = await createCheckout({ name: 'House blend', description: 'Whole beans, 1 kg', collect: { name: true, shipping_address: true } });
    // The system prefers dark; the checkout keeps its own light theme.
    const b = await buyer({ colorScheme: 'dark' });
    const { page } = b;
    const response = await page.goto(local(checkout.url));
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('House blend · Kestrel Coffee');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('House blend');
    const summary = await page.locator('main').innerText();
    expect(summary).toContain('Whole beans, 1 kg');
    expect(summary).toContain('€18.50');
    expect(summary).toContain('Pay by card, or in stablecoin from your own wallet.');
    expect(await page.getByRole('button').allInnerTexts()).toEqual(['Pay €18.50']);
    await expect.poll(() => page.getByLabel('Email').count()).toBe(1);
    expect(await page.getByLabel('Full name').count()).toBe(1);
    expect(await page.getByRole('group', { name: 'Shipping address' }).count()).toBe(1);
    expect(await page.getByLabel('Phone').count()).toBe(0);
    expect(await page.getByRole('group', { name: 'Billing address' }).count()).toBe(0);
    expect(await page.getAttribute('html', 'data-theme')).toBe('light');
    expect(await backgroundOf(page)).toBe('rgb(255, 255, 255)');

    // Crypto allowed: the buyer is offered their own wallet once they start.
    const id = await buy(b, checkout, 'Pay €18.50', { email: 'ada@example.com', name: 'Ada Lovelace', address: ADA });
    expect(await page.getByRole('heading', { name: 'From your own wallet' }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'By card' }).count()).toBe(1);
    expect(id).toMatch(/^pay_/);
    expect(b.dialogs).toEqual([]);
    expect(b.problems).toEqual([]);
  });

  it('with its own button label, no crypto and the dark theme: the page is dark, and the wallet is never offered', async () => {
    const checkout = await createCheckout({ name: 'Night roast', amount: '42.00', currency: 'USD', button_label: 'Get the night roast', theme: 'dark', crypto: false });
    const b = await buyer({ colorScheme: 'light' });
    const { page } = b;
    await page.goto(local(checkout.url));
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    // The page really is dark (the stylesheet's dark colours), whatever the system prefers.
    expect(await backgroundOf(page)).toBe('rgb(20, 23, 28)');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('h1')!).color)).toBe('rgb(230, 233, 238)');
    expect(await page.getByRole('button').allInnerTexts()).toEqual(['Get the night roast']);
    const main = await page.locator('main').innerText();
    expect(main).toContain('$42.00');
    expect(main).toContain('Pay by card.');
    expect(main).not.toContain('stablecoin');
    expect(await page.getByLabel('Full name').count()).toBe(0);
    expect(await page.getByRole('group').count()).toBe(0);

    await buy(b, checkout, 'Get the night roast', { email: 'night@example.com' });
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    expect(await page.getByRole('heading', { name: 'By card' }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'From your own wallet' }).count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toMatch(/wallet|stablecoin/i);
    expect(b.problems).toEqual([]);
  });

  it('an account without crypto: its checkout offers cards only, though the checkout allows crypto', async () => {
    const noCrypto = await t.business({ name: 'Cards Only Roasters', cryptoEnabled: false });
    const created = await t.request('POST', '/v1/checkouts', { key: (await noCrypto.key()).secret, body: { name: 'Espresso', amount: '9.00', currency: 'GBP' } });
    expect(created.body.crypto).toBe(true);
    const b = await buyer();
    await b.page.goto(local(created.body.url));
    const main = await b.page.locator('main').innerText();
    expect(main).toContain('Pay by card.');
    expect(main).not.toContain('stablecoin');
    expect(await b.page.getByRole('button').allInnerTexts()).toEqual(['Pay £9.00']);
  });
});

describe('two buyers of one checkout', () => {
  it('each gets their own payment and order (source checkout, checkout_id set) and goes on to their own payment page', async () => {
    const checkout = await createCheckout({ name: 'Subscription box', collect: { name: true, shipping_address: true } });
    const [ada, ben] = await Promise.all([buyer(), buyer()]);
    const [adaId, benId] = await Promise.all([
      buy(ada!, checkout, 'Pay €18.50', { email: 'ada@example.com', name: 'Ada Lovelace', address: ADA }),
      buy(ben!, checkout, 'Pay €18.50', { email: 'ben@example.com', name: 'Ben Okafor', address: BEN }),
    ]);
    expect(adaId).not.toBe(benId);
    expect(new URL(ada!.page.url()).pathname).toBe(`/pay/${adaId}`);
    expect(new URL(ben!.page.url()).pathname).toBe(`/pay/${benId}`);
    // Each page is the buyer's own: the other's details are nowhere on it.
    expect(await ada!.page.content()).not.toMatch(/ben@example\.com|Ben Okafor|Downing/);
    expect(await ben!.page.content()).not.toMatch(/ada@example\.com|Ada Lovelace|Market St/);

    const payments = (await listed('/v1/payments')).filter((payment) => payment.checkout_id === checkout.id);
    expect(payments.map((payment) => payment.id).sort()).toEqual([adaId, benId].sort());
    for (const payment of payments) {
      expect(payment).toMatchObject({ source: 'checkout', status: 'open', amount: '18.50', currency: 'EUR', description: 'Subscription box' });
      expect(payment.started_at).not.toBeNull();
    }
    const byId = new Map(payments.map((payment) => [payment.id, payment]));
    expect(byId.get(adaId).customer_email).toBe('ada@example.com');
    expect(byId.get(benId).customer_email).toBe('ben@example.com');

    const orders = (await listed('/v1/orders')).filter((order) => order.checkout_id === checkout.id);
    expect(orders).toHaveLength(2);
    expect(new Set(orders.map((order) => order.id))).toEqual(new Set(payments.map((payment) => payment.order_id)));
    for (const order of orders) {
      expect(order.source).toBe('checkout');
      expect(order.payment_ids).toHaveLength(1);
      const mine = byId.get(order.payment_ids[0]);
      expect(mine.order_id).toBe(order.id);
      expect(order.customer.email).toBe(mine.customer_email);
    }
    const adaOrder = orders.find((order) => order.payment_ids[0] === adaId);
    expect(adaOrder).toMatchObject({ customer_name: 'Ada Lovelace', ship_to: { line1: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' } });
    const benOrder = orders.find((order) => order.payment_ids[0] === benId);
    expect(benOrder).toMatchObject({ customer_name: 'Ben Okafor', ship_to: { city: 'London', country: 'GB' } });
    expect(adaOrder.customer_id).not.toBe(benOrder.customer_id);
    for (const b of [ada!, ben!]) expect(b.problems).toEqual([]);
  });
});

describe('a deleted checkout', () => {
  it('says it takes no new buyers, and a form loaded before the deletion makes no payment', async () => {
    const checkout = await createCheckout({ name: 'Seasonal blend' });
    const b = await buyer();
    const { page } = b;
    await page.goto(local(checkout.url));
    await page.getByLabel('Email').fill('late@example.com');
    await deleteCheckout(checkout);

    const [posted] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: 'Pay €18.50' }).click()]);
    expect(posted.status()).toBe(410);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('No longer available');
    expect(await page.locator('main').innerText()).toContain('Kestrel Coffee no longer sells this here.');
    expect(await page.locator('form').count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe(`/c/${checkout.slug}`);

    const again = await page.goto(local(checkout.url));
    expect(again?.status()).toBe(410);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('No longer available');
    expect(await page.locator('form').count()).toBe(0);
    expect((await listed('/v1/payments')).filter((payment) => payment.checkout_id === checkout.id)).toEqual([]);
    expect((await listed('/v1/orders')).filter((order) => order.checkout_id === checkout.id)).toEqual([]);
  });
});

// ---- the buy button on the merchant's site ----

/** The link the buy button renders in its shadow root, and what else the root holds. */
function shadowOf(page: Page, index: number) {
  return page.evaluate((i) => {
    const host = document.querySelectorAll('buy-button')[i]!;
    const root = host.shadowRoot;
    if (!root) return null;
    const link = root.querySelector('a');
    const style = link && getComputedStyle(link);
    return {
      elements: root.querySelectorAll('*').length,
      text: link?.textContent ?? null,
      attributes: link ? [...link.attributes].map((attribute) => attribute.name).sort() : [],
      href: link?.href ?? null,
      style: style && {
        color: style.color, background: style.backgroundColor, display: style.display, textTransform: style.textTransform,
        letterSpacing: style.letterSpacing, fontFamily: style.fontFamily, height: link!.getBoundingClientRect().height,
      },
    };
  }, index);
}

describe('the buy button (embed.js) on a merchant\'s page', () => {
  it('renders an accessible, self-styled button under a strict CSP, and Enter opens the checkout, where the buyer can pay', async () => {
    const light = await createCheckout({ name: 'House blend' });
    const dark = await createCheckout({ name: 'Night roast', button_label: 'Get the night roast', theme: 'dark' });
    const gone = await createCheckout({ name: 'Old blend' });
    await deleteCheckout(gone);
    expect(shop.csp).not.toMatch(/unsafe-(inline|eval)/);
    const b = await buyer();
    const { page, context } = b;
    const fromService: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(t.url)) fromService.push(`${request.resourceType()} ${new URL(request.url()).pathname}`);
    });
    const response = await page.goto(shop.page([light.slug, dark.slug, null, 'no-such-checkout', gone.slug]));
    expect(response?.headers()['content-security-policy']).toBe(shop.csp);

    // The checkout's label, as a link (it opens the hosted page), named by that label alone.
    const lightLink = page.getByRole('link', { name: 'Pay €18.50', exact: true });
    const darkLink = page.getByRole('link', { name: 'Get the night roast', exact: true });
    await expect.poll(() => lightLink.count()).toBe(1);
    await expect.poll(() => darkLink.count()).toBe(1);
    expect(await lightLink.isVisible()).toBe(true);
    expect(await darkLink.isVisible()).toBe(true);
    // Without a checkout, or for one that is unknown or deleted: nothing at all, not a broken button
    // (an unknown one shows its plain link only until button.json answers 404 or 410).
    for (const index of [2, 3, 4]) await expect.poll(async () => (await shadowOf(page, index))?.elements, { message: `button ${index}` }).toBe(0);
    expect(await page.getByRole('link').count()).toBe(2);

    // Its styles are its own: the merchant's stylesheet neither hides, recolours nor restyles it.
    const lightShadow = await shadowOf(page, 0);
    expect(lightShadow).toMatchObject({ elements: 1, text: 'Pay €18.50', href: `${t.url}/c/${light.slug}` });
    expect(lightShadow!.attributes).toEqual(['href', 'part', 'rel', 'target']);
    expect(lightShadow!.style).toMatchObject({ color: 'rgb(255, 255, 255)', background: 'rgb(10, 84, 199)', display: 'inline-block', textTransform: 'none', letterSpacing: 'normal' });
    expect(lightShadow!.style!.fontFamily).toMatch(/^system-ui/);
    expect(lightShadow!.style!.height).toBeGreaterThanOrEqual(44);
    expect((await shadowOf(page, 1))!.style).toMatchObject({ color: 'rgb(11, 26, 51)', background: 'rgb(168, 199, 255)', display: 'inline-block' });
    // The merchant's styles do reach its own elements (the test would see them if they leaked).
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('h1')!).textTransform)).toBe('uppercase');

    // Keyboard only: Tab reaches the first button, with a visible focus ring; Enter opens the checkout in a new tab.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const host = document.activeElement;
      const inner = host?.shadowRoot?.activeElement;
      const style = inner && getComputedStyle(inner);
      return { host: host?.getAttribute('checkout'), inner: inner?.textContent, outline: style && `${style.outlineStyle} ${style.outlineWidth}` };
    });
    expect(focused).toEqual({ host: light.slug, inner: 'Pay €18.50', outline: 'solid 3px' });
    const [opened] = await Promise.all([context.waitForEvent('page'), page.keyboard.press('Enter')]);
    await opened.waitForLoadState();
    expect(opened.url()).toBe(`${t.url}/c/${light.slug}`);
    expect(await opened.getByRole('heading', { level: 1 }).innerText()).toBe('House blend');
    // noopener: the checkout cannot reach back into the merchant's page.
    expect(await opened.evaluate(() => window.opener)).toBeNull();
    expect(new URL(page.url()).origin).toBe(shop.origin);

    // The hosted page works from there: the buyer pays in the new tab.
    await opened.getByLabel('Email').fill('button.buyer@example.com');
    await opened.getByRole('button', { name: 'Pay €18.50' }).click();
    await opened.waitForURL((url) => payPath.test(url.pathname));
    const payment = (await listed('/v1/payments')).find((p) => p.checkout_id === light.id);
    expect(payment).toMatchObject({ source: 'checkout', customer_email: 'button.buyer@example.com' });

    // What the merchant's page took from the service: the script and the buttons' facts, nothing else.
    expect(fromService.filter((request) => !/^(script \/embed\.js|fetch \/c\/[\w-]+\/button\.json)$/.test(request))).toEqual([]);
    expect(fromService.filter((request) => request.startsWith('fetch'))).toHaveLength(4);
    expect(b.dialogs).toEqual([]);
    // No script error, no CSP refusal; the only console errors are the unknown and deleted checkouts' 404 and 410,
    // each with a warning for the site's developer saying why its button is hidden.
    expect(b.problems).toEqual([]);
    expect(b.warnings.filter((text) => text.includes('the button is hidden'))).toHaveLength(2);
  });

  it('embed.js is well under 10 KB', async () => {
    const response = await fetch(`${t.url}/embed.js`);
    expect((await response.arrayBuffer()).byteLength).toBeLessThan(10 * 1024);
  });
});

// ---- hostile checkout text ----

describe('hostile values in a checkout\'s name, description and button label', () => {
  const BUSINESS = 'Kestrel Coffee';
  let page: Page;
  let b: Buyer;
  let plainElements: number;

  /** A checkout whose three texts are `value` (through the API where its limits allow, else as a dashboard could store it). */
  async function hostileCheckout(value: string): Promise<Checkout> {
    const checkout = await createCheckout({ name: 'Plain name', description: 'Plain description', button_label: 'Plain label' });
    await t.db.updateTable('checkouts').set({ name: value, description: value, button_label: value }).where('id', '=', checkout.id).execute();
    return checkout;
  }

  const elementCount = () => page.evaluate(() => document.querySelectorAll('*').length);

  beforeAll(async () => {
    b = await buyer();
    page = b.page;
    await page.goto(local((await hostileCheckout('Plain0value')).url));
    plainElements = await elementCount();
  });

  it('a checkout named by an attack gets a plain slug, and its page and button work', async () => {
    const checkout = await createCheckout({ name: '"><script>alert(1)</script>', button_label: "'><svg onload=alert(1)>" });
    expect(checkout.slug).toMatch(/^[a-z0-9-]+$/);
    await page.goto(local(checkout.url));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('"><script>alert(1)</script>');
    expect(await page.getByRole('button').textContent()).toBe("'><svg onload=alert(1)>");
    expect(b.dialogs).toEqual([]);
  });

  it.each(HOSTILE.map((value) => ({ value, name: hostileName(value) })))('$name: inert on the checkout page and in the buy button, shown as text', async ({ value }) => {
    const checkout = await hostileCheckout(value);
    await page.goto(local(checkout.url));
    expect(await activeParts(page)).toEqual([]);
    expect(await elementCount()).toBe(plainElements);
    expect(await page.locator('h1').textContent()).toBe(value);
    expect(await page.locator('#checkout-heading + p').textContent()).toBe(value);
    expect(await page.locator('form button').textContent()).toBe(value);
    expect(await page.title()).toBe(`${value} · ${BUSINESS}`.replace(/\s+/g, ' ').trim());

    await page.goto(shop.page([checkout.slug]));
    await expect.poll(async () => (await shadowOf(page, 0))?.text).toBe(value);
    const shadow = await shadowOf(page, 0);
    expect(shadow).toMatchObject({ elements: 1, href: `${t.url}/c/${checkout.slug}` });
    expect(shadow!.attributes).toEqual(['href', 'part', 'rel', 'target']);
    expect(await page.evaluate(() => document.querySelectorAll('body *').length)).toBe(2); // the h1 and the buy-button
    expect(b.dialogs).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
