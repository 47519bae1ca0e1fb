import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPage } from '../../src/ui/index.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { activeParts, hostileName, PAGE_ATTACKS, watchedPage } from '../support/hostile.ts';
import { servePages, type ServedPages } from '../support/serve-pages.ts';
import { filledWith, NOT_PAGES, PAGE_STATES } from './states.ts';

// Every page in every state (states.ts), each field someone outside controls filled with one
// attack (PAGE_ATTACKS: the markup attacks together in one value, each URL attack alone), loaded in Chromium: nothing runs, nothing is made from the data, and the page is the
// same document as with a plain value in those fields, the attack shown as text where the plain
// value was. Each state's page is navigated to with the plain value, then each attack's page is
// written into that document (servePages' write: the same bytes and parser, a third of the time).

const SRC = path.join(import.meta.dirname, '../../src');
const PAGE_FOLDERS = ['dashboard/pages', 'oauth/pages', 'pages/views'];

it('has a state for every exported page function of the page folders', () => {
  const exported = PAGE_FOLDERS.flatMap((folder) => readdirSync(path.join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => [...readFileSync(path.join(SRC, folder, file), 'utf8').matchAll(/export function (\w+Page)\b/g)].map((match) => match[1]!)));
  const covered = new Set(PAGE_STATES.map((state) => state.fn.name));
  expect(exported.length).toBeGreaterThanOrEqual(9);
  expect(exported.filter((name) => !covered.has(name) && !(name in NOT_PAGES))).toEqual([]);
  expect(Object.keys(NOT_PAGES).filter((name) => !exported.includes(name))).toEqual([]);
  expect(new Set(PAGE_STATES.map((state) => state.name)).size).toBe(PAGE_STATES.length);
});

/** A plain value that no page shows by itself, standing where each attack will. */
const PLAIN = 'Plain0value';
const VALUES = [PLAIN, ...PAGE_ATTACKS];

/**
 * The document as a list of elements: tag, attributes and own text, with `value` (as written or
 * as a URL component) shown as §. Equal for two values when neither made or changed an element.
 */
function outline(page: Page, value: string): Promise<string[]> {
  return page.evaluate<string[]>(`((value) => {
    const encoded = encodeURIComponent(value);
    const mark = (text) => text.split(value).join('§').split(encoded).join('§');
    return [...document.querySelectorAll('*')].map((el) => {
      const attributes = [...el.attributes].map((a) => a.name + '=' + JSON.stringify(mark(a.value)));
      const text = [...el.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => mark(node.data)).join('');
      return '<' + el.tagName.toLowerCase() + (attributes.length ? ' ' + attributes.join(' ') : '') + '>' + text;
    });
  })(${JSON.stringify(value)})`);
}

/** The states with something outside typed in them. */
const FILLED = PAGE_STATES.filter((state) => !state.fixed);

let browser: Browser;
let server: ServedPages;
let page: Page;
let dialogs: string[];
const requested: string[] = [];
beforeAll(async () => {
  const executablePath = ensureChromium();
  server = await servePages(FILLED.flatMap((state) => VALUES.map((value) => {
    const { page: vnode, viewer } = state.render(filledWith(value));
    return renderPage(vnode, viewer);
  })));
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  ({ page, dialogs } = await watchedPage(browser));
  page.on('request', (request) => requested.push(request.url()));
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await server?.app.close();
});

/** Each state's page with the plain value navigated to; the same page with each attack written into it (servePages). */
async function load(stateIndex: number, valueIndex: number): Promise<void> {
  dialogs.length = 0;
  requested.length = 0;
  const index = stateIndex * VALUES.length + valueIndex;
  await (valueIndex === 0 ? server.visit(page, index) : server.write(page, index));
}

describe.each(FILLED.map((state, index) => ({ name: state.name, index })))('$name', ({ index }) => {
  let plain: string[];
  beforeAll(async () => {
    await load(index, 0);
    plain = await outline(page, PLAIN);
  });

  it('puts the plain value in the page', () => {
    expect(plain.some((element) => element.includes('§'))).toBe(true);
  });

  it.each(PAGE_ATTACKS.map((value, offset) => ({ value, valueIndex: offset + 1, name: hostileName(value) })))('with $name in every field: inert, and shown as text', async ({ value, valueIndex }) => {
    await load(index, valueIndex);
    expect(await activeParts(page)).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(`${server.origin}/`))).toEqual([]);
    expect(await outline(page, value)).toEqual(plain);
  });
});
