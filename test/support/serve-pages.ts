import Fastify, { type FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { sendPage, uiAssets, type HtmlPage } from '../../src/ui/index.ts';
import { brandStylesheet } from '../../src/pages/brand-assets.ts';
import { FIXTURE_BRAND_COLOR, FIXTURE_LOGO } from './brand-fixture.ts';

// Rendered pages served on loopback by number, with the stylesheet, as the app would serve them
// (without its CSP, so a browser test sees what the markup alone would do).

export interface ServedPages {
  app: FastifyInstance;
  /** The server's origin: every request a page makes should start with it. */
  origin: string;
  url: (index: number) => string;
  /** Navigates `tab` to page `index`, as a person's browser would; fails unless it answers 200. */
  visit: (tab: Page, index: number) => Promise<void>;
  /**
   * Writes page `index`, the bytes the server sends for it, into the document `tab` already holds
   * (a page of this server): parsed by the same HTML parser, its stylesheet, script and images
   * loaded, its scripts run, without a new document's start-up. A navigation costs Chromium about
   * 100 ms of CPU and throws away the compiled axe-core (600 KB) each time; the page tests check
   * thousands of documents.
   */
  write: (tab: Page, index: number) => Promise<void>;
}

export async function servePages(pages: readonly HtmlPage[]): Promise<ServedPages> {
  const app = Fastify();
  await app.register(uiAssets);
  // A branded page's logo and colour, as the app serves a business's (the states' fixture brand).
  app.get('/assets/logos/:business/:hash', async (_request, reply) => reply.type('image/png').send(FIXTURE_LOGO));
  app.get('/assets/brand/:file', async (_request, reply) => reply.type('text/css').send(brandStylesheet(FIXTURE_BRAND_COLOR)));
  app.get('/pages/:index', async (request, reply) => sendPage(reply, 200, pages[Number((request.params as { index: string }).index)]!));
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const url = (index: number) => `${origin}/pages/${index}`;
  const sent = new Map<number, Promise<string>>();
  const bytes = (index: number): Promise<string> => {
    if (!sent.has(index)) sent.set(index, fetch(url(index)).then((response) => response.text()));
    return sent.get(index)!;
  };
  return {
    app,
    origin,
    url,
    visit: async (tab, index) => {
      const response = await tab.goto(url(index));
      if (response?.status() !== 200) throw new Error(`${url(index)} answered ${response?.status()}`);
    },
    write: async (tab, index) => {
      if (!tab.url().startsWith(`${origin}/`)) throw new Error('write into a tab that holds a page of this server (visit one first)');
      await tab.setContent(await bytes(index));
    },
  };
}
