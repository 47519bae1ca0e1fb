import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// The payer pages' script (copy buttons, the countdown, following the payment's status) under
// its content hash, cached for a year; and the buy button's script at its fixed public address,
// which merchants' pages load, so it is cached only briefly.

const PAYER_SCRIPT = readFileSync(new URL('./assets/payer.js', import.meta.url), 'utf8');
const EMBED_SCRIPT = readFileSync(new URL('./assets/embed.js', import.meta.url), 'utf8');

export const PAYER_SCRIPT_PATH = `/assets/payer.${createHash('sha256').update(PAYER_SCRIPT).digest('hex').slice(0, 16)}.js`;
export const EMBED_PATH = '/embed.js';

const CACHE: Record<string, string> = {
  [PAYER_SCRIPT_PATH]: 'public, max-age=31536000, immutable',
  // Any site may load it (spec 4.2); it changes rarely, and a new version reaches buttons within the hour.
  [EMBED_PATH]: 'public, max-age=3600',
};

/** Encapsulated on purpose: its cache headers, set last, override the app's `no-store`. */
export async function payerAssets(scope: FastifyInstance): Promise<void> {
  scope.addHook('onSend', async (request, reply, payload) => {
    // By the route, not the URL: `/embed.js?v=2` (a merchant's cache buster) is the same script.
    const cache = request.routeOptions.url === undefined ? undefined : CACHE[request.routeOptions.url];
    if (reply.statusCode === 200 && cache) reply.header('Cache-Control', cache);
    return payload;
  });
  scope.get(PAYER_SCRIPT_PATH, async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(PAYER_SCRIPT));
  scope.get(EMBED_PATH, async (_request, reply) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
    return reply.type('text/javascript; charset=utf-8').send(EMBED_SCRIPT);
  });
}
