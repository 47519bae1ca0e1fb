import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import jsQR from 'jsqr';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { appWithChromium } from '../support/browser-app.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// The look of the dashboard's lists and object pages (issue 23, must-have 5) in real headless
// Chromium against the real app: status badges in words and colour, human names for codes,
// copy buttons (and the page without script), the QR code of a payer address, the buy-button
// snippet and its fallback link, pretty webhook bodies, folded filters and the pricing-table form.

const app = appWithChromium({ RATE_LIMITS: 'off' });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond((_request, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
});
afterAll(async () => receiver?.close());

interface Shop {
  id: string;
  key: string;
  email: string;
  /** A business page's address in Test mode. */
  area: (path: string) => string;
}

async function shop(name: string): Promise<Shop> {
  const biz = await app.t.business({ name });
  const key = (await biz.key()).secret;
  const { email } = await app.t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow();
  return { id: biz.id, key, email, area: (path) => `${app.t.config.baseUrl}/dashboard/businesses/${biz.id}/test/${path}` };
}

/** A new browser context (options such as no script, or clipboard access) signed in as the shop's owner. */
async function signedIn(owner: Shop, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await app.browser.newContext(options);
  const page = await context.newPage();
  await page.goto((await createSignInLink(app.t.context, owner.email))!.url);
  await page.click('button');
  await page.waitForURL(`${app.t.config.baseUrl}/dashboard`);
  return { context, page };
}

async function payment(owner: Shop, description: string, outcome?: 'paid' | 'underpaid'): Promise<string> {
  const session = (await app.t.request('POST', '/v1/checkout_sessions', { key: owner.key, body: { amount: '40.00', currency: 'USD', description, customer_email: 'ada@buyer.example' } })).body;
  await app.t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key: owner.key });
  if (outcome) await app.t.request('POST', `/v1/payments/${session.id}/simulate`, { key: owner.key, body: { outcome } });
  return session.id as string;
}

const CODES = /polygon_usdc|payment_link|pricing_table|api_key\.|webhook_endpoint\.|business\.settings/;

describe('statuses and names', () => {
  it('the payments list shows each status as a badge in words and its colour; folded filters open when one is applied', async () => {
    const owner = await shop('Badge Roasters');
    await payment(owner, 'Paid beans', 'paid');
    await payment(owner, 'Held beans', 'underpaid');
    await payment(owner, 'Open beans');
    const { context, page } = await signedIn(owner);
    await page.goto(owner.area('payments'));
    const badges = await page.locator('table tbody tr').evaluateAll((rows) => rows.map((row) => {
      const badge = row.querySelector('.status-badge')!;
      return [row.querySelector('a')!.textContent, badge.textContent, badge.className, getComputedStyle(badge).backgroundColor];
    }));
    expect(badges.map((row) => row.slice(0, 3)).sort()).toEqual([
      ['Held beans', 'Held', 'status-badge warning'],
      ['Open beans', 'Open', 'status-badge info'],
      ['Paid beans', 'Paid', 'status-badge success'],
    ]);
    expect(new Set(badges.map((row) => row[3])).size, 'three colours').toBe(3);

    // No filter applied: folded, the list first. Filtered: open, saying how many.
    expect(await page.locator('details.filters').evaluate((details: HTMLDetailsElement) => details.open)).toBe(false);
    expect(await page.getByLabel('Status').isVisible()).toBe(false);
    await page.locator('details.filters summary').click();
    await page.getByLabel('Status').selectOption('held');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await page.locator('details.filters').evaluate((details: HTMLDetailsElement) => details.open)).toBe(true);
    expect(await page.locator('details.filters summary').innerText()).toBe('Filters (1 applied)');
    expect(await page.locator('table tbody').innerText()).toContain('Held beans');
    expect(await page.locator('table tbody').innerText()).not.toContain('Paid beans');
    await context.close();
  });

  it('a payment page and the activity name coins, sources and actions in words: no raw code in the page text', async () => {
    const owner = await shop('Named Roasters');
    const held = await payment(owner, 'Underpaid beans', 'underpaid');
    const link = (await app.t.request('POST', '/v1/payment_links', { key: owner.key, body: { amount: '12.00', currency: 'EUR', description: 'Linked beans' } })).body;
    await app.t.request('POST', '/v1/webhook_endpoints', { key: owner.key, body: { url: 'https://hooks.shop.example/named' } });
    const { context, page } = await signedIn(owner);
    await page.goto(owner.area(`payments/${held}`));
    const heldText = await page.locator('main').innerText();
    // What arrived, in the payment's currency as the buyer was told, the coin beside it; and what is missing.
    expect(heldText).toMatch(/Arrived\s+\d+\.\d\d USD \(\d+\.\d\d USDC on Polygon\)/);
    expect(heldText).toMatch(/Missing\s+8\.00 USD/);
    expect(heldText).toMatch(/Status\s+Held/);
    expect(heldText).not.toMatch(CODES);

    await page.goto(owner.area(`payments/${link.id}`));
    const linkText = await page.locator('main').innerText();
    expect(linkText).toMatch(/Source\s+Payment link/);
    expect(linkText).not.toMatch(CODES);

    await page.goto(owner.area('settings'));
    const activity = await page.getByRole('table', { name: 'Activity' }).innerText();
    expect(activity).toContain('Webhook endpoint added');
    expect(activity).not.toMatch(CODES);
    await context.close();
  });
});

describe('sharing an address', () => {
  it('the copy button copies the payer address and says "Copied"; the Open link opens it in a new tab; its QR code carries it', async () => {
    const owner = await shop('Copy Roasters');
    const link = (await app.t.request('POST', '/v1/payment_links', { key: owner.key, body: { amount: '12.00', currency: 'EUR', description: 'Copied beans' } })).body;
    const { context, page } = await signedIn(owner, { viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.t.config.baseUrl });
    await page.goto(owner.area(`payment_links/${link.id}`));

    expect(await page.getByLabel(/^Payer address/).inputValue()).toBe(link.url);
    await page.getByRole('button', { name: 'Copy the payer address' }).click();
    await expect.poll(() => page.locator('#copy-payer_url-status').innerText()).toBe('Copied');
    expect(await page.locator('#copy-payer_url-status').getAttribute('aria-live')).toBe('polite');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link.url);

    const open = page.getByRole('link', { name: 'Open the payer page (in a new tab)' });
    expect(await open.getAttribute('href')).toBe(link.url);
    expect(await open.getAttribute('target')).toBe('_blank');
    expect(await open.getAttribute('rel')).toBe('noopener');

    const png = await page.getByRole('img', { name: 'QR code of the payer address' }).screenshot();
    const { data, width, height } = PNG.sync.read(png);
    expect(jsQR.default(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height)?.data).toBe(link.url);
    await context.close();
  });

  it('a new API key, shown once, is copied by its button', async () => {
    const owner = await shop('Key Roasters');
    const { context, page } = await signedIn(owner);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.t.config.baseUrl });
    await page.goto(owner.area('keys'));
    await page.getByLabel('Name').fill('Copied key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('#new-secret code').innerText();
    expect(secret).toMatch(/^sk_test_\w{32}$/);
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await expect.poll(() => page.locator('#new-secret-status').innerText()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await context.close();
  });

  it('without script the address is in a readonly field to select, and no copy button shows', async () => {
    const owner = await shop('Plain Roasters');
    const link = (await app.t.request('POST', '/v1/payment_links', { key: owner.key, body: { amount: '12.00', currency: 'EUR', description: 'Plain beans' } })).body;
    const { context, page } = await signedIn(owner, { javaScriptEnabled: false });
    await page.goto(owner.area(`payment_links/${link.id}`));
    const field = page.getByLabel(/^Payer address/);
    expect(await field.isVisible()).toBe(true);
    expect(await field.inputValue()).toBe(link.url);
    expect(await field.getAttribute('readonly')).not.toBeNull();
    expect(await page.getByRole('button', { name: /^Copy/ }).count()).toBe(0);
    expect(await page.locator('button[data-copy]').count()).toBeGreaterThan(0); // there, hidden
    await context.close();
  });
});

describe('the buy button', () => {
  it('the snippet is exactly what to paste, with a fallback link: shown without script, replaced by the button with it', async () => {
    const owner = await shop('Snippet Roasters');
    const checkout = (await app.t.request('POST', '/v1/checkouts', { key: owner.key, body: { name: 'House <blend>', amount: '18.50', currency: 'EUR' } })).body;
    const { context, page } = await signedIn(owner);
    await page.goto(owner.area(`checkouts/${checkout.id}`));
    const snippet = await page.getByLabel('Put these lines on any page of your site').inputValue();
    expect(snippet.startsWith('<script ')).toBe(true);
    expect(snippet).toBe(`<script src="${new URL(checkout.url).origin}/embed.js" defer></script>\n<buy-button checkout="${checkout.slug}"><a href="${checkout.url}">Buy</a></buy-button>`);
    await context.close();

    // A merchant's page on another origin, carrying the snippet as pasted.
    const server = createServer((_request, response) => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Our beans</h1>\n${snippet}\n</body></html>`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const shopUrl = `http://localhost:${(server.address() as AddressInfo).port}/`;
    try {
      const plain = await app.browser.newContext({ javaScriptEnabled: false });
      const before = await plain.newPage();
      await before.goto(shopUrl);
      const fallback = before.getByRole('link', { name: 'Buy', exact: true });
      expect(await fallback.isVisible()).toBe(true);
      expect(await fallback.getAttribute('href')).toBe(checkout.url);
      await plain.close();

      const scripted = await app.browser.newContext();
      const after = await scripted.newPage();
      await after.goto(shopUrl);
      // The button (in its shadow root) opens the checkout in a new tab, labelled by the checkout; the fallback link is gone from sight.
      const button = after.locator('buy-button').getByRole('link');
      await expect.poll(() => button.innerText()).toBe('Pay €18.50');
      expect(await button.getAttribute('href')).toBe(checkout.url);
      expect(await button.getAttribute('target')).toBe('_blank');
      expect(await after.getByRole('link').count()).toBe(1);
      await scripted.close();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('webhook bodies and long forms', () => {
  it('a delivery\'s body is pretty-printed, wrapping within itself on a 375 px phone; the exact bytes are there to copy', async () => {
    const owner = await shop('Hook Roasters');
    const endpoint = (await app.t.request('POST', '/v1/webhook_endpoints', { key: owner.key, body: { url: `${receiver.url}/hooks` } })).body;
    const { context, page } = await signedIn(owner, { viewport: { width: 375, height: 800 } });
    await page.goto(owner.area(`webhooks/${endpoint.id}`));
    await page.getByLabel('Event to send').selectOption('payment.paid');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL(/sent=1$/);
    const sent = receiver.received.at(-1)!.body;
    const shown = await page.locator('pre.body').innerText();
    expect(shown).toBe(JSON.stringify(JSON.parse(sent), null, 2));
    expect(shown.split('\n').length).toBeGreaterThan(10);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.locator('summary', { hasText: 'The exact bytes sent' }).click();
    expect(await page.getByLabel('The body on one line, exactly as signed').inputValue()).toBe(sent);
    await context.close();
  });

  it('the pricing-table form is under half its old height at 1280 px (4,671 px before): the rarely used parts folded, every field still there', async () => {
    const owner = await shop('Form Roasters');
    const { context, page } = await signedIn(owner, { viewport: { width: 1280, height: 900 } });
    await page.goto(owner.area('checkouts/new-pricing-table'));
    const height = await page.locator('main form').evaluate((form) => form.getBoundingClientRect().height);
    expect(height).toBeLessThan(2200);
    // Folded, not removed: every plan's fields and every setting are in the form.
    const names = await page.locator('main form').evaluate((form: HTMLFormElement) => [...new FormData(form).keys(), ...[...form.elements].map((element) => (element as HTMLInputElement).name)]);
    for (const name of ['plan_4_features', 'plan_3_price_2', 'button_label', 'success_url', 'routing_provider', 'collect_phone', 'recommended']) expect(names).toContain(name);
    expect(await page.getByLabel('Plan 3: name').isVisible()).toBe(false);
    await page.locator('summary', { hasText: 'More plans' }).click();
    expect(await page.getByLabel('Plan 3: name').isVisible()).toBe(true);
    await context.close();
  });
});
