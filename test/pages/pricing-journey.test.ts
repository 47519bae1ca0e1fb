import { expect, it } from 'vitest';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { openArea } from '../support/dashboard-nav.ts';

// A pricing table as people meet it in real headless Chromium: a merchant creates one in the
// dashboard's form (two plans, Monthly and Yearly, the second recommended); a buyer opens its
// page, switches to Yearly, picks the first plan, and pays in Test mode; the payment, as the
// API reads it, and its events carry the plan chosen (planLabel) and the plan's price.

const app = appWithChromium();
const signedIn = (name: string) => ownerSignedIn(app, name);

it('a merchant creates a pricing table; a buyer picks a plan on its Yearly side and pays in Test; the payment carries the plan and its price', async () => {
  const { page, key } = await signedIn('Kestrel Club');
  await page.getByRole('link', { name: 'Kestrel Club in Test mode' }).click();
  await openArea(page, 'Selling', 'Checkouts');
  await page.getByRole('link', { name: 'Create a pricing table' }).click();
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('New Test pricing table');
  await page.getByLabel('Name', { exact: true }).fill('Coffee club');
  await page.getByLabel('Currency').fill('USD');
  await page.getByLabel('First option', { exact: true }).fill('Monthly');
  await page.getByLabel('Second option', { exact: true }).fill('Yearly');
  await page.getByLabel('Unit of the second price (with a switch)').fill('year');
  await page.getByLabel('Plan 1: name').fill('Taster');
  await page.getByLabel('Plan 1: price', { exact: true }).fill('9.00');
  await page.getByLabel('Plan 1: price for the second option (with a switch)').fill('90.00');
  await page.getByLabel('Plan 1: features (optional)').fill('One bag a month; Free shipping');
  // A plan left without its second price is refused beside that field, and nothing is made.
  await page.getByLabel('Plan 2: name').fill('Regular');
  await page.getByLabel('Plan 2: price', { exact: true }).fill('18.00');
  await page.getByRole('group', { name: 'Recommended plan' }).getByLabel('Plan 2').check();
  await page.getByRole('button', { name: 'Create pricing table' }).click();
  expect(await page.locator('#field-plan_2_price_2-error').innerText()).toContain('amount');
  await page.getByLabel('Plan 2: price for the second option (with a switch)').fill('180.00');
  await page.getByRole('button', { name: 'Create pricing table' }).click();
  await page.waitForURL(/done=created$/);
  const main = await page.locator('main').innerText();
  expect(main).toContain('Regular (recommended)');
  expect(main).toContain('<buy-button checkout=');
  const address = await page.getByLabel('Address (send it to buyers, or link to it)').inputValue();
  await page.close();

  const context = await app.browser.newContext();
  const buyer = await context.newPage();
  const problems: string[] = [];
  buyer.on('pageerror', (error) => problems.push(error.message));
  await buyer.goto(address);
  expect(await buyer.getByRole('heading', { name: 'Regular (Recommended)' }).count()).toBe(1);
  expect(await buyer.getByRole('radio', { name: /^Regular: \$18\.00 \/ month/ }).isChecked()).toBe(true);
  await buyer.getByRole('link', { name: 'Yearly' }).click();
  await buyer.waitForURL(/option=1$/);
  expect(await buyer.locator('main').innerText()).toContain('$180.00 / year');
  await buyer.getByRole('radio', { name: 'Taster: $90.00 / year' }).check();
  await buyer.getByLabel('Email').fill('ada@example.com');
  await buyer.getByRole('button', { name: 'Continue to pay' }).click();
  await buyer.waitForURL((url) => /^\/pay\/pay_\w+$/.test(url.pathname));
  const id = new URL(buyer.url()).pathname.split('/').pop()!;
  await buyer.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
  expect(await buyer.locator('main').innerText()).toContain('$90.00');
  await buyer.getByRole('button', { name: 'The full amount arrives' }).click();
  await buyer.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
  expect(problems).toEqual([]);
  await context.close();

  const payment = (await app.t.request('GET', `/v1/payments/${id}`, { key })).body;
  expect(payment).toMatchObject({ status: 'paid', source: 'checkout', amount: '90.00', currency: 'USD', plan_label: 'Taster, Yearly: 90.00 USD / year', customer_email: 'ada@example.com' });
  expect(payment.description).toBe('Coffee club: Taster');
  const events = await app.t.db.selectFrom('events').select(['type', 'body']).where('payment_id', '=', id).orderBy('seq').execute();
  expect(events.map((event) => event.type)).toEqual(['payment.started', 'payment.paid']);
  for (const event of events) expect(JSON.parse(event.body).data.payment).toMatchObject({ planLabel: 'Taster, Yearly: 90.00 USD / year', amount: '90.00' });
}, 120_000);
