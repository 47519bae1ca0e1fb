import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The payer pages as a buyer sees them in Chromium (issue 23): the summary beside the steps on a
// desktop and first on a phone, a long order folded on a phone, the time left in words, the
// country as a list of names in the buyer's language, the US state as a list, and a refused
// field said in the buyer's words, with and without the page's script.

let t: TestApp;
let browser: Browser;
let key: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PAYER_PAGES_PER_MINUTE: '1000', RATE_LIMIT_PAYER_FORMS_PER_MINUTE: '1000', RATE_LIMIT_PAYER_STARTS_PER_VISITOR_PER_MINUTE: '1000' });
  key = (await (await t.business({ name: 'Kestrel Coffee Roasters' })).key()).secret;
  browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
}, 600_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await t?.close();
});

/** A browser page at a width, in a language, with or without script; its clock is the app's, so the script counts down from the same moment. */
async function open(path: string, options: { width?: number; locale?: string; javaScript?: boolean; bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 800 }, locale: options.locale ?? 'en-US', javaScriptEnabled: options.javaScript ?? true, bypassCSP: options.bypassCSP ?? false,
  });
  contexts.push(context);
  context.setDefaultTimeout(10_000);
  await context.clock.setFixedTime(t.clock.now());
  const page = await context.newPage();
  const response = await page.goto(`${t.url}${path}`);
  expect(response!.status()).toBe(200);
  return page;
}

async function linkPath(body: Record<string, unknown> = {}): Promise<string> {
  const created = await t.request('POST', '/v1/payment_links', { key, body: { amount: '42.00', currency: 'USD', description: 'Ethiopia Guji, 1 kg', ...body } });
  expect(created.status).toBe(201);
  return new URL(created.body.url as string).pathname;
}

/** A session for an order of three lines (four items), collecting the shipping address. */
async function orderPath(): Promise<string> {
  const created = await t.request('POST', '/v1/checkout_sessions', {
    key, body: {
      currency: 'USD', description: 'Order #1042', collect: { shipping_address: true },
      order: {
        id: '1042', items: [
          { name: 'Ethiopia Guji', variant: '1 kg', quantity: 1, amount: '24.50' },
          { name: 'Colombia Huila', variant: '250 g', quantity: 2, unit_amount: '9.00', amount: '18.00' },
          { name: 'Ceramic dripper', quantity: 1, amount: '12.00' },
        ],
        total: '54.50',
      },
    },
  });
  expect(created.status).toBe(201);
  return new URL(created.body.url as string).pathname;
}

/** The script ticks once a second: a few seconds to see it on a busy machine. */
const TICKS = { timeout: 5000 };
const boxOf = async (page: Page, selector: string) => (await page.locator(selector).boundingBox())!;
const sidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > innerWidth);

describe('the layout', () => {
  it('puts the summary beside the steps at 1280 px, and first at 375 px without sideways scroll', async () => {
    const path = await orderPath();
    const desktop = await open(path, { bypassCSP: true });
    const [summary, steps] = [await boxOf(desktop, '.pay-summary'), await boxOf(desktop, '.pay-steps')];
    expect(summary.x + summary.width).toBeLessThanOrEqual(steps.x);
    expect(Math.abs(summary.y - steps.y)).toBeLessThan(2);
    expect(await desktop.getByRole('heading', { level: 1 }).innerText()).toBe('Order #1042');
    // Wide enough for the lines: shown open.
    await expect(desktop.getByText('Colombia Huila').isVisible()).resolves.toBe(true);
    // The pay button takes the merchant's colour once a brand stylesheet defines it (the brand part's hook).
    const button = desktop.getByRole('button', { name: 'Continue to payment' });
    const colours = () => button.evaluate((element) => [getComputedStyle(element).backgroundColor, getComputedStyle(element).color]);
    await desktop.addStyleTag({ content: ':root { --brand: #7a1f5c; --brand-text: #ffffff; }' });
    await expect(colours()).resolves.toEqual(['rgb(122, 31, 92)', 'rgb(255, 255, 255)']);

    const phone = await open(path, { width: 375 });
    const [top, below] = [await boxOf(phone, '.pay-summary'), await boxOf(phone, '.pay-steps')];
    expect(top.y + top.height).toBeLessThanOrEqual(below.y);
    expect(await sidewaysScroll(phone)).toBe(false);
    // A long order is one line on a phone, and opens to its lines.
    const fold = phone.locator('details.order-fold > summary');
    expect(await fold.innerText()).toBe('4 items · $54.50');
    await expect(phone.getByText('Colombia Huila').isVisible()).resolves.toBe(false);
    await fold.click();
    await expect(phone.getByText('Colombia Huila').isVisible()).resolves.toBe(true);
    // Without script too: <details> needs none.
    const plain = await open(path, { width: 375, javaScript: false });
    await expect(plain.getByText('Colombia Huila').isVisible()).resolves.toBe(false);
    await plain.locator('details.order-fold > summary').click();
    await expect(plain.getByText('Colombia Huila').isVisible()).resolves.toBe(true);
  });

  it('says the time left in words, as served and as the script ticks it, in the buyer\'s language', async () => {
    const path = await linkPath({ expires_in_days: 7 });
    const plain = await open(path, { javaScript: false });
    expect(await plain.locator('.countdown').innerText()).toBe('7 days');
    await t.jump(14 * 60 * 60 * 1000 + 5 * 60 * 1000); // 14 hours 5 minutes on
    const english = await open(path);
    await expect.poll(() => english.locator('.countdown').innerText(), TICKS).toBe('6 days, 9 hours');
    expect(await english.locator('.time-left').innerText()).toBe('Time left: 6 days, 9 hours');
    // The script ticks it: near the end, minutes, then seconds.
    const expires = Date.parse((await english.locator('.countdown').getAttribute('data-expires'))!);
    await english.clock.setFixedTime(expires - 14 * 60 * 1000 - 30_000);
    await expect.poll(() => english.locator('.countdown').innerText(), TICKS).toBe('14 minutes');
    await english.clock.setFixedTime(expires - 45_000);
    await expect.poll(() => english.locator('.countdown').innerText(), TICKS).toBe('45 seconds');
    const german = await open(path, { locale: 'de-DE' });
    await expect.poll(() => german.locator('.countdown').innerText(), TICKS).toBe('6 Tage, 9 Stunden');
  });
});

describe('the ways to pay', () => {
  it('are one list, the recommended first, with the Test controls apart at the foot in the secondary style', async () => {
    const page = await open(await linkPath(), { width: 375 });
    await page.getByLabel('Email').fill('sam@example.org');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    const options = page.locator('.pay-options > li');
    expect((await options.allInnerTexts())[0]).toMatch(/^Pay with MoonPay\s+Recommended$/);
    // One column: every option as wide as the list.
    const widths = await options.evaluateAll((items) => items.map((item) => item.getBoundingClientRect().width));
    expect(new Set(widths).size).toBe(1);
    const controls = page.getByRole('region', { name: 'Test mode controls' });
    const [list, box] = [await boxOf(page, '.pay-options'), (await controls.boundingBox())!];
    expect(box.y).toBeGreaterThan(list.y + list.height);
    const classes = await controls.getByRole('button').evaluateAll((buttons) => buttons.map((button) => button.className));
    expect(classes).toEqual(['button secondary', 'button secondary', 'button secondary', 'button secondary']);
    expect(await sidewaysScroll(page)).toBe(false);
  });
});

describe('the address', () => {
  it('lists countries by name in German for a German browser, country first', async () => {
    const page = await open(await orderPath(), { locale: 'de-DE' });
    const shipping = page.getByRole('group', { name: 'Lieferadresse' });
    const country = shipping.getByLabel('Land', { exact: true });
    expect(await country.evaluate((select) => select.tagName)).toBe('SELECT');
    const names = await country.locator('option').allInnerTexts();
    expect(names).toContain('Deutschland');
    expect(names).toContain('Vereinigte Staaten');
    expect(names).toContain('Österreich');
    expect(names[0]).toBe('Wählen Sie Ihr Land');
    // Country first, before the street.
    const labels = await shipping.locator('label:visible').allInnerTexts();
    expect(labels[0]).toBe('Land');
  });

  it('takes the US state from a list once the United States is chosen, and saves its code', async () => {
    const path = await orderPath();
    const page = await open(path, { width: 375 });
    const shipping = page.getByRole('group', { name: 'Shipping address' });
    await expect(shipping.getByLabel('State', { exact: true }).isVisible()).resolves.toBe(false);
    await page.getByLabel('Email').fill('sam@example.org');
    await shipping.getByLabel('Country').selectOption({ label: 'United States' });
    const state = shipping.getByLabel('State', { exact: true });
    await expect(state.isVisible()).resolves.toBe(true);
    expect(await state.locator('option').allInnerTexts()).toContain('California');
    await expect(shipping.getByLabel('State, province or region').isVisible()).resolves.toBe(false);
    await shipping.getByLabel('Address line 1').fill('1 Market St');
    await shipping.getByLabel('City').fill('San Francisco');
    await state.selectOption({ label: 'California' });
    await shipping.getByLabel('Postal code').fill('94105');
    expect(await sidewaysScroll(page)).toBe(false);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    const id = path.split('/').pop()!;
    const order = await t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.ship_to').where('p.id', '=', id).executeTakeFirstOrThrow();
    expect(order.ship_to).toMatchObject({ country: 'US', region: 'CA', city: 'San Francisco' });
  });

  it('without script: a state typed by name is taken, and one that is none is refused in the buyer\'s words with the list shown', async () => {
    const path = await orderPath();
    const page = await open(path, { javaScript: false });
    const shipping = page.getByRole('group', { name: 'Shipping address' });
    await page.getByLabel('Email').fill('sam@example.org');
    await shipping.getByLabel('Country').selectOption('US');
    await shipping.getByLabel('Address line 1').fill('12 Elm Street');
    await shipping.getByLabel('City').fill('Springfield');
    await shipping.getByLabel('State, province or region').fill('Nowhere');
    await shipping.getByLabel('Postal code').fill('62704');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    const error = page.locator('#field-shipping_address-region-US-error');
    await error.waitFor();
    expect(await error.innerText()).toBe('Error: Choose your state from the list.');
    expect(await page.locator('main').innerText()).not.toMatch(/region code|AL, AK|decimal string/);
    // The list is shown now the country is known; the rest is kept.
    const state = shipping.getByLabel('State', { exact: true });
    await expect(state.isVisible()).resolves.toBe(true);
    expect(await state.getAttribute('aria-invalid')).toBe('true');
    expect(await shipping.getByLabel('City').inputValue()).toBe('Springfield');
    await state.selectOption({ label: 'Illinois' });
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();

    // A name typed where the list is not yet shown is taken as its code.
    const other = await orderPath();
    const second = await open(other, { javaScript: false });
    const address = second.getByRole('group', { name: 'Shipping address' });
    await second.getByLabel('Email').fill('kim@example.org');
    await address.getByLabel('Country').selectOption('CA');
    await address.getByLabel('Address line 1').fill('100 Queen St W');
    await address.getByLabel('City').fill('Toronto');
    await address.getByLabel('State, province or region').fill('ontario');
    await address.getByLabel('Postal code').fill('M5H 2N2');
    await second.getByRole('button', { name: 'Continue to payment' }).click();
    await second.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    const order = await t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.ship_to').where('p.id', '=', other.split('/').pop()!).executeTakeFirstOrThrow();
    expect(order.ship_to).toMatchObject({ country: 'CA', region: 'ON' });
  });
});
