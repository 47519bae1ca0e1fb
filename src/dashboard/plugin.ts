import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { sessionCookieName } from '../auth/sessions.ts';
import { ApiError } from '../core/errors.ts';
import { FORM_CONTENT_TYPE, formBodyParser, isFormEncoded } from '../core/form.ts';
import { hasControlCharacters } from '../core/validation.ts';
import type { AppContext } from '../verbs/context.ts';
import type { Operation } from '../verbs/operation.ts';
import { DashboardOperations } from './perform.ts';
import { messagePage } from './pages/message.ts';
import { inPersonsWords } from './refusals.ts';
import { DASHBOARD } from './paths.ts';
import { DashboardRequests, Redirect, StaleForm } from './requests.ts';
import { registerApproval } from './routes/approve.ts';
import { registerAgents } from './routes/agents.ts';
import { registerKeys } from './routes/keys.ts';
import { registerTeam } from './routes/team.ts';
import { registerPayments } from './routes/payments.ts';
import { registerOrders } from './routes/orders.ts';
import { registerPaymentLinks } from './routes/payment-links.ts';
import { registerWebhooks } from './routes/webhooks.ts';
import { registerCustomers } from './routes/customers.ts';
import { registerCheckouts } from './routes/checkouts.ts';
import { isMultipartBody, LOGO_ROUTE, registerSettings } from './routes/settings.ts';
import { registerHome } from './routes/home.ts';
import { nonceOf, sendPage } from './routes/send.ts';
import { dashboardAssets } from './assets.ts';
import { registerBusinessHome } from './routes/business-home.ts';
import { SIGN_IN_LINK_PATH } from './routes/sign-in.ts';
import { registerSignIn } from './routes/sign-in.ts';

// The dashboard, server-rendered: sign-in, the approval of agents' sign-in requests, and each
// business's areas. Every form carries the session's CSRF token and cross-site posts are
// refused; pages may not be framed; the one script (copy buttons) is our own asset. Errors of the verbs (the API's
// error codes) become a page saying what went wrong, with their status.

// Only our own stylesheet and our one script (by this response's nonce); no frames, no other
// origin. (No form-action: approving an agent redirects the browser to the agent's own address.)
const dashboardCsp = (nonce: string) => `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'`;

const TITLES: Partial<Record<number, string>> = { 400: 'Cannot continue', 403: 'Not allowed', 404: 'Not found', 409: 'Cannot do that now', 429: 'Too many requests' };

export async function dashboard(scope: FastifyInstance, options: { context: AppContext; operations: readonly Operation[] }): Promise<void> {
  const { context } = options;
  const operations = new DashboardOperations(options.operations);
  const cookieName = sessionCookieName(context.config.baseUrl);
  const origin = new URL(context.config.baseUrl).origin;
  const requests = new DashboardRequests(context, cookieName);

  await scope.register(cookie);
  await scope.register(dashboardAssets);
  scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string' }, formBodyParser);
  // Dashboard forms are form-encoded (the logo's alone multipart); anything else is refused before it is read.
  scope.addHook('onRequest', async (request) => {
    if (request.method === 'POST' && !isFormEncoded(request.headers['content-type']) && !(request.routeOptions.url === LOGO_ROUTE && isMultipartBody(request.headers['content-type']))) {
      throw new ApiError('unsupported_media_type', 'Dashboard forms are sent form-encoded (application/x-www-form-urlencoded).');
    }
  });
  scope.addHook('onSend', async (request, reply, payload) => {
    reply.header('Content-Security-Policy', dashboardCsp(nonceOf(request)));
    reply.header('X-Frame-Options', 'DENY');
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on our own forms.
    reply.header('Referrer-Policy', 'same-origin');
    return payload;
  });
  // Text that cannot be stored (NUL, other control characters) is a bad request, never a 500.
  scope.addHook('preHandler', async (request) => {
    if (hasControlCharacters(request.params) || hasControlCharacters(request.query) || hasControlCharacters(request.body)) {
      throw new ApiError('invalid_request', 'The request has characters that are not text.');
    }
  });
  // A form posted from another site is refused before anything else (CSRF tokens check every
  // form too; an opaque `null` origin is left to them).
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    const from = request.headers.origin;
    if (from !== undefined && from !== 'null' && from !== origin) return sendPage(reply, 403, messagePage('Refused', 'This form was sent from another site.'));
  });
  // Every form carries the session's CSRF token, checked here for every POST whatever its handler
  // does; the one form before a session (a sign-in link's button) carries a nonce of its own.
  scope.addHook('preHandler', async (request) => {
    if (request.method === 'POST' && request.routeOptions.url !== SIGN_IN_LINK_PATH) await requests.posted(request);
  });
  scope.setErrorHandler(async (error, request, reply) => {
    if (error instanceof Redirect) return reply.redirect(error.location, 303);
    const session = await requests.session(request).catch(() => undefined);
    if (error instanceof StaleForm) return sendPage(reply, 403, messagePage('Refused', `${error.message} Start again.`));
    if (error instanceof ApiError && error.status < 500) return sendPage(reply, error.status, messagePage(TITLES[error.status] ?? 'Cannot continue', inPersonsWords(error), session), session);
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendPage(reply, status, messagePage('Bad request', 'The request could not be read.', session), session);
    request.log.error({ err: error }, 'dashboard request failed');
    return sendPage(reply, 500, messagePage('Something went wrong', 'Please try again.'));
  });

  await registerSignIn(scope, context, requests, cookieName);
  registerHome(scope, context, requests);
  registerBusinessHome(scope, requests);
  registerApproval(scope, context, requests);
  registerKeys(scope, requests);
  registerAgents(scope, requests);
  registerTeam(scope, requests);
  registerPayments(scope, requests, operations);
  registerOrders(scope, requests, operations);
  registerPaymentLinks(scope, requests, operations);
  registerWebhooks(scope, requests, operations);
  registerCustomers(scope, requests, operations);
  registerCheckouts(scope, requests, operations);
  registerSettings(scope, requests);
  // Any other address under /dashboard (mistyped, or a page that moved) is the dashboard's "not
  // found" page, in its frame when signed in, with the way back; not the API's JSON.
  scope.get(`${DASHBOARD}/*`, async () => {
    throw new ApiError('not_found', 'There is no page at this address. Check it for a typing mistake, or start again from the dashboard.');
  });
}
