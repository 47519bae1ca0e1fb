import { expect, it } from 'vitest';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { openArea } from '../support/dashboard-nav.ts';

// The dashboard's business areas in real headless Chromium, as a merchant uses them: accept a
// held payment from its page, switch to Live and see none of the Test data; create a payment
// link from the form, hand its address to a buyer, cancel it and see the buyer's page refuse.

const app = appWithChromium();
const signedIn = (name: string) => ownerSignedIn(app, name);

it('a merchant finds a held payment, accepts it after confirming, and sees no Test data in Live', async () => {
  const { page, key } = await signedIn('Harbour Roasters');
  const session = (await app.t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '40.00', currency: 'USD', description: 'Espresso blend, 1 kg', customer_email: 'ada@buyer.example' } })).body;
  await app.t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key });
  expect((await app.t.request('POST', `/v1/payments/${session.id}/simulate`, { key, body: { outcome: 'underpaid' } })).body.status).toBe('held');

  await page.getByRole('link', { name: 'Harbour Roasters in Test mode' }).click();
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Home');
  await openArea(page, 'Payments', 'Payments');
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Payments');
  expect(await page.locator('.nav-groups [aria-current="page"]').allTextContents()).toEqual(['Payments']);
  // The filters are folded while none is applied.
  await page.locator('summary', { hasText: 'Filters' }).click();
  await page.getByLabel('Status').selectOption('held');
  await page.getByRole('button', { name: 'Filter' }).click();
  expect(new URL(page.url()).searchParams.get('status')).toBe('held');
  await page.getByRole('link', { name: 'Espresso blend, 1 kg' }).click();
  const facts = await page.locator('main').innerText();
  expect(facts).toContain('Held');
  expect(facts).toContain('payment.held');

  await page.getByRole('link', { name: 'Accept this payment' }).click();
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Accept this held payment?');
  await page.getByRole('button', { name: 'Accept as paid' }).click();
  await page.waitForURL(/accepted=1$/);
  expect(await page.getByRole('status').innerText()).toContain('Accepted');
  expect(await page.locator('main').innerText()).toContain('payment.paid');
  expect((await app.t.request('GET', `/v1/payments/${session.id}`, { key })).body.status).toBe('paid');
  // A reload of the page after the redirect posts nothing again.
  await page.reload();
  expect((await app.t.db.selectFrom('events').select('type').where('payment_id', '=', session.id).execute()).map((event) => event.type))
    .toEqual(['payment.started', 'payment.held', 'payment.paid']);

  await page.getByRole('link', { name: 'Switch to Live' }).click();
  expect(page.url()).toContain('/live/payments');
  const live = await page.locator('body').innerText();
  expect(live).toContain('Live mode');
  expect(live).not.toContain('Espresso blend');
  expect(live).toContain('No payments yet.');
  await page.close();
}, 60_000);

it('a merchant creates a payment link from the form, a buyer opens it, the merchant cancels it and the buyer\'s page says so', async () => {
  const { page, key } = await signedIn('Corner Café');
  await page.getByRole('link', { name: 'Corner Café in Test mode' }).click();
  await openArea(page, 'Selling', 'Payment links');
  await page.getByRole('link', { name: 'Create a payment link' }).click();
  await page.getByLabel('Amount').fill('12,50');
  await page.getByLabel('Currency').fill('EUR');
  await page.getByLabel('What it is for').fill('Catering, 12 May');
  await page.getByRole('button', { name: 'Create payment link' }).click();
  // The API's message beside the field, and what was typed kept.
  expect(await page.locator('#field-amount-error').innerText()).toContain('amount');
  expect(await page.getByLabel('What it is for').inputValue()).toBe('Catering, 12 May');
  await page.getByLabel('Amount').fill('12.50');
  await page.getByLabel('A phone number').check();
  await page.getByRole('button', { name: 'Create payment link' }).click();
  await page.waitForURL(/created=1$/);
  const payerUrl = await page.getByLabel(/Payer address/).inputValue();
  const listed = (await app.t.request('GET', '/v1/payment_links', { key })).body.data;
  expect(listed).toHaveLength(1);
  expect(listed[0]).toMatchObject({ url: payerUrl, amount: '12.50', currency: 'EUR', collect: { phone: true } });

  const buyer = await app.browser.newPage();
  await buyer.goto(payerUrl);
  expect(await buyer.getByRole('heading', { level: 1 }).innerText()).toBe('Catering, 12 May');
  expect(await buyer.getByLabel('Phone').count()).toBe(1);

  // Canceling asks first: leaving the confirmation keeps the link; confirming cancels it.
  await page.getByRole('link', { name: 'Cancel this link…' }).click();
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Cancel this payment link?');
  await page.getByRole('link', { name: 'Keep the link' }).click();
  expect((await app.t.request('GET', `/v1/payment_links/${listed[0]!.id}`, { key })).body.canceled_at).toBeNull();
  await page.getByRole('link', { name: 'Cancel this link…' }).click();
  await page.getByRole('button', { name: 'Cancel the link for good' }).click();
  await page.waitForURL(/canceled=1$/);
  expect(await page.getByRole('status').innerText()).toContain('Canceled');
  await buyer.reload();
  expect(await buyer.getByRole('heading', { level: 1 }).innerText()).toBe('This payment is closed');
  await buyer.close();
  await page.close();
}, 60_000);

it('a merchant creates a checkout page, changes its price (the address stays), deletes it, and a buyer is refused', async () => {
  const { page, key } = await signedIn('Kestrel Coffee');
  await page.getByRole('link', { name: 'Kestrel Coffee in Test mode' }).click();
  await openArea(page, 'Selling', 'Checkouts');
  await page.getByRole('link', { name: 'Create a checkout page' }).click();
  await page.getByLabel('Name', { exact: true }).fill('House blend');
  await page.getByLabel('Price').fill('18.50');
  await page.getByLabel('Currency').fill('EUR');
  await page.getByRole('button', { name: 'Create checkout page' }).click();
  await page.waitForURL(/done=created$/);
  const address = await page.getByLabel(/^Address/).inputValue();
  expect(await page.getByLabel('Put these lines on any page of your site').inputValue()).toContain('<buy-button checkout=');

  const buyer = await app.browser.newPage();
  await buyer.goto(address);
  expect(await buyer.getByRole('button', { name: 'Pay €18.50' }).count()).toBe(1);

  await page.getByRole('link', { name: 'Change' }).click();
  await page.getByLabel('Price').fill('21.00');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/done=saved$/);
  expect(await page.getByLabel(/^Address/).inputValue()).toBe(address);
  await buyer.reload();
  expect(await buyer.getByRole('button', { name: 'Pay €21.00' }).count()).toBe(1);

  await page.getByRole('link', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Delete for good' }).click();
  expect(await page.getByRole('status').innerText()).toContain('Deleted');
  const refused = await buyer.reload();
  expect(refused?.status()).toBe(410);
  expect(await buyer.getByRole('heading', { level: 1 }).innerText()).toBe('No longer available');
  expect((await app.t.request('GET', '/v1/checkouts', { key })).body.data).toEqual([]);
  await buyer.close();
  await page.close();
}, 60_000);
