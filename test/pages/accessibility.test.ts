import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPage } from '../../src/ui/index.ts';
import { axeFindings, preloadAxe, VIEWS } from '../support/accessibility.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { servePages, type ServedPages } from '../support/serve-pages.ts';
import { PAGE_STATES, realistic } from './states.ts';

// Every page in every state (states.ts) with ordinary data, as a person meets it: axe-core finds
// no serious or critical violation in the light and the dark theme, on a desktop and a 360px
// phone; the phone never scrolls sideways; the keyboard reaches every control in order and shows
// where it is; and nothing is requested from another origin. Each view is one tab, each page
// written into it in turn (servePages' write), so axe-core stays loaded and compiled.


let browser: Browser;
let server: ServedPages;
/** One browser page per view, reused from state to state (axe-core preloaded), and what each requested. */
const tabs = new Map<string, { page: Page; requested: string[] }>();
beforeAll(async () => {
  const executablePath = ensureChromium();
  server = await servePages(PAGE_STATES.map((state) => {
    const { page, viewer } = state.render(realistic);
    return renderPage(page, viewer);
  }));
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  for (const view of VIEWS) {
    const page = await browser.newPage({ viewport: { width: view.width, height: 800 } });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    await preloadAxe(page);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await server.visit(page, 0);
    expect(requested.filter((url) => url.startsWith(`${server.origin}/`)).length).toBeGreaterThanOrEqual(2); // the page and its stylesheet: the listener hears
    tabs.set(`${view.colorScheme} ${view.width}`, { page, requested });
  }
  const keyboard = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await server.visit(keyboard, 0);
  tabs.set('keyboard', { page: keyboard, requested: [] });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await server?.app.close();
});

/**
 * Marks the places Tab should stop, in document order: every link, disclosure (a folded section's or a menu's summary) and enabled control (a radio
 * group is one stop, its checked choice) and whatever else asks to be, such as a scrolling
 * table; returns how many there are.
 */
const MARK_TAB_STOPS = `(() => {
  const focusable = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
    .filter((el) => el.getClientRects().length > 0) // not rendered (hidden until a script shows it): no stop
    .filter((el) => el.checkVisibility()) // inside a closed <details>: no stop until it is opened
    .filter((el) => (el.matches('[tabindex]:not(a, button, input, select, textarea)') ? el.tabIndex >= 0 : !el.disabled && el.type !== 'hidden'));
  const stops = focusable.filter((el) => el.type !== 'radio' || el.checked
    || (!document.querySelector('input[type=radio][name="' + CSS.escape(el.name) + '"]:checked') && document.querySelector('input[type=radio][name="' + CSS.escape(el.name) + '"]') === el));
  stops.forEach((el, index) => { el.dataset.tabStop = String(index); });
  return stops.length;
})()`;

/** Where the focus is, and whether a person can see it: an outline of 2px or more, on screen. */
const FOCUS = `(() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    stop: el.dataset.tabStop ?? el.tagName.toLowerCase(),
    visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 && box.left >= 0 && box.right <= innerWidth && box.width > 0,
  };
})()`;

// A state's five checks run at once, each in a tab of its own: most of a check is waiting on the
// browser, and the file is the longest of the suite.
describe.each(PAGE_STATES.map((state, index) => ({ name: state.name, index })))('$name', ({ index }) => {
  it.concurrent.each(VIEWS)('$colorScheme, $width px: no serious or critical violation, no sideways scroll, nothing from another origin', async ({ colorScheme, width }) => {
    const { page, requested } = tabs.get(`${colorScheme} ${width}`)!;
    requested.length = 0;
    await server.write(page, index);
    const { serious, undecided } = await axeFindings(page);
    expect(serious).toEqual([]);
    expect(undecided).toEqual([]); // e.g. text whose contrast axe cannot work out: nothing is left unchecked
    // A table shown as cards on a phone is still a table to a screen reader.
    expect(await page.getByRole('columnheader').count()).toBe(await page.locator('th').count());
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
    expect(requested.filter((url) => !url.startsWith(`${server.origin}/`))).toEqual([]);
  });

  it.concurrent('Tab reaches every link, control and button in order, and shows where it is', async () => {
    const { page } = tabs.get('keyboard')!;
    await server.write(page, index);
    const stops = await page.evaluate<number>(MARK_TAB_STOPS);
    const reached: { stop: string; visible: boolean }[] = [];
    for (let tab = 0; tab < stops; tab += 1) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate<{ stop: string; visible: boolean }>(FOCUS));
    }
    expect(reached).toEqual(Array.from({ length: stops }, (_, stop) => ({ stop: String(stop), visible: true })));
  });
});
