import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { objectPath } from '../../src/dashboard/paths.ts';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// The rest of an underpayment (issue 23, docs/remainders.md) in real headless Chromium, Test mode:
// a buyer underpays a payment link, the held page says what arrived and what is missing; the
// merchant asks for the rest in the dashboard and sees the remainder's address; the buyer's held
// page offers "Pay the remaining …", the buyer pays it, and the order is paid with amount_paid
// its total, in the API, the database and the webhook events.

const app = appWithChromium({ RATE_LIMITS: 'off' }, { workers: true });
let receiver: Receiver;
beforeAll(async () => { receiver = await startReceiver(); });
afterAll(async () => receiver?.close());

const main = (page: Page) => page.locator('main').innerText();

it('underpaid, asked for the rest, rest paid: the order is paid with amount_paid its total, and the events say so', async () => {
  const { t } = app;
  const { page: merchant, key, id: businessId } = await ownerSignedIn(app, 'Harbour Roasters');
  expect((await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `${receiver.url}/rest` } })).status).toBe(201);
  const link = (await t.request('POST', '/v1/payment_links', { key, body: { amount: '9.00', currency: 'USD', description: 'Espresso blend, 1 kg' } })).body;

  // The buyer pays from their wallet, and less than asked arrives (80%, Test's default).
  const context = await app.browser.newContext();
  const buyer = await context.newPage();
  buyer.setDefaultTimeout(10_000);
  await buyer.goto(`${t.url}/pay/${link.id}`);
  await buyer.getByLabel('Email').fill('ada@buyer.example');
  await buyer.getByRole('button', { name: 'Continue to payment' }).click();
  await buyer.getByRole('button', { name: 'Less than asked arrives' }).click();
  await buyer.getByRole('heading', { name: 'Your payment needs a check' }).waitFor();
  expect(await main(buyer)).toContain('We received $7.20 of $9.00; $1.80 is missing.');
  expect(await buyer.getByRole('link', { name: /Pay the remaining/ }).count()).toBe(0);

  // The home page lists it to review.
  const home = `${t.url}/dashboard/businesses/${businessId}/test/home`;
  await merchant.goto(home);
  expect(await merchant.locator('section[aria-labelledby="held-heading"]').innerText()).toContain('Espresso blend, 1 kg');

  // The merchant asks for the rest on the payment's page.
  const detail = `${t.url}${objectPath(businessId, 'payments', 'test', link.id)}`;
  await merchant.goto(detail);
  await merchant.getByRole('button', { name: 'Ask for the rest (1.80 USD)' }).click();
  await merchant.waitForURL(/rest=asked$/);
  expect(await merchant.getByRole('status').innerText()).toContain('Asked for the rest');
  const remainder = await t.db.selectFrom('payments').selectAll().where('remainder_of', '=', link.id).executeTakeFirstOrThrow();
  expect(remainder).toMatchObject({ amount_minor: 180, currency: 'USD', status: 'open', order_id: expect.any(String) });
  const address = merchant.getByLabel('Address the buyer pays the rest at');
  expect(await address.inputValue()).toBe(`${t.config.baseUrl}/pay/${remainder.id}`);
  expect(await address.getAttribute('readonly')).not.toBeNull();
  // Asked once: neither Ask again nor Accept is offered while the rest is open, and a reload posts nothing.
  await merchant.reload();
  expect(await merchant.getByRole('button', { name: /Ask for the rest/ }).count()).toBe(0);
  expect(await merchant.getByRole('link', { name: 'Accept this payment' }).count()).toBe(0);
  expect(await t.db.selectFrom('payments').select('id').where('remainder_of', '=', link.id).execute()).toHaveLength(1);

  // The buyer's held page now offers the rest; they pay it like the first.
  await buyer.reload();
  expect(await main(buyer)).toContain('Harbour Roasters asks you to pay the rest');
  await buyer.getByRole('link', { name: 'Pay the remaining $1.80' }).click();
  expect(new URL(buyer.url()).pathname).toBe(`/pay/${remainder.id}`);
  expect(await buyer.getByLabel('Email').inputValue()).toBe('ada@buyer.example');
  expect(await main(buyer)).toContain('This pays the rest of your order: $7.20 of $9.00 arrived earlier.');
  await buyer.getByRole('button', { name: 'Continue to payment' }).click();
  await buyer.getByRole('button', { name: 'The full amount arrives' }).click();
  await buyer.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
  expect(await main(buyer)).toContain('$1.80');
  // Back on the first payment's page: done.
  await buyer.goto(`${t.url}/pay/${link.id}`);
  await buyer.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
  expect(await main(buyer)).toContain('The rest arrived too: Harbour Roasters has received your whole payment.');

  // The order: paid, amount_paid its total, through the API and in the database.
  const order = (await t.request('GET', `/v1/orders/${remainder.order_id}`, { key })).body;
  expect(order).toMatchObject({ status: 'paid', total: '9.00', amount_paid: '9.00' });
  // (Both started at the same moment of the test's clock: the order of their ids is the ids'.)
  expect([...order.payment_ids].sort()).toEqual([link.id, remainder.id].sort());
  expect(await t.db.selectFrom('orders').select(['status']).where('id', '=', remainder.order_id!).executeTakeFirstOrThrow()).toEqual({ status: 'paid' });
  expect((await t.request('GET', `/v1/payment_links/${link.id}`, { key })).body.status).toBe('held');

  // Delivered: the first payment's started and held, the rest's started and paid, whose order is paid in full.
  await vi.waitFor(() => {
    const events = receiver.received.filter((request) => request.path === '/rest').map((request) => JSON.parse(request.body));
    const types = (id: string) => events.filter((event) => event.data.payment.id === id).map((event) => event.type).sort();
    expect(types(link.id)).toEqual(['payment.held', 'payment.started']);
    expect(types(remainder.id)).toEqual(['payment.paid', 'payment.started']);
    const paid = events.find((event) => event.type === 'payment.paid')!;
    expect(paid.data.order).toMatchObject({ id: remainder.order_id, status: 'paid', amountPaid: '9.00', total: '9.00', paymentId: remainder.id, needsReview: false });
  }, { timeout: 15_000, interval: 100 });

  // The merchant sees the rest paid, and the remainder's page names the payment it completes.
  await merchant.goto(detail);
  const rest = merchant.getByRole('region', { name: 'The rest of this payment' });
  expect(await rest.innerText()).toMatch(/\bpaid\b/i);
  expect(await merchant.getByLabel('Address the buyer pays the rest at').count()).toBe(0);
  await rest.getByRole('link', { name: remainder.id }).click();
  expect(await main(merchant)).toContain(`The rest of the held payment ${link.id}`);
  // Paid in full: nothing left to review on the home page.
  await merchant.goto(home);
  expect(await merchant.locator('section[aria-labelledby="held-heading"]').innerText()).toContain('Nothing to review: no held payment needs you.');
  await context.close();
  await merchant.close();
}, 120_000);
