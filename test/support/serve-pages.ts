import Fastify, { type FastifyInstance } from 'fastify';
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
}

export async function servePages(pages: readonly HtmlPage[]): Promise<ServedPages> {
  const app = Fastify();
  await app.register(uiAssets);
  // A branded page's logo and colour, as the app serves a business's (the states' fixture brand).
  app.get('/assets/logos/:business/:hash', async (_request, reply) => reply.type('image/png').send(FIXTURE_LOGO));
  app.get('/assets/brand/:file', async (_request, reply) => reply.type('text/css').send(brandStylesheet(FIXTURE_BRAND_COLOR)));
  app.get('/pages/:index', async (request, reply) => sendPage(reply, 200, pages[Number((request.params as { index: string }).index)]!));
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin, url: (index) => `${origin}/pages/${index}` };
}
