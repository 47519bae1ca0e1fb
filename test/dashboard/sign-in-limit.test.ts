import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Issue 14, finding 7: using sign-in links had no limit (80 wrong tokens in a row, no 429). Posts
// to the sign-in link address are limited per client address, as the OAuth endpoints are.

const PER_MINUTE = 5;
let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: String(PER_MINUTE), TRUST_PROXY: 'true' }); });
afterAll(async () => t?.close());

it('wrong sign-in tokens from one address meet a 429 with Retry-After; another address is not affected', async () => {
  const guess = async (address: string) => {
    const browser = new Browser(t);
    const from = { 'x-forwarded-for': address };
    const page = await browser.request('GET', '/dashboard/sign-in/link?token=guess', undefined, from);
    return browser.request('POST', '/dashboard/sign-in/link', { ...Browser.form(page.html, '/dashboard/sign-in/link'), token: `wrong-${Math.random()}` }, from);
  };
  for (let attempt = 0; attempt < PER_MINUTE; attempt += 1) expect((await guess('203.0.113.7')).status).toBe(400);
  const limited = await guess('203.0.113.7');
  expect(limited.status).toBe(429);
  expect(limited.html).toContain('Too many sign-in attempts');
  expect((await guess('203.0.113.8')).status).toBe(400);
  await t.tick(61_000);
  expect((await guess('203.0.113.7')).status).toBe(400);
});
