import { createHmac } from 'node:crypto';
import jsQR from 'jsqr';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toChecksumAddress } from '../../src/core/deposit-addresses.ts';
import { axeFindings } from '../support/accessibility.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// A Live buyer in Chromium: after giving an email, the buyer is offered only the card providers
// this deployment has keys for, and their own wallet: the payment's deposit address, the amount
// in USDC and a QR code a wallet scans to the same transfer. Choosing a provider records it
// (pending) and sends the browser to that provider's signed page for this deposit address.

const MOONPAY = { MOONPAY_API_KEY: 'pk_live_kestrel0123456789', MOONPAY_SECRET_KEY: 'sk_live_moonpay_secret_0123456789' };
const USDC_ON_POLYGON = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

let t: TestApp;
let browser: Browser;
let context: BrowserContext;
let liveKey: string;
/** Every request the browser made outside the service. */
const elsewhere: { url: string; referer: string | undefined }[] = [];

beforeAll(async () => {
  t = await startTestApp({ ...MOONPAY, RAMP_HOST_API_KEY: 'ramp_live_0123456789' }, { realOrigin: true });
  liveKey = (await (await t.business({ name: 'Kestrel Coffee Roasters' })).key({ mode: 'live' })).secret;
  // Polygon watched by a healthy processor: the network the wallet and the card providers use.
  await reportProcessorStatus(t, { networks: ['polygon'] });
  browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
  context = await browser.newContext({ viewport: { width: 375, height: 812 } });
  // The network is closed: a provider's page is answered here, and the request kept.
  await context.route((url) => !url.href.startsWith(t.config.baseUrl), async (route) => {
    elsewhere.push({ url: route.request().url(), referer: await route.request().headerValue('referer') ?? undefined });
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Provider</title><h1>Provider page</h1>' });
  });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

function decodeQr(png: Buffer): string | null {
  const { data, width, height } = PNG.sync.read(png);
  return jsQR.default(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height)?.data ?? null;
}

it('a Live buyer sees the configured providers and their own wallet, and goes to the provider\'s signed page', async () => {
  const created = await t.request('POST', '/v1/payment_links', { key: liveKey, body: { amount: '25.00', currency: 'USD', description: 'Ethiopia Guji, 1 kg' } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const page = await context.newPage();
  await page.goto(created.body.url as string);
  await expect(page.getByRole('note').count()).resolves.toBe(0); // Live: no Test banner
  await page.getByLabel('Email').fill('priya@harbourcafe.example');
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();

  const payment = await t.db.selectFrom('payments').select(['status', 'deposit_address', 'usd_value_minor', 'customer_email']).where('id', '=', id).executeTakeFirstOrThrow();
  expect(payment).toMatchObject({ status: 'open', usd_value_minor: 2500, customer_email: 'priya@harbourcafe.example' });
  const deposit = toChecksumAddress(payment.deposit_address!.slice(2));

  // Only the providers with keys here, in the routing's order; none without them (Banxa, Wert, …).
  const cards = page.getByRole('form', { name: 'By card' }).getByRole('button');
  await expect(cards.allTextContents()).resolves.toEqual(['Pay with MoonPay Recommended', 'Pay with Ramp Network']);

  // The wallet: the amount in USDC, the address, the network named, and one code with all three.
  await expect(page.locator('#wallet-amount').textContent()).resolves.toBe('25.000000');
  await expect(page.locator('#wallet-address').textContent()).resolves.toBe(deposit);
  await expect(page.getByText('Polygon', { exact: true }).count()).resolves.toBe(1);
  await expect(page.getByText('That is $25.00.').count()).resolves.toBe(1);
  const qr = page.getByRole('img', { name: /QR code: a payment request for USDC on Polygon/ });
  expect(decodeQr(await qr.screenshot())).toBe(`ethereum:${USDC_ON_POLYGON}@137/transfer?address=${deposit}&uint256=25000000`);
  // With the script, the copy buttons appear; a copy puts the exact value on the clipboard.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.config.baseUrl });
  await page.locator('button[data-copy="wallet-address"]').click();
  await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(deposit);
  expect((await axeFindings(page)).serious).toEqual([]);

  // MoonPay: recorded as reached (pending), and the browser is sent to its signed page.
  const before = elsewhere.length;
  await page.getByRole('button', { name: 'Pay with MoonPay Recommended' }).click();
  await page.getByRole('heading', { name: 'Provider page' }).waitFor();
  const sent = elsewhere.slice(before);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.referer).toBeUndefined(); // the payment's address does not travel on
  const url = new URL(sent[0]!.url);
  expect(url.origin).toBe('https://buy.moonpay.com');
  expect(Object.fromEntries(url.searchParams)).toMatchObject({
    apiKey: MOONPAY.MOONPAY_API_KEY, currencyCode: 'usdc_polygon', walletAddress: payment.deposit_address,
    baseCurrencyCode: 'usd', baseCurrencyAmount: '25.00', email: 'priya@harbourcafe.example', externalTransactionId: id,
  });
  const unsigned = url.search.slice(0, url.search.lastIndexOf('&signature='));
  expect(url.searchParams.get('signature')).toBe(createHmac('sha256', MOONPAY.MOONPAY_SECRET_KEY).update(unsigned).digest('base64'));
  expect(url.href).not.toContain(MOONPAY.MOONPAY_SECRET_KEY);
  await expect(t.db.selectFrom('payments').select(['status', 'provider']).where('id', '=', id).executeTakeFirstOrThrow()).resolves.toEqual({ status: 'pending', provider: 'moonpay' });

  // Back on the payer page: it waits for the money, and the link can no longer be canceled.
  await page.goto(created.body.url as string);
  await page.getByRole('heading', { name: 'Waiting for MoonPay' }).waitFor();
  const cancel = await t.request('POST', `/v1/payment_links/${id}/cancel`, { key: liveKey });
  expect(cancel.status).toBe(409);
  await page.close();
});

it('a provider the deployment has no keys for cannot be chosen by a hand-made form', async () => {
  const created = await t.request('POST', '/v1/payment_links', { key: liveKey, body: { amount: '25.00', currency: 'USD', description: 'Tea' } });
  const id = created.body.id as string;
  const page = await context.newPage();
  await page.goto(created.body.url as string);
  await page.getByLabel('Email').fill('sam@example.org');
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();
  // Rewrite a button's value to a provider with no keys here, as a buyer could.
  await page.locator('button[value="ramp"]').evaluate((button) => button.setAttribute('value', 'banxa'));
  const before = elsewhere.length;
  await page.getByRole('button', { name: 'Pay with Ramp Network' }).click();
  await page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
  expect(elsewhere.length).toBe(before);
  await expect(t.db.selectFrom('payments').select(['status', 'provider']).where('id', '=', id).executeTakeFirstOrThrow()).resolves.toEqual({ status: 'open', provider: null });
  await page.close();
});
