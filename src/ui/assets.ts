import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// The stylesheet as a static asset under its content hash, so it can be cached for a year and a
// new version is a new URL; pages link it and carry no inline style (no CSP 'unsafe-inline').

// One stylesheet made of the parts in css/: base.css first (the theme's variables and the plain
// elements), then the others by name (one per part of the product: payer pages, the dashboard's
// frame, …), so a part's rules can rely on the base and never on another part.
const PARTS = new URL('./css/', import.meta.url);
const STYLESHEET = ['base.css', ...readdirSync(PARTS).filter((name) => name.endsWith('.css') && name !== 'base.css').sort()]
  .map((name) => `/* ${name} */\n${readFileSync(new URL(name, PARTS), 'utf8')}`)
  .join('\n');

/** Where pages link the stylesheet: `/assets/ui.<hash>.css`. */
export const STYLESHEET_PATH = `/assets/ui.${createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 16)}.css`;

/** Serves the stylesheet. Encapsulated on purpose: its long cache overrides the app's `no-store`. */
export async function uiAssets(scope: FastifyInstance): Promise<void> {
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 200) reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    return payload;
  });
  scope.get(STYLESHEET_PATH, async (_request, reply) => reply.type('text/css; charset=utf-8').send(STYLESHEET));
}
