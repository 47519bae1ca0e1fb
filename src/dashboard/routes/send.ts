import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { randomBase62 } from '../../core/ids.ts';
import { renderPage, sendPage as sendHtml } from '../../ui/index.ts';

const nonces = new WeakMap<FastifyRequest, string>();

/** This response's CSP nonce, for the dashboard's script (made on first ask). */
export function nonceOf(request: FastifyRequest): string {
  let nonce = nonces.get(request);
  if (nonce === undefined) {
    nonce = randomBase62(22);
    nonces.set(request, nonce);
  }
  return nonce;
}

/**
 * Renders a page for its viewer (forms take the session's CSRF token from here) and sends it.
 * Times are shown in the person's time zone (UTC until they choose one), the exact UTC time on hover.
 */
export function sendPage(reply: FastifyReply, status: number, page: VNode, session?: DashboardSession): FastifyReply {
  return sendHtml(reply, status, renderPage(page, { ...(session ? { csrfToken: session.csrfToken } : {}), nonce: nonceOf(reply.request), timeZone: session?.timeZone ?? 'UTC' }));
}
