import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { renderPage, sendPage as sendHtml } from '../../ui/index.ts';

/**
 * Renders a page for its viewer (forms take the session's CSRF token from here) and sends it.
 * Times are shown in UTC until people choose their time zone.
 */
export function sendPage(reply: FastifyReply, status: number, page: VNode, session?: DashboardSession): FastifyReply {
  return sendHtml(reply, status, renderPage(page, { ...(session ? { csrfToken: session.csrfToken } : {}), timeZone: 'UTC' }));
}
