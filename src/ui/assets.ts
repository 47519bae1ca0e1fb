import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// The stylesheet as a static asset under its content hash, so it can be cached for a year and a
// new version is a new URL; pages link it and carry no inline style (no CSP 'unsafe-inline').

const STYLESHEET = readFileSync(new URL('./ui.css', import.meta.url), 'utf8');

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
