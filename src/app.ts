import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Authenticator, bearerCredential } from './auth/authenticate.ts';
import { Gate } from './auth/gate.ts';
import { ApiError, asApiError, errorResponse, replyWith } from './core/errors.ts';
import { jsonBodyParser } from './core/json-body.ts';
import { audienceOf } from './core/wording.ts';
import { dashboard } from './dashboard/plugin.ts';
import { processorNotices } from './http/processor.ts';
import { restApi } from './http/rest-api.ts';
import { resourceMetadataUrl } from './http/well-known.ts';
import { healthRoutes, type Readiness } from './http/health.ts';
import { isApiPath, landing, notFoundPage, sendFrontPage, wantsPage } from './http/landing.ts';
import { readinessOf } from './health.ts';
import { mcpServer } from './mcp/http.ts';
import { oauthServer } from './oauth/routes.ts';
import { payerPages } from './pages/plugin.ts';
import { uiAssets } from './ui/assets.ts';
import { brandAssets } from './pages/brand-assets.ts';
import type { AppContext } from './verbs/context.ts';
import { API_PREFIX, type Operation } from './verbs/operation.ts';

// The composition root: one Fastify application made of named plugins, each a transport over the
// same verbs. main.ts owns the process and listens; tests build the app and listen on port 0.

export const BODY_LIMIT = 64 * 1024;

/** A route parameter that is a credential (a payment's tracking token): never written to a log. */
const SECRET_PARAM = ':token';

/** The path without its query (which can hold an email or a sign-in token), and without credentials in it. */
function loggedPath(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  const pattern = request.routeOptions.url;
  if (pattern === undefined || !pattern.includes(SECRET_PARAM)) return path;
  const names = pattern.split('/');
  return path.split('/').map((segment, index) => (names[index] === SECRET_PARAM ? '[redacted]' : segment)).join('/');
}

// What a log line may carry: the path as above, never a header, and of an error its class, code
// and message, never a database error's detail, which quotes the data it choked on.
const logSerializers = {
  req: (request: FastifyRequest) => ({ method: request.method, path: loggedPath(request), ip: request.ip }),
  err: (error: FastifyError) => ({ type: error.name, code: error.code, message: error.message, stack: error.stack ?? '' }),
};

/** A caller's X-Request-Id is kept when it is short visible ASCII; anything else gets an id of our own. */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const REQUEST_ID_HEADER = 'x-request-id';

function requestId(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The methods some route answers on a concrete path, from the routes as registered (for 405 and Allow). */
function routeTable(app: FastifyInstance): (path: string) => string[] {
  const routes: Array<{ method: string; pattern: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    // A trailing `*` (a wildcard route) matches the rest of the path, as the router matches it.
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+').replace(/\\\*$/, '.*')}/?$`);
    // (HEAD is answered wherever GET is; Allow names the methods routes were written for.)
    for (const method of [route.method].flat()) if (method !== 'OPTIONS' && method !== 'HEAD') routes.push({ method, pattern });
  });
  return (path) => [...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method))];
}

/**
 * The API's error for a request Node could not read as HTTP, with a request id of its own (the
 * request's headers cannot be trusted); a connection already gone is just closed.
 */
function answerMalformedHttp(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const id = randomUUID();
  this.log.debug({ requestId: id, code: error.code }, 'malformed HTTP refused');
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify({ error: { code: 'invalid_request', message: tooLarge ? 'The request headers are too large.' : 'The request is not well-formed HTTP.' } });
  socket.end([
    tooLarge ? 'HTTP/1.1 431 Request Header Fields Too Large' : 'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    `X-Request-Id: ${id}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n'));
}

export interface AppOptions {
  /** What /readyz checks (default: the database and its migrations, as for --role api). */
  readiness?: Readiness;
  /** Where log lines go (default: standard output). */
  logStream?: NodeJS.WritableStream;
  /** Told of each route as it is registered (tests that probe every route of a kind: every form post). */
  onRoute?: (route: { method: string; url: string }) => void;
}

export async function buildApp(context: AppContext, operations: readonly Operation[], options: AppOptions = {}): Promise<FastifyInstance> {
  const { baseUrl } = context.config;
  /** The API's error shape: every transport answering JSON, and whatever no plugin answers. */
  const sendError = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => replyWith(reply, errorResponse(error, {
    credentialSent: bearerCredential(request.headers.authorization) !== null,
    metadataUrl: resourceMetadataUrl(baseUrl),
    audience: audienceOf(request.headers.prefer),
  }));

  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: context.config.trustProxy,
    forceCloseConnections: 'idle',
    // Errors raised before routing (a malformed or overlong URL) get the API's error shape too.
    // (Fastify's hooks do not run for these: the request id is set here.)
    frameworkErrors: (error, request, reply) => void sendError(request, reply.header('X-Request-Id', request.id), asApiError(error)),
    // HTTP that Node's parser refuses (a NUL in a header, Content-Length with chunked, a bad chunk
    // size, an unknown method, headers over the limit) never reaches a route: answered here, in
    // the API's error shape, and the connection closed.
    clientErrorHandler: answerMalformedHttp,
    logger: context.config.logLevel === 'silent' ? false : { level: context.config.logLevel, serializers: logSerializers, ...(options.logStream ? { stream: options.logStream } : {}) },
    // Every request has an id (the caller's X-Request-Id when acceptable): on each of its log
    // lines and in its answer's X-Request-Id.
    genReqId: requestId,
    // Fastify's two lines a request are replaced by one per answered request at the default level (below).
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
  });
  const allowedMethods = routeTable(app);
  addsOwnPort(app, context);
  if (options.onRoute) {
    const tell = options.onRoute;
    app.addHook('onRoute', (route) => { for (const method of [route.method].flat()) tell({ method, url: route.url }); });
  }

  // A compressed body is not decoded here: refused as such, not read as bad JSON.
  app.addHook('onRequest', (request, _reply, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      done(new ApiError('unsupported_media_type', 'Compressed bodies (Content-Encoding) are not accepted: send the body uncompressed.'));
      return;
    }
    done();
  });
  // Every response, errors included: never cached, never sniffed, and carrying its request id.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('X-Request-Id', request.id);
    done(null, payload);
  });
  // Requests by route pattern (never the raw path: ids would multiply the series) and status.
  const { metrics } = context;
  app.addHook('onResponse', (request, reply, done) => {
    metrics.requestAnswered(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // The log: at debug, each request as it comes in; at info, one line per answer (method, path
  // without query or credentials, address, status, milliseconds), so a terminal reads one line a request.
  app.addHook('onRequest', (request, _reply, done) => {
    request.log.debug({ req: request }, 'incoming request');
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    request.log.info({ method: request.method, path: loggedPath(request), ip: request.ip, status: reply.statusCode, ms }, 'request completed');
    done();
  });
  app.setErrorHandler((error, request, reply) => {
    const apiError = asApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(path);
    if (allowed.length > 0 && request.method !== 'OPTIONS') {
      reply.header('Allow', allowed.join(', '));
      return sendError(request, reply, new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}.`));
    }
    if (request.method === 'OPTIONS') {
      return sendError(request, reply, new ApiError('browser_requests_refused', 'The API is for servers: it does not answer browser (CORS) requests.'));
    }
    // A person's browser outside the API gets a page with a way on; programs, the API's JSON.
    if (wantsPage(request) && !isApiPath(path)) return sendFrontPage(reply, 404, notFoundPage());
    return sendError(request, reply, new ApiError('not_found', `There is no ${request.method} ${path}.`));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, jsonBodyParser);

  // One gate for REST and MCP: the same credential cache and the same rate-limit budgets.
  const agents = { tokens: context.accessTokens, audience: `${baseUrl}${API_PREFIX}` };
  const gate = new Gate(new Authenticator(context.db, context.clock, () => context.authChanges.listening, agents), context.config.rateLimits, context.clock, metrics);
  // A closing server answers its waits (wait_for_payment) now, instead of holding its close for their bound.
  app.addHook('preClose', (done) => {
    context.paymentWaits.close();
    done();
  });

  await app.register(restApi, { context, operations, gate });
  await app.register(mcpServer, { context, operations, gate });
  await app.register(oauthServer, { context });
  await app.register(dashboard, { context, operations });
  await app.register(payerPages, { context });
  await app.register(processorNotices, { context });
  await app.register(uiAssets);
  await app.register(brandAssets, { context });
  await app.register(landing, { baseUrl });
  // /metrics here only behind METRICS_TOKEN; METRICS_PORT serves it on a listener of its own.
  const token = context.config.metrics.token;
  await app.register(healthRoutes, { readiness: options.readiness ?? readinessOf(context.db), metrics, metricsAccess: token ? { token } : 'none' });
  await app.ready();
  return app;
}

/** The port a listener bound (PORT=0 picks one): no webhook may target it (net/own-ports.ts). */
function addsOwnPort(app: FastifyInstance, context: AppContext): void {
  app.addHook('onListen', (done) => {
    const address = app.server.address();
    if (address !== null && typeof address === 'object') context.ownPorts.add(address.port);
    done();
  });
}

/**
 * The listener on METRICS_PORT: /metrics (open to whoever reaches it, unless METRICS_TOKEN is
 * set), /healthz and /readyz; the only HTTP a --role worker process serves.
 */
export async function buildMetricsApp(context: AppContext, readiness: Readiness): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, forceCloseConnections: 'idle' });
  addsOwnPort(app, context);
  const token = context.config.metrics.token;
  await app.register(healthRoutes, { readiness, metrics: context.metrics, metricsAccess: token ? { token } : 'open' });
  await app.ready();
  return app;
}
