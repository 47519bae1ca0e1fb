import Fastify, { type FastifyInstance } from 'fastify';
import { sendPage, uiAssets, type HtmlPage } from '../../src/ui/index.ts';

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
  app.get('/pages/:index', async (request, reply) => sendPage(reply, 200, pages[Number((request.params as { index: string }).index)]!));
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin, url: (index) => `${origin}/pages/${index}` };
}
