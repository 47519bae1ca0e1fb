import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKED_URL } from '../../src/ui/safe-url.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { activeParts, HOSTILE, hostileName, UNSAFE_URLS, watchedPage } from '../support/hostile.ts';
import { servePages, type ServedPages } from '../support/serve-pages.ts';
import { samplePage } from './sample-page.ts';

// Every component, every slot filled with an attack, loaded into Chromium: the parsed DOM has no
// script, no handler, no javascript: or data: URL and no element the data made, and each value
// is shown as the text it was, where it was put.

let browser: Browser;
let server: ServedPages;
beforeAll(async () => {
  const executablePath = ensureChromium();
  server = await servePages(HOSTILE.map((value) => samplePage(value, { csrfToken: value, timeZone: value })));
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await server?.app.close();
});

const text = (page: Page, selector: string) => page.locator(selector).first().textContent();
const attribute = (page: Page, selector: string, name: string) => page.locator(selector).first().getAttribute(name);

describe.each(HOSTILE.map((value, index) => ({ value, index, name: hostileName(value) })))('$name', ({ value, index }) => {
  let page: Page;
  let dialogs: string[];
  beforeAll(async () => {
    ({ page, dialogs } = await watchedPage(browser));
    const response = await page.goto(server.url(index));
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
  });
  afterAll(() => page?.close());

  it('runs nothing and makes no element from the data', async () => {
    expect(dialogs).toEqual([]);
    expect(await activeParts(page)).toEqual([]);
  });

  it('shows the value as text where it was put', async () => {
    expect(await text(page, 'title')).toBe(`${value} · Payment Service`);
    for (const selector of ['#banner', '#nav-link', '#heading', '#notice', 'caption', 'th:nth-child(2)', '#cell', '#cell-link', 'td.empty', 'label[for=field-description]', '#field-description-hint',
      'legend', '#field-mode-hint', 'label[for=field-mode-0]', 'label[for=field-business]', '#field-business-hint', 'option:first-child', 'button.primary']) {
      expect(await text(page, selector), selector).toBe(value);
    }
    for (const selector of ['#field-description-error', '#field-mode-error', '#field-business-error']) expect(await text(page, selector), selector).toBe(`Error: ${value}`);
    expect(await text(page, '.money')).toBe(`${value} ${value}`);
    expect(await attribute(page, '.table-scroll[aria-label]', 'aria-label')).toBe(value);
    expect(await attribute(page, 'form', 'aria-label')).toBe(value);
    expect(await attribute(page, 'svg.qr-code', 'aria-label')).toBe(value);
    expect(await page.locator('input[name=description]').inputValue()).toBe(value);
    expect(await attribute(page, 'input[name=csrf]', 'value')).toBe(value);
    expect(await attribute(page, '#field-mode-0', 'value')).toBe(value);
    expect(await attribute(page, 'option:first-child', 'value')).toBe(value);
    expect(await attribute(page, 'button.primary', 'value')).toBe(value);
  });

  it('keeps safe URLs as given and replaces the others', async () => {
    const expected = UNSAFE_URLS.has(value) ? BLOCKED_URL : value;
    expect(await attribute(page, '#nav-link', 'href')).toBe(expected);
    expect(await attribute(page, '#cell-link', 'href')).toBe(expected);
    expect(await attribute(page, 'form', 'action')).toBe(expected);
  });

  it('shows times in UTC when the time zone is not a zone, with the exact UTC time on hover', async () => {
    expect(await text(page, 'time')).toBe('1 Mar 2026, 12:34 UTC');
    expect(await attribute(page, 'time', 'title')).toBe('2026-03-01 12:34:56 UTC');
  });

  it('does not scroll sideways at 360px', async () => {
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  });
});
