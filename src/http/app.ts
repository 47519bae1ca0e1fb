import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { Authenticator } from '../auth/authenticate.ts';
import { Gate } from '../auth/gate.ts';
import type { AppContext } from '../core/context.ts';
import type { Operation } from '../core/operation.ts';
import { asApiError, registerErrorHandling, sendError } from './errors.ts';
import { registerJsonBody } from './json-body.ts';
import { PROCESSOR_NOTICES_PATH, registerProcessorNotices } from './processor.ts';
import { openApiDocument } from './openapi.ts';
import { API_PREFIX, methodMatcher, registerOperationRoutes, restPath } from './routes.ts';
import { registerWellKnown, WELL_KNOWN_PATHS } from './well-known.ts';
import { OAUTH_ROUTES, registerOAuthRoutes } from '../oauth/routes.ts';
import { DASHBOARD_ROUTES, registerDashboard } from '../dashboard/routes.ts';
import { MCP_PATH, registerMcp } from '../mcp/http.ts';

export const BODY_LIMIT = 64 * 1024;

// What a log line may carry: the path without its query (which can hold an email), never a
// header, and of an error its class, code and message, never a database error's detail, which
// quotes the data it choked on.
const logSerializers = {
  req: (request: FastifyRequest) => ({ method: request.method, path: request.url.split('?')[0], ip: request.ip }),
  err: (error: FastifyError) => ({ type: error.name, code: error.code, message: error.message, stack: error.stack ?? '' }),
};

/** The HTTP application, without a port: main.ts listens, tests inject or listen on port 0. */
export async function buildApp(context: AppContext, operations: readonly Operation[]): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: context.config.trustProxy,
    forceCloseConnections: 'idle',
    // Errors raised before routing (a malformed or overlong URL) get the API's error shape too.
    frameworkErrors: (error, request, reply) => sendError(request, reply, asApiError(error), context.config.baseUrl),
    logger: context.config.logLevel === 'silent' ? false : { level: context.config.logLevel, serializers: logSerializers },
  });

  // Every response, errors included: never cached, never shared with a browser origin.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Content-Type-Options', 'nosniff');
    done(null, payload);
  });

  // Error handling first: routes take the handler of their context when they are registered.
  const routes = [
    ...operations.map((operation) => ({ method: operation.http.method, path: restPath(operation) })),
    ...WELL_KNOWN_PATHS.map((path) => ({ method: 'GET', path })),
    { method: 'GET', path: `${API_PREFIX}/openapi.json` },
    { method: 'POST', path: PROCESSOR_NOTICES_PATH },
    ...OAUTH_ROUTES,
    ...DASHBOARD_ROUTES,
    ...['GET', 'POST', 'DELETE'].map((method) => ({ method, path: MCP_PATH })),
  ];
  registerErrorHandling(app, context.config.baseUrl, methodMatcher(routes));

  registerJsonBody(app);
  const agents = { tokens: context.accessTokens, audience: `${context.config.baseUrl}${API_PREFIX}` };
  const gate = new Gate(new Authenticator(context.db, context.clock, () => context.authChanges.listening, agents), context.config.rateLimits, context.clock);
  registerOperationRoutes(app, operations, context, gate);
  registerWellKnown(app, context.config.baseUrl, context.config.oauthIssuer);
  await registerOAuthRoutes(app, context);
  await registerDashboard(app, context);
  // One gate for REST and MCP: the same credential cache and the same rate-limit budgets.
  await registerMcp(app, context, operations, gate);
  const openapi = openApiDocument(operations, context.config.baseUrl);
  app.get(`${API_PREFIX}/openapi.json`, async () => openapi);
  await registerProcessorNotices(app, context);
  await app.ready();
  return app;
}
