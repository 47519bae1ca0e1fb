import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// The dashboard's script (copy buttons) under its content hash, cached for a year; pages load it
// with the response's CSP nonce, and work without it.

const DASHBOARD_SCRIPT = readFileSync(new URL('./assets/dashboard.js', import.meta.url), 'utf8');

export const DASHBOARD_SCRIPT_PATH = `/assets/dashboard.${createHash('sha256').update(DASHBOARD_SCRIPT).digest('hex').slice(0, 16)}.js`;

/** Encapsulated on purpose: its cache header, set last, overrides the app's `no-store`. */
export async function dashboardAssets(scope: FastifyInstance): Promise<void> {
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 200) reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    return payload;
  });
  scope.get(DASHBOARD_SCRIPT_PATH, async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(DASHBOARD_SCRIPT));
}
