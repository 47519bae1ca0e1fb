import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { seriousViolations } from '../support/accessibility.ts';

// No dead ends (issue 23, must have 6), in Chromium: a refused form keeps what was typed and says
// how to fix it, with a link where the fix is elsewhere; the start page; HTML "not found" pages
// under the dashboard and the payer pages (the API keeps its JSON); the icon.

const app = appWithChromium();

const base = () => app.t.config.baseUrl;

/** The new-link form of `mode`, filled in as a person would, and sent. */
async function sendLinkForm(page: Page, businessId: string, mode: 'test' | 'live', amount: string): Promise<number> {
  await page.goto(`${base()}/dashboard/businesses/${businessId}/${mode}/payment_links/new`);
  await page.fill('#field-amount', amount);
  await page.fill('#field-currency', 'EUR');
  await page.fill('#field-description', 'Gift card for Ada');
  await page.locator('summary', { hasText: 'your reference' }).click();
  await page.fill('#field-reference', 'GC-2041');
  await page.check('#field-collect-collect_phone');
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button:has-text("Create payment link")')]);
  await page.waitForLoadState('load');
  return response.status();
}

async function expectTypedKept(page: Page, amount: string): Promise<void> {
  expect(await page.inputValue('#field-amount')).toBe(amount);
  expect(await page.inputValue('#field-currency')).toBe('EUR');
  expect(await page.inputValue('#field-description')).toBe('Gift card for Ada');
  expect(await page.inputValue('#field-reference')).toBe('GC-2041');
  expect(await page.isChecked('#field-collect-collect_phone')).toBe(true);
}

describe('a refused dashboard form', () => {
  it('a Live link without a payout wallet: the form again as typed, and a working link to the payout wallet in Settings', async () => {
    const { page, id } = await ownerSignedIn(app, 'No Wallet Yet');
    await app.t.db.updateTable('businesses').set({ payout_wallet: null }).where('id', '=', id).execute();

    expect(await sendLinkForm(page, id, 'live', '25.00')).toBe(409);
    await expectTypedKept(page, '25.00');
    const alert = page.locator('[role="alert"]');
    expect(await alert.textContent()).toContain('Live payments need a payout wallet first');
    expect(await alert.textContent()).not.toMatch(/no_payout_wallet|business list/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await app.t.db.selectFrom('payments').select('id').where('business_id', '=', id).execute()).toEqual([]);

    await alert.locator('a', { hasText: 'Set a payout wallet in Settings' }).click();
    await page.waitForLoadState('load');
    expect(page.url()).toBe(`${base()}/dashboard/businesses/${id}/live/settings#wallet-heading`);
    expect(await page.textContent('#wallet-heading')).toBe('Payout wallet');
    expect(await page.isVisible('#field-payout_wallet')).toBe(true);
    await page.close();
  });

  it('an amount refused in a person\'s words beside the field, with everything typed kept', async () => {
    const { page, id } = await ownerSignedIn(app, 'Comma Amounts');
    expect(await sendLinkForm(page, id, 'test', '12,50')).toBe(400);
    await expectTypedKept(page, '12,50');
    const message = await page.textContent('#field-amount-error');
    expect(message).toContain('Enter an amount like 25.00: from 1.00 to 100000.00, with at most two decimals.');
    expect(await page.textContent('main')).not.toContain('decimal string');
    expect(await page.getAttribute('#field-amount', 'aria-invalid')).toBe('true');
    await page.close();
  });
  it('the team and key forms, once the error page, keep what was typed and say why beside the field', async () => {
    const { page, id } = await ownerSignedIn(app, 'Typed Kept');
    await page.goto(`${base()}/dashboard/businesses/${id}/test/team`);
    await page.fill('#field-email', 'ada.example.com');
    await page.selectOption('#field-role', 'developer');
    // (The browser's own check of type=email is what a person meets first; the server's is what this is about.)
    await page.evaluate(() => document.querySelector('form[aria-label="Add a person or change a role"]')?.setAttribute('novalidate', ''));
    const [team] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button:has-text("Save")')]);
    await page.waitForLoadState('load');
    expect(team.status()).toBe(400);
    expect(await page.inputValue('#field-email')).toBe('ada.example.com');
    expect(await page.inputValue('#field-role')).toBe('developer');
    expect(await page.textContent('#field-email-error')).toBe('Error: Enter an email address like name@example.com.');

    await page.goto(`${base()}/dashboard/businesses/${id}/test/keys`);
    await page.evaluate(() => document.querySelector('#field-name')?.removeAttribute('maxlength'));
    await page.fill('#field-name', 'k'.repeat(81));
    await page.check('input[name="access"][value="read_only"]');
    const [keys] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button:has-text("Create key")')]);
    await page.waitForLoadState('load');
    expect(keys.status()).toBe(400);
    expect(await page.inputValue('#field-name')).toBe('k'.repeat(81));
    expect(await page.isChecked('input[name="access"][value="read_only"]')).toBe(true);
    expect(await page.textContent('#field-name-error')).toBe('Error: Too long: at most 80 characters.');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});

describe('addresses that lead somewhere', () => {
  it('GET / is a start page for a browser, and the same addresses as JSON for a program', async () => {
    const page = await app.browser.newPage();
    const response = await page.goto(`${base()}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.textContent('h1')).toBe('Payment Service');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.getAttribute('a:has-text("API reference")', 'href')).toBe('/docs');
    expect(await page.getAttribute('a:has-text("Health")', 'href')).toBe('/healthz');
    await page.click('a:has-text("Open the dashboard")');
    await page.waitForLoadState('load');
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await page.close();

    const json = await fetch(`${base()}/`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual({
      name: 'Payment Service', dashboard: `${base()}/dashboard`, api: `${base()}/v1`, reference: `${base()}/docs`,
      openapi: `${base()}/v1/openapi.json`, health: `${base()}/healthz`,
    });
  });

  it('a mistyped dashboard address is a page in the dashboard\'s frame, with the way back', async () => {
    const { page, id } = await ownerSignedIn(app, 'Typo Shop');
    for (const path of ['/dashboard/setings', `/dashboard/businesses/${id}/test/paymnets`, `/dashboard/businesses/${id}/test/payments/pay_nothing/more`]) {
      const response = await page.goto(`${base()}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      expect(await page.textContent('h1')).toBe('Not found');
      expect(await page.textContent('main')).toContain('There is no page at this address.');
      // Signed in: the frame says who, and the sign-out is there.
      expect(await page.textContent('header')).toContain('Sign out');
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.click('main a:has-text("Back to the dashboard")');
    await page.waitForLoadState('load');
    expect(page.url()).toBe(`${base()}/dashboard`);
    await page.close();
  });

  it('an unknown payer address is the buyer\'s page in their language, with nothing of any merchant', async () => {
    const context = await app.browser.newContext({ locale: 'de-DE', extraHTTPHeaders: { 'accept-language': 'de-DE,de;q=0.9' } });
    const page = await context.newPage();
    for (const path of ['/pay/pay_doesnotexist', '/track/trk_doesnotexist', '/c/no-such-checkout', '/c/no-such-checkout?option=1', '/pay/pay_x/no-such-step']) {
      const response = await page.goto(`${base()}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      expect(await page.getAttribute('html', 'lang')).toBe('de');
      expect(await page.textContent('h1')).toBe('Seite nicht gefunden');
    }
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('the API keeps the spec\'s JSON error, whatever the caller accepts', async () => {
    for (const accept of ['application/json', 'text/html,application/xhtml+xml']) {
      const response = await fetch(`${base()}/v1/unknown`, { headers: { accept } });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'There is no GET /v1/unknown.' } });
    }
    // Outside the API, a program still reads JSON; a browser, a page.
    expect((await (await fetch(`${base()}/nowhere`)).json()).error.code).toBe('not_found');
    const page = await fetch(`${base()}/nowhere`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('There is no page at this address.');
  });

  it('the icon: linked from every page, from our own origin, typed and cached', async () => {
    const page = await app.browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`${base()}/dashboard/sign-in`);
    const href = await page.getAttribute('link[rel="icon"]', 'href');
    expect(href).toMatch(/^\/assets\/icon\.[0-9a-f]{16}\.svg$/);
    await page.close();
    expect(requests.every((url) => url.startsWith(base()))).toBe(true);

    const svg = await fetch(`${base()}${href}`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await svg.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);

    const ico = await fetch(`${base()}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    expect(ico.headers.get('cache-control')).toBe('public, max-age=86400');
    // An icon directory (reserved 0, type 1) of three images.
    expect([...Buffer.from(await ico.arrayBuffer()).subarray(0, 6)]).toEqual([0, 0, 1, 0, 3, 0]);

    // The payer pages link it too.
    const payer = await (await fetch(`${base()}/pay/pay_doesnotexist`)).text();
    expect(payer).toContain(`<link rel="icon" href="${href}" type="image/svg+xml"/>`);
  });
});
