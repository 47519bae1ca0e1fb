import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MINUTE } from '../core/clock.ts';
import { ApiError, RETRY_AFTER_SECONDS, rateLimited } from '../core/errors.ts';
import { FORM_CONTENT_TYPE, formBodyParser } from '../core/form.ts';
import { randomBase62 } from '../core/ids.ts';
import { WindowCounter } from '../core/rate-limiter.ts';
import { hasControlCharacters } from '../core/validation.ts';
import { PageCache, renderPage, sendPage } from '../ui/index.ts';
import type { AppContext } from '../verbs/context.ts';
import { payerAssets } from './assets.ts';
import { messagesFor } from './messages/index.ts';
import { PayerForms, StalePayerForm, type PayerPages, type PayerRequest } from './requests.ts';
import { registerCheckoutRoutes } from './routes/checkout.ts';
import { registerPayRoutes } from './routes/pay.ts';
import { registerTrackRoutes } from './routes/track.ts';
import { registerX402Routes } from './routes/x402.ts';
import { PayerStartRefused, PayerStarts } from './starts.ts';
import { payerMessagePage } from './views/message.ts';

// The buyers' pages (spec 2.1 url and tracking_url, 2.2 checkout url, 4.2 embed.js): public
// addresses that strangers open, so every value on them is escaped (src/ui), each response has
// a strict CSP with a fresh nonce for our one script, nothing is framed or cached by shared
// caches, forms carry a token bound to the page and the browser, and each client address has
// its own limits on loads, posts and payment starts (pages/starts.ts).

const requests = new WeakMap<FastifyRequest, PayerRequest>();
/** Pages kept rendered (the characters of their keys and HTML): a few thousand payments' and checkouts' states. */
const KEPT_CHARACTERS = 8_000_000;

export async function payerPages(scope: FastifyInstance, options: { context: AppContext }): Promise<void> {
  const { context } = options;
  const limits = context.config.rateLimits;
  const loads = new WindowCounter(limits.payerPagesPerMinute, MINUTE, context.clock, context.metrics.refusals('payer_pages'));
  const posts = new WindowCounter(limits.payerFormsPerMinute, MINUTE, context.clock, context.metrics.refusals('payer_forms'));
  const tooMany = (method: string) => rateLimited(method === 'POST'
    ? `This address passed the payer pages' limit of ${limits.payerFormsPerMinute} posted forms a minute`
    : `This address passed the payer pages' limit of ${limits.payerPagesPerMinute} requests a minute`);

  const kept = new PageCache(KEPT_CHARACTERS);
  const starts = new PayerStarts(limits, context.clock, context.metrics);
  const forms = new PayerForms(context.secrets, context.config.baseUrl.startsWith('https://'));
  const pages: PayerPages = {
    context,
    forms,
    admitStart(request, payment) {
      starts.admit({ address: request.ip, browser: forms.browserOf(request) }, payment);
    },
    of(request) {
      let known = requests.get(request);
      if (!known) {
        known = { t: messagesFor(request.headers['accept-language']), nonce: randomBase62(22) };
        requests.set(request, known);
      }
      return known;
    },
    send(request, reply, status, page, token) {
      const { t, nonce } = pages.of(request);
      reply.header('Content-Language', t.lang);
      return sendPage(reply, status, renderPage(page, { nonce, timeZone: 'UTC', ...(token ? { csrfToken: token } : {}) }));
    },
    sendKept(request, reply, key, make, token) {
      const { t, nonce } = pages.of(request);
      reply.header('Content-Language', t.lang);
      return sendPage(reply, 200, kept.render(`${t.lang}\u0000${key}`, make, { nonce, timeZone: 'UTC', ...(token ? { csrfToken: token } : {}) }));
    },
  };

  await scope.register(cookie);
  await scope.register(payerAssets);
  scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string' }, formBodyParser);
  scope.addHook('onRequest', async (request) => {
    if (!limits.enabled) return;
    // Loads of pages and assets; posted forms (starts, choices, Test outcomes), counted before
    // anything reads them, so forged posts are limited like any other.
    const counter = request.method === 'POST' ? posts : loads;
    if (!counter.take(request.ip)) throw tooMany(request.method);
  });
  // Text that cannot be stored (NUL, other control characters) is a bad request, never a 500.
  scope.addHook('preHandler', async (request) => {
    if (hasControlCharacters(request.params) || hasControlCharacters(request.query) || hasControlCharacters(request.body)) {
      throw new ApiError('invalid_request', 'The request has characters that are not text.');
    }
  });
  scope.addHook('onSend', async (request, reply, payload) => {
    const { nonce } = pages.of(request);
    // Our stylesheet and our one script (by this response's nonce); fetches only to ourselves.
    reply.header('Content-Security-Policy', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`);
    reply.header('X-Frame-Options', 'DENY');
    // A payment's address never travels on to a card provider or the merchant's site.
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Vary', 'Accept-Language');
    // Said here, not left to the app's default: a page holds a payment's details and a form token
    // bound to this browser. (Our scripts set their own caching, after this hook.)
    if (String(reply.getHeader('Content-Type') ?? '').startsWith('text/html')) reply.header('Cache-Control', 'no-store');
    return payload;
  });
  scope.setErrorHandler(async (error, request, reply) => {
    const { t } = pages.of(request);
    if (error instanceof StalePayerForm) return pages.send(request, reply, 403, payerMessagePage({ t, title: t.staleTitle, text: t.staleText }));
    if (error instanceof ApiError && error.code === 'rate_limited') {
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      return pages.send(request, reply, 429, payerMessagePage({ t, title: t.tooManyTitle, text: t.tooManyText }));
    }
    // A start refused: this visitor started several already, or the shop's pages are busy.
    if (error instanceof PayerStartRefused) {
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      const page = error.by === 'visitor' ? { title: t.tooManyTitle, text: t.visitorStartsText } : { title: t.busyTitle, text: t.busyText };
      return pages.send(request, reply, 429, payerMessagePage({ t, ...page }));
    }
    // Live and nothing could receive the money (no network watched, a provider without keys): no form leads anywhere.
    if (error instanceof ApiError && (error.code === 'payments_unavailable' || error.code === 'provider_unavailable')) {
      return pages.send(request, reply, 409, payerMessagePage({ t, title: t.unavailableTitle, text: t.unavailableText }));
    }
    if (error instanceof ApiError && error.code === 'not_found') return pages.send(request, reply, 404, payerMessagePage({ t, title: t.notFoundTitle, text: t.notFoundText }));
    if (error instanceof ApiError && error.status < 500) return pages.send(request, reply, error.status, payerMessagePage({ t, title: t.problemTitle, text: t.fieldError(error) }));
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return pages.send(request, reply, status, payerMessagePage({ t, title: t.problemTitle, text: t.problemText }));
    request.log.error({ err: error }, 'payer page failed');
    return pages.send(request, reply, 500, payerMessagePage({ t, title: t.problemTitle, text: t.problemText }));
  });

  registerPayRoutes(scope, pages);
  registerTrackRoutes(scope, pages);
  registerCheckoutRoutes(scope, pages);
  await scope.register(registerX402Routes, { pages });
  // Any other address under the payer prefixes (an id too long for the router, a step that does
  // not exist) is the buyer's "not found" page, with these headers, not the API's JSON.
  for (const prefix of ['/pay/*', '/track/*', '/c/*']) {
    scope.route({ method: ['GET', 'POST'], url: prefix, handler: async () => { throw new ApiError('not_found', 'There is no page at this address.'); } });
  }
}
