import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seriousViolations } from '../support/accessibility.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { servePages, type ServedPages } from '../support/serve-pages.ts';
import { samplePage } from './sample-page.ts';

// The components as a person meets them: a page of every one (errors and notices showing), in
// the light and the dark theme, on a desktop and a 360px phone, checked by axe-core.

let browser: Browser;
let server: ServedPages;
beforeAll(async () => {
  const executablePath = ensureChromium();
  server = await servePages([samplePage('Corner Shop', { csrfToken: 'token', timeZone: 'Europe/Berlin' })]);
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await server?.app.close();
});

it.each([
  { colorScheme: 'light', width: 1280 },
  { colorScheme: 'dark', width: 1280 },
  { colorScheme: 'light', width: 360 },
  { colorScheme: 'dark', width: 360 },
] as const)('no serious or critical violations: $colorScheme, $width px', async ({ colorScheme, width }) => {
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  await page.emulateMedia({ colorScheme });
  await page.goto(server.url(0));
  expect(await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')).toBe(colorScheme === 'dark' ? 'rgb(20, 23, 28)' : 'rgb(255, 255, 255)');
  expect(await seriousViolations(page)).toEqual([]);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
  await page.close();
});

it('shows where the keyboard is', async () => {
  const page = await browser.newPage();
  await page.goto(server.url(0));
  await page.keyboard.press('Tab');
  expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to main content');
  expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
  expect(await page.evaluate<boolean>('document.activeElement.getBoundingClientRect().left >= 0')).toBe(true);
  await page.close();
});
