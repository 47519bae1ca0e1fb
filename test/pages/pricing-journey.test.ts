import { expect, it } from 'vitest';
import { parsePricing } from '../../src/resources/checkouts/plans.ts';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { openArea } from '../support/dashboard-nav.ts';

// A pricing table as people meet it in real headless Chromium: a merchant creates one in the
// dashboard's form (two plans, Monthly and Yearly, the second recommended); a buyer opens its
// page, switches to Yearly, chooses the first plan by its card's button, and pays in Test mode;
// the payment, as the API reads it, and its events carry the plan chosen (planLabel) and its
// price. Then the buyer's side alone, with script and without: the plan chosen by its card's
// button is the one charged, the card marked, the price one payment, the merchant's label on
// the button; a forged plan is refused and makes no payment.

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
  expect(await page.getByLabel('Put these lines on any page of your site').inputValue()).toContain('<buy-button checkout=');
  const address = await page.getByLabel('Address (send it to buyers, or link to it)').inputValue();
  await page.close();

  const context = await app.browser.newContext();
  const buyer = await context.newPage();
  const problems: string[] = [];
  buyer.on('pageerror', (error) => problems.push(error.message));
  await buyer.goto(address);
  expect(await buyer.getByRole('heading', { name: 'Regular (Recommended)' }).count()).toBe(1);
  expect(await buyer.getByRole('radio', { name: 'Regular (Recommended)' }).isChecked()).toBe(true);
  expect(await buyer.locator('main').innerText()).toContain('$18.00, one payment for a month');
  await buyer.getByText('Yearly', { exact: true }).click();
  expect(await buyer.locator('main').innerText()).toContain('$180.00, one payment for a year');
  await buyer.getByText('Choose Taster').click();
  expect(await buyer.getByRole('radio', { name: 'Taster' }).isChecked()).toBe(true);
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

/**
 * A pricing table as the dashboard's action writes it (plans numbered by parsePricing), on a page the
 * API creates: Taster, Regular (recommended) and Café, Monthly and Yearly.
 */
async function pricingTable(key: string, more: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const created = await app.t.request('POST', '/v1/checkouts', { key, body: { name: 'Coffee club', amount: '9.00', currency: 'USD', ...more } });
  expect(created.status).toBe(201);
  const plan = (name: string, monthly: string, yearly: string, recommended = false) =>
    ({ name, prices: [{ amount: monthly, unit: 'month' }, { amount: yearly, unit: 'year' }], features: [], recommended });
  const { options, plans, amount } = parsePricing({ options: ['Monthly', 'Yearly'], plans: [plan('Taster', '9.00', '90.00'), plan('Regular', '18.00', '180.00', true), plan('Café', '60.00', '600.00')] });
  await app.t.db.updateTable('checkouts').set({ kind: 'pricing_table', options: JSON.stringify(options), plans: JSON.stringify(plans), amount_minor: amount })
    .where('id', '=', created.body.id).execute();
  return created.body;
}

/** A buyer's page on the table, with script or without, and what went wrong in it (errors, dialogs). */
async function buyerOn(table: { slug: string }, javaScriptEnabled = true) {
  const context = await app.browser.newContext({ javaScriptEnabled });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('dialog', (dialog) => { problems.push(`dialog: ${dialog.message()}`); void dialog.dismiss(); });
  await page.goto(`${app.t.url}/c/${table.slug}`);
  const card = (name: string) => page.locator('.plan').filter({ hasText: name });
  return { context, page, problems, card, main: () => page.locator('main').innerText() };
}

const paymentsOf = async (checkoutId: string) => app.t.db.selectFrom('payments').select(['id', 'amount_minor']).where('checkout_id', '=', checkoutId).execute();

for (const javaScriptEnabled of [true, false]) {
  it(`a buyer ${javaScriptEnabled ? 'with' : 'without'} script chooses Café (not the recommended plan) by its card's button on the Yearly side, and is charged Café's yearly price`, async () => {
    const biz = await app.t.business({ name: 'Kestrel Club' });
    const key = (await biz.key()).secret;
    const table = await pricingTable(key, { button_label: 'Join the club' });
    const { context, page, problems, card, main } = await buyerOn(table, javaScriptEnabled);
    // Script is off in this browser when a page's own script cannot run.
    const probe = await context.newPage();
    await probe.goto('data:text/html,<title>off</title><script>document.title = "on"</script>');
    expect(await probe.title()).toBe(javaScriptEnabled ? 'on' : 'off');
    await probe.close();

    // As it opens: the recommended plan selected (said in text), each price one payment, the merchant's label on the button.
    expect(await card('Regular').innerText()).toContain('Selected');
    expect(await card('Café').innerText()).toContain('Choose Café');
    expect(await page.getByRole('radio', { name: 'Regular (Recommended)' }).isChecked()).toBe(true);
    const opened = await main();
    expect(opened).toContain('$60.00, one payment for a month');
    expect(opened).toContain('Your plan: Regular, $18.00, one payment for a month');
    expect(opened).not.toMatch(/\/ ?(month|year)/);
    expect(await page.getByRole('button', { name: 'Join the club' }).count()).toBe(1);

    // The switch shows one side's prices; Café's card button chooses Café, and only Café is marked.
    await page.getByText('Yearly', { exact: true }).click();
    await card('Café').getByText('Choose Café').click();
    expect(await page.getByRole('radio', { name: 'Café' }).isChecked()).toBe(true);
    expect(await card('Café').innerText()).toContain('Selected');
    expect(await card('Café').innerText()).not.toContain('Choose Café');
    expect(await card('Regular').innerText()).toContain('Choose Regular');
    expect(await card('Café').evaluate((element) => getComputedStyle(element).boxShadow)).not.toBe('none');
    expect(await card('Regular').evaluate((element) => getComputedStyle(element).boxShadow)).toBe('none');
    const chosen = await main();
    expect(chosen).toContain('$600.00, one payment for a year');
    expect(chosen).not.toContain('$60.00, one payment for a month');
    expect(chosen).toContain('Your plan: Café, $600.00, one payment for a year');

    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByRole('button', { name: 'Join the club' }).click();
    await page.waitForURL((url) => /^\/pay\/pay_\w+$/.test(url.pathname));
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
    expect(await main()).toContain('$600.00');
    expect(problems).toEqual([]);
    await context.close();

    expect(await paymentsOf(table.id)).toEqual([{ id, amount_minor: 60000 }]);
    const payment = (await app.t.request('GET', `/v1/payments/${id}`, { key })).body;
    expect(payment).toMatchObject({ amount: '600.00', currency: 'USD', plan_label: 'Café, Yearly: 600.00 USD / year', customer_email: 'ada@example.com' });
  }, 120_000);
}

it('a forged plan (another table\'s id, a hostile value, none) is refused in the buyer\'s words, the recommended plan selected again, and makes no payment', async () => {
  const biz = await app.t.business({ name: 'Kestrel Forge' });
  const key = (await biz.key()).secret;
  const table = await pricingTable(key);
  const { context, page, problems, card, main } = await buyerOn(table);
  for (const forged of ['plan_4', '"><img src=x onerror=alert(1)>', '']) {
    await page.getByText('Choose Café').click();
    await page.getByRole('radio', { name: 'Café' }).evaluate((radio, value) => { (radio as HTMLInputElement).value = value; }, forged);
    await page.getByLabel('Email').fill('ada@example.com');
    const [response] = await Promise.all([page.waitForResponse((answer) => answer.request().method() === 'POST'), page.getByRole('button', { name: 'Continue to pay' }).click()]);
    expect(response.status()).toBe(400);
    await page.waitForLoadState();
    expect(await main()).toContain('That plan is not offered here. Choose one of the plans shown.');
    expect(await page.getByRole('radio', { name: 'Regular (Recommended)' }).isChecked()).toBe(true);
    expect(await card('Regular').innerText()).toContain('Selected');
    expect(await page.getByLabel('Email').inputValue()).toBe('ada@example.com');
    expect(await page.locator('img').count()).toBe(0);
  }
  expect(problems).toEqual([]);
  await context.close();
  expect(await paymentsOf(table.id)).toEqual([]);
}, 120_000);

it('the buy button for a table shows the merchant\'s label, and without one the plans\' starting price, never a single price to pay', async () => {
  const biz = await app.t.business({ name: 'Kestrel Buttons' });
  const key = (await biz.key()).secret;
  const labelled = await pricingTable(key, { button_label: 'Join the club' });
  const plain = await pricingTable(key);
  const label = async (table: { slug: string }) => ((await (await fetch(`${app.t.url}/c/${table.slug}/button.json`)).json()) as { label: string }).label;
  expect(await label(labelled)).toBe('Join the club');
  expect(await label(plain)).toBe('Plans from $9.00');
});
