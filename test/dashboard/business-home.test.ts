import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { setMember } from '../support/operator.ts';

// A business's home in real headless Chromium: what was paid today and this week per currency
// (in the viewer's time zone), the held payment to review, the failing endpoint, and in Live the
// go-live checklist; and the navigation around it: one line at 1280 px, one Menu at 375 px, every
// link answering a page, usable from the keyboard.

const app = appWithChromium();

/**
 * The app's clock stands at Thursday 2026-10-01 12:00 UTC. Paid: 10.00 and 2.50 USD and 7.00 EUR
 * now, 4.00 USD at 10:00 UTC, 6.00 USD on Tuesday, 100.00 USD on Sunday 27 September (last week
 * in UTC; Monday already in Auckland). One payment held, one open. One endpoint whose latest
 * delivery failed, one whose latest succeeded.
 */
async function seeded(key: string): Promise<{ held: string; failing: string; fine: string }> {
  const { t } = app;
  const api = async (method: 'POST' | 'GET', path: string, body?: unknown) => (await t.request(method, path, { key, body: body ?? {} })).body;
  const failing = (await api('POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.com/failing' })).id as string;
  const fine = (await api('POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.com/fine' })).id as string;
  const pay = async (amount: string, currency: string, outcome: 'paid' | 'underpaid' | null, description = `Beans ${amount} ${currency}`) => {
    const session = await api('POST', '/v1/checkout_sessions', { amount, currency, description, customer_email: 'ada@buyer.example' });
    await api('POST', `/v1/checkout_sessions/${session.id}/start`);
    if (outcome) expect((await api('POST', `/v1/payments/${session.id}/simulate`, { outcome })).status).toBe(outcome === 'paid' ? 'paid' : 'held');
    return session.id as string;
  };
  await pay('10.00', 'USD', 'paid');
  await pay('2.50', 'USD', 'paid');
  await pay('7.00', 'EUR', 'paid');
  const paidAt = async (id: string, at: string) => t.db.updateTable('payments').set({ paid_at: new Date(at) }).where('id', '=', id).execute();
  await paidAt(await pay('4.00', 'USD', 'paid'), '2026-10-01T10:00:00Z');
  await paidAt(await pay('6.00', 'USD', 'paid'), '2026-09-29T09:00:00Z');
  await paidAt(await pay('100.00', 'USD', 'paid'), '2026-09-27T12:00:00Z');
  const held = await pay('18.00', 'USD', 'underpaid', 'Colombia Huila, 250 g');
  await pay('3.00', 'USD', null);
  // What the delivery worker records (workers are off here): a failed last attempt, a successful one.
  const latest = (endpoint: string) => t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1);
  await t.db.updateTable('webhook_deliveries').set({ status: 'pending', attempts: 2, last_status: 503, last_error: 'Service Unavailable', last_attempt_at: t.clock.now() })
    .where('id', '=', latest(failing)).execute();
  await t.db.updateTable('webhook_deliveries').set({ status: 'succeeded', attempts: 1, last_status: 200, last_attempt_at: t.clock.now(), finished_at: t.clock.now() })
    .where('id', '=', latest(fine)).execute();
  return { held, failing, fine };
}

const card = (page: Page, title: string) => page.locator('.home-card', { has: page.getByRole('heading', { name: title, exact: true }) }).innerText();

it('the home shows today\'s and this week\'s payments per currency, the held payment and the failing endpoint, each linked; in the viewer\'s zone; Live shows the checklist', async () => {
  const { page, key, id } = await ownerSignedIn(app, 'Harbour Roasters');
  const { held, failing } = await seeded(key);

  await page.getByRole('link', { name: 'Harbour Roasters in Test mode' }).click();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/businesses/${id}/test/home`);
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Home');
  expect(await page.getByRole('link', { name: 'Home' }).getAttribute('aria-current')).toBe('page');
  const today = await card(page, 'Today');
  expect(today).toContain('4 payments paid');
  expect(today).toMatch(/16\.50 USD\s*3 payments/);
  expect(today).toMatch(/7\.00 EUR\s*1 payment/);
  const week = await card(page, 'This week');
  expect(week).toContain('5 payments paid');
  expect(week).toMatch(/22\.50 USD\s*4 payments/);
  expect(week).not.toContain('122.50');
  const main = await page.locator('main').innerText();
  expect(main).toContain('in your time zone, UTC');
  expect(main).toContain('the week began on Monday 28 September');
  expect(main).toContain('1 payment is held');
  expect(main).toContain('1 endpoint is failing');
  expect(main).not.toContain('hooks.example.com/fine');
  expect(main).not.toContain('Go-live checklist');

  // In Auckland (UTC+13) it is already Friday: 10:00 UTC was yesterday, Sunday 12:00 UTC was Monday.
  await page.goto(`${app.t.config.baseUrl}/dashboard`);
  await page.getByRole('textbox', { name: 'Time zone' }).fill('Pacific/Auckland');
  await page.getByRole('button', { name: 'Save time zone' }).click();
  await page.goto(`${app.t.config.baseUrl}/dashboard/businesses/${id}/test`);
  expect(new URL(page.url()).pathname).toBe(`/dashboard/businesses/${id}/test/home`);
  expect(await card(page, 'Today')).toMatch(/12\.50 USD\s*2 payments/);
  expect(await card(page, 'This week')).toMatch(/122\.50 USD\s*5 payments/);
  expect(await page.locator('main').innerText()).toContain('in your time zone, Pacific/Auckland');
  // Paid since the last look: today and the week both count it (the week's earlier days are read once).
  const late = (await app.t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '1.00', currency: 'USD', customer_email: 'ada@buyer.example' } })).body;
  await app.t.request('POST', `/v1/checkout_sessions/${late.id}/start`, { key, body: {} });
  await app.t.request('POST', `/v1/payments/${late.id}/simulate`, { key, body: { outcome: 'paid' } });
  await page.reload();
  expect(await card(page, 'Today')).toMatch(/13\.50 USD\s*3 payments/);
  expect(await card(page, 'This week')).toMatch(/123\.50 USD\s*6 payments/);

  await page.getByRole('link', { name: 'https://hooks.example.com/failing' }).click();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/businesses/${id}/test/webhooks/${failing}`);
  await page.goBack();
  await page.getByRole('link', { name: 'Colombia Huila, 250 g' }).click();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/businesses/${id}/test/payments/${held}`);

  // The switch keeps a person on the home; Live has none of the Test data, and its checklist.
  await page.goBack();
  await page.getByRole('link', { name: 'Switch to Live' }).click();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/businesses/${id}/live/home`);
  const live = await page.locator('main').innerText();
  expect(live).toContain('No payments yet today. Share a payment link to take one.');
  expect(live).toContain('No payments yet this week.');
  expect(live).toContain('Nothing to review: no held payment needs you.');
  expect(await page.getByRole('heading', { name: 'Go-live checklist' }).count()).toBe(1);
  expect(live).toMatch(/\d of 4 still to do/);
  // No processor reports here: Live buyers cannot pay, said at the top.
  expect(await page.getByRole('status').first().innerText()).toContain('Live buyers cannot pay yet.');
  await page.getByRole('link', { name: 'Share a payment link' }).click();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/businesses/${id}/live/payment_links`);

  // Another business's home is not found to this person.
  const other = await app.t.business({ name: 'Other Roasters' });
  const refused = await page.goto(`${app.t.config.baseUrl}/dashboard/businesses/${other.id}/test/home`);
  expect(refused?.status()).toBe(404);
  await page.close();
}, 90_000);

it('a viewer of the business sees its home', async () => {
  const { key, id } = await ownerSignedIn(app, 'Viewer Roasters').then(async (signed) => {
    await signed.page.close();
    return signed;
  });
  await app.t.request('POST', '/v1/payment_links', { key, body: { amount: '5.00', currency: 'USD', description: 'Beans' } });
  const email = `viewer-${id}@shop.example`;
  await setMember(app.t.context, { businessId: id, email, role: 'viewer' });
  const page = await app.browser.newPage();
  await page.goto((await createSignInLink(app.t.context, email))!.url);
  await page.click('button');
  await page.waitForURL(`${app.t.config.baseUrl}/dashboard`);
  await page.getByRole('link', { name: 'Viewer Roasters in Test mode' }).click();
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Home');
  expect(await page.locator('.business-line').innerText()).toContain('you are a viewer');
  expect(await page.locator('main').innerText()).toContain('No payments yet today.');
  await page.close();
}, 60_000);

it('the navigation is one line at 1280 px, one Menu at 375 px, reaches every area, and works from the keyboard', async () => {
  const { page, id } = await ownerSignedIn(app, 'A Roastery With A Rather Long Business Name That Goes On');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${app.t.config.baseUrl}/dashboard/businesses/${id}/test/home`);

  // One line: every top-level item on the same row, and the row no taller than one item.
  const items = await page.locator('.nav-groups > li').evaluateAll((lis) => lis.map((li) => li.getBoundingClientRect()).map((box) => ({ top: box.top, height: box.height })));
  expect(items.map((item) => item.top)).toEqual(items.map(() => items[0]!.top));
  const row = (await page.locator('.nav-groups').boundingBox())!;
  expect(row.height).toBeLessThanOrEqual(Math.max(...items.map((item) => item.height)) + 1);
  expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);

  // Every link of the navigation answers a page (200), pricing tables and activity among them.
  const links = await page.locator('.nav-groups a').evaluateAll((anchors) => anchors.map((a) => ({ name: a.textContent!.trim(), href: (a as HTMLAnchorElement).href })));
  expect(links.map((link) => link.name)).toEqual(['Home', 'Payments', 'Orders', 'Customers', 'Payment links', 'Checkouts', 'Pricing tables', 'API keys', 'Webhooks', 'Connected agents', 'Team', 'Settings', 'Activity']);
  for (const link of links) expect((await page.request.get(link.href)).status(), link.name).toBe(200);
  await page.goto(links.at(-1)!.href);
  expect(await page.getByRole('heading', { name: 'Activity' }).count()).toBe(1);

  // From the keyboard: a group opens with Enter, Tab goes into it, Enter follows the link.
  await page.goto(`${app.t.config.baseUrl}/dashboard/businesses/${id}/test/home`);
  await page.locator('summary', { hasText: 'Selling' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Payment links');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.waitForURL(/kind=pricing_table$/);
  expect(await page.locator('summary', { hasText: 'Selling' }).getAttribute('aria-current')).toBe('true');
  // The page shown is marked in its (closed) group: the pricing tables, not the checkouts they are among.
  expect(await page.locator('.nav-groups a[aria-current="page"]').allTextContents()).toEqual(['Pricing tables']);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Pricing tables');

  // An open group closes with Escape, focus back on its summary; and with a click elsewhere.
  const selling = page.locator('details.nav-group', { has: page.locator('summary', { hasText: 'Selling' }) });
  await page.locator('summary', { hasText: 'Selling' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  expect(await selling.getAttribute('open')).not.toBeNull();
  await page.keyboard.press('Escape');
  expect(await selling.getAttribute('open')).toBeNull();
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Selling');
  await page.keyboard.press('Enter');
  expect(await selling.getAttribute('open')).not.toBeNull();
  await page.locator('main h1').click();
  expect(await selling.getAttribute('open')).toBeNull();

  // A phone: the groups are gone, one Menu, closed, that opens and leads on.
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${app.t.config.baseUrl}/dashboard/businesses/${id}/test/home`);
  expect(await page.locator('.nav-groups').isVisible()).toBe(false);
  const menu = page.locator('.nav-menu > summary');
  expect(await menu.isVisible()).toBe(true);
  expect(await page.locator('.nav-menu').getAttribute('open')).toBeNull();
  expect(await page.locator('.nav-menu').getByRole('link', { name: 'Webhooks' }).isVisible()).toBe(false);
  await menu.click();
  expect(await page.locator('.nav-menu').getByRole('link', { name: 'Webhooks' }).isVisible()).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.locator('.nav-menu').getByRole('link', { name: 'Webhooks' }).click();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/businesses/${id}/test/webhooks`);
  await page.close();
}, 90_000);
