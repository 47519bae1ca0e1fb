import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ownerSignedIn } from '../support/browser-app.ts';
import { unixSeconds } from '../../src/core/clock.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { signaturesOf, startReceiver, verifiesWith, type Receiver } from '../support/receiver.ts';
import { openArea } from '../support/dashboard-nav.ts';

// The webhooks area in real headless Chromium, as a developer uses it: add an endpoint with a
// wrong address and see its delivery fail, fix the address, retry the delivery and see it
// delivered; roll the secret keeping the previous one and see a test event carry a signature
// with each. The receiver is a real server on loopback (Test endpoints may use this machine).

let t: TestApp;
let browser: Browser;
let receiver: Receiver;
beforeAll(async () => {
  const executablePath = ensureChromium();
  t = await startTestApp({ RATE_LIMITS: 'off', WEBHOOK_TIMEOUT_MS: '1000' }, { realOrigin: true, workers: true });
  receiver = await startReceiver();
  receiver.respond((request, response) => {
    response.writeHead(request.path === '/wrong' ? 404 : 200, { 'content-type': 'text/plain' }).end(request.path === '/wrong' ? 'no such hook' : 'ok');
  });
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

const at = (path: string) => receiver.received.filter((request) => request.path === path);
const verifies = (request: { headers: Record<string, unknown>; body: string }, secret: string) =>
  verifiesWith(request.headers['service-signature'] as string, secret, request.body, unixSeconds(t.clock.now()));

it('a developer adds an endpoint, sees a delivery fail, fixes the address, retries it and sees it delivered; then rolls the secret keeping the old one', async () => {
  const { page, key } = await ownerSignedIn({ t, browser }, 'Harbour Roasters');

  await page.getByRole('link', { name: 'Harbour Roasters in Test mode' }).click();
  await openArea(page, 'Developers', 'Webhooks');
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Webhooks');
  await page.getByRole('link', { name: 'Add an endpoint' }).click();
  await page.getByLabel('Address').fill(`${receiver.url}/wrong`);
  await page.getByLabel('Description (optional)').fill('Shop orders');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.waitForURL(/\/webhooks\/we_\w+$/);
  const endpointUrl = page.url();
  const firstSecret = await page.locator('.notice code').innerText();
  expect(firstSecret).toMatch(/^whsec_\w{32}$/);

  // A payment starts; its event goes to the wrong address and fails.
  const session = (await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '40.00', currency: 'USD', customer_email: 'ada@buyer.example' } })).body;
  await t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key });
  await vi.waitFor(async () => {
    await page.reload();
    expect(await page.getByRole('table', { name: 'Delivery log' }).innerText()).toContain('the endpoint answered 404');
  }, { timeout: 10_000, interval: 200 });
  // The reload showed the secret no more.
  expect(await page.locator('main').innerText()).not.toContain(firstSecret);

  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Address').fill(`${receiver.url}/right`);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/saved=1$/);
  expect(await page.getByRole('status').innerText()).toContain('Saved.');

  await page.getByRole('link', { name: 'payment.started' }).click();
  expect(await page.locator('main').innerText()).toContain('Retrying');
  await page.getByRole('button', { name: 'Retry now' }).click();
  await page.waitForURL(/sent=1$/);
  expect(await page.getByRole('status').innerText()).toContain('Sent: the endpoint answered 200.');
  expect(await page.locator('.facts').innerText()).toContain('Delivered');
  expect(at('/right')).toHaveLength(1);
  expect(verifies(at('/right')[0]!, firstSecret)).toBe(true);
  expect(await page.getByRole('table', { name: 'Attempts' }).innerText()).toMatch(/automatic 1 of 7[\s\S]*retry now/);

  await page.getByRole('link', { name: 'Back to the endpoint' }).click();
  await page.getByRole('link', { name: 'Roll the secret' }).click();
  await page.getByLabel(/Keeps signing for 24 hours/).check();
  await page.getByRole('button', { name: 'Roll the secret' }).click();
  await page.waitForURL(endpointUrl);
  expect(await page.getByRole('status').innerText()).toContain('The previous secret also signs every request until');
  const newSecret = await page.locator('.notice code').last().innerText();
  expect(newSecret).toMatch(/^whsec_\w{32}$/);
  expect(newSecret).not.toBe(firstSecret);

  await page.getByLabel('Event to send').selectOption('ping');
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.waitForURL(/sent=1$/);
  expect(await page.getByRole('status').innerText()).toContain('Sent: the endpoint answered 200.');
  const ping = at('/right').at(-1)!;
  expect(JSON.parse(ping.body)).toMatchObject({ type: 'ping' });
  expect(signaturesOf(ping.headers['service-signature'] as string)).toHaveLength(2);
  expect(verifies(ping, firstSecret)).toBe(true);
  expect(verifies(ping, newSecret)).toBe(true);
  await page.close();
}, 60_000);
