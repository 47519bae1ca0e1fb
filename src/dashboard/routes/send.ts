import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { renderPage, sendPage as sendHtml } from '../../ui/index.ts';

/**
 * Renders a page for its viewer (forms take the session's CSRF token from here) and sends it.
 * Times are shown in the person's time zone (UTC until they choose one), the exact UTC time on hover.
 */
export function sendPage(reply: FastifyReply, status: number, page: VNode, session?: DashboardSession): FastifyReply {
  return sendHtml(reply, status, renderPage(page, { ...(session ? { csrfToken: session.csrfToken } : {}), timeZone: session?.timeZone ?? 'UTC' }));
}
