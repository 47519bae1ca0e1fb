import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { html, Layout, renderPage, sendPage } from '../ui/index.ts';
import { API_PREFIX } from '../verbs/operation.ts';
import { HEALTH_PATHS } from './health.ts';

// The service's front door: GET / says what this is and where to go (the dashboard, the API
// reference, health) to a browser, and gives the same addresses to a program as JSON; an address
// nobody answers is a page too for a browser, outside the API, whose callers keep its JSON errors.

const DASHBOARD_PATH = '/dashboard';
const REFERENCE_PATH = '/docs';

// Our stylesheet and icon only; no script, no frames, no forms.
const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A browser asks for HTML; a program (curl's `*\/*`, a JSON client) gets JSON. */
export function wantsPage(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/** A request under the API's prefix: its callers read the spec's JSON errors, whatever they accept. */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

export function landingPage(): VNode {
  return Layout({ title: 'Welcome', children: html`<div class="landing">
    <h1>Payment Service</h1>
    <p>Payment links, checkouts and webhooks for merchants, in Test and Live mode: over a REST API for your servers, through MCP for agents you approve, and in a dashboard for people.</p>
    <ul class="landing-links">
      <li><a class="button primary" href=${DASHBOARD_PATH}>Open the dashboard</a></li>
      <li><a href=${REFERENCE_PATH}>API reference</a> <span class="muted">(the OpenAPI document: <a href=${`${API_PREFIX}/openapi.json`}>${API_PREFIX}/openapi.json</a>)</span></li>
      <li><a href=${HEALTH_PATHS.live}>Health</a></li>
    </ul>
  </div>` });
}

/** An address nobody answers, for a browser outside the dashboard and the payer pages (each has its own). */
export function notFoundPage(): VNode {
  return Layout({ title: 'Page not found', children: html`<div class="landing">
    <h1>Page not found</h1>
    <p>There is no page at this address. Check it for a typing mistake, or start again from one of these.</p>
    <ul class="landing-links">
      <li><a href=${DASHBOARD_PATH}>Open the dashboard</a></li>
      <li><a href="/">The service's start page</a></li>
    </ul>
  </div>` });
}

/** Sends one of the pages above with their CSP. */
export function sendFrontPage(reply: FastifyReply, status: number, page: VNode): FastifyReply {
  reply.header('Content-Security-Policy', PAGE_CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin');
  return sendPage(reply, status, renderPage(page, {}));
}

/** GET /: the start page, or its addresses as JSON. */
export async function landing(app: FastifyInstance, options: { baseUrl: string }): Promise<void> {
  const { baseUrl } = options;
  app.get('/', async (request, reply) => {
    if (wantsPage(request)) return sendFrontPage(reply, 200, landingPage());
    return {
      name: 'Payment Service',
      dashboard: `${baseUrl}${DASHBOARD_PATH}`,
      api: `${baseUrl}${API_PREFIX}`,
      reference: `${baseUrl}${REFERENCE_PATH}`,
      openapi: `${baseUrl}${API_PREFIX}/openapi.json`,
      health: `${baseUrl}${HEALTH_PATHS.live}`,
    };
  });
}
