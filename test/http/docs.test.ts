import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { axeFindings } from '../support/accessibility.ts';
import { appWithChromium } from '../support/browser-app.ts';

// The API reference at /docs, in Debian's Chromium as a developer meets it: no sign-in, the
// operations and webhooks shown, every request answered by the service itself (no CDN, no
// fonts from elsewhere, nothing failed), no content-security refusal, and axe-core finds no
// serious or critical violation on a desktop or a 360px phone.

const app = appWithChromium();

interface Visit {
  page: Page;
  requested: string[];
  failed: string[];
  refused: string[];
}

async function visit(width: number): Promise<Visit> {
  const page = await app.browser.newPage({ viewport: { width, height: 800 } });
  const visit: Visit = { page, requested: [], failed: [], refused: [] };
  page.on('request', (request) => visit.requested.push(request.url()));
  page.on('requestfailed', (request) => visit.failed.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on('response', (response) => { if (response.status() >= 400) visit.failed.push(`${response.url()}: ${response.status()}`); });
  page.on('console', (message) => { if (message.type() === 'error') visit.refused.push(message.text()); });
  page.on('pageerror', (error) => visit.refused.push(String(error)));
  const response = await page.goto(`${app.t.url}/docs`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  await page.getByRole('heading', { name: 'Create payment link' }).first().waitFor({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  return visit;
}

it.each([1280, 360])('at %i px: shows the operations, loads everything from the service, nothing fails, axe finds nothing serious', async (width) => {
  const { page, requested, failed, refused } = await visit(width);
  try {
    for (const name of ['Create payment link', 'List payments', 'Create checkout session', 'payment.paid']) {
      expect(await page.getByText(name, { exact: true }).count(), name).toBeGreaterThan(0);
    }
    const origin = new URL(app.t.url).origin;
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'))).toEqual([]);
    expect(requested).toContain(`${origin}/v1/openapi.json`);
    expect(failed).toEqual([]);
    expect(refused).toEqual([]);
    const { serious } = await axeFindings(page);
    expect(serious).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);
