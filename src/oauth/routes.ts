import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORM_CONTENT_TYPE, formBodyParser, isFormEncoded, type Form } from '../core/form.ts';
import type { AppContext } from '../verbs/context.ts';
import { API_SCOPES } from '../auth/scopes.ts';
import { registerClient, registrationResponse } from '../agents/clients.ts';
import { hasControlCharacters } from '../core/validation.ts';
import { WindowCounter } from '../core/rate-limiter.ts';
import { MINUTE } from '../core/clock.ts';
import { APPROVE_PATH, AuthorizeFailure, startAuthorization } from '../agents/authorization.ts';
import { OAuthError } from '../agents/errors.ts';
import { revokeEndpoint, tokenEndpoint } from '../agents/tokens.ts';
import { renderPage, sendPage } from '../ui/index.ts';
import { requestRefusedPage } from './pages/request-refused.ts';
import { isJsonObject } from '../core/json-body.ts';
import { ApiError, rateLimitMessage, RETRY_AFTER_SECONDS } from '../core/errors.ts';

// The agents' authorization server over HTTP: RFC 8414 metadata, RFC 7591 registration, the
// authorization, token and revocation endpoints, and the JWKS. OAuth's own error shape here,
// and CORS for the endpoints browser-based clients (the MCP Inspector) call: none takes cookies.

export const OAUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const;


export function authorizationServerMetadata(issuer: string, baseUrl: string) {
  return {
    issuer,
    authorization_endpoint: `${baseUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${baseUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${baseUrl}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${baseUrl}${OAUTH_PATHS.revoke}`,
    jwks_uri: `${baseUrl}${OAUTH_PATHS.jwks}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...API_SCOPES],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${baseUrl}/v1/openapi.json`,
  };
}



function cors(reply: FastifyReply): void {
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Allow-Headers', 'Content-Type, Authorization, MCP-Protocol-Version');
  reply.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  reply.header('Access-Control-Max-Age', '600');
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  reply.header('Pragma', 'no-cache');
  if (error.status === 401) reply.header('WWW-Authenticate', 'Basic realm="agents"');
  return reply.code(error.status).send(error.body());
}

export async function oauthServer(scope: FastifyInstance, options: { context: AppContext }): Promise<void> {
  const { context } = options;
  const { baseUrl, oauthIssuer } = context.config;
  const metadata = authorizationServerMetadata(oauthIssuer, baseUrl);

  scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string' }, formBodyParser);
  scope.addHook('onRequest', async (_request, reply) => cors(reply));
  // The token and revocation endpoints take what the metadata advertises, form encoding, and
  // nothing else: a JSON body (whose fields need not be text) never reaches them.
  scope.addHook('onRequest', async (request) => {
    const path = request.routeOptions.url;
    if (request.method === 'POST' && (path === OAUTH_PATHS.token || path === OAUTH_PATHS.revoke) && !isFormEncoded(request.headers['content-type'])) {
      throw new OAuthError('invalid_request', 'Send the request as application/x-www-form-urlencoded.');
    }
  });
  // Unauthenticated endpoints that write rows or fetch documents: limited per client address.
  const limits = context.config.rateLimits;
  const perAddressLimit = limits.unauthenticatedPerMinute * 5;
  const registrationLimit = Math.max(1, Math.floor(limits.unauthenticatedPerMinute / 3));
  const perAddress = new WindowCounter(perAddressLimit, MINUTE, context.clock, context.metrics.refusals('oauth'));
  const registrations = new WindowCounter(registrationLimit, MINUTE, context.clock, context.metrics.refusals('oauth_registrations'));
  /** The limit this request passes, in words (counting it), or undefined. */
  const limitPassed = (request: FastifyRequest): string | undefined => {
    if (!limits.enabled) return undefined;
    if (!perAddress.take(request.ip)) return `This address passed the limit of ${perAddressLimit} requests a minute to the sign-in endpoints`;
    if (request.url.startsWith(OAUTH_PATHS.register) && !registrations.take(request.ip)) return `This address passed the limit of ${registrationLimit} client registration${registrationLimit === 1 ? '' : 's'} a minute`;
    return undefined;
  };
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const over = limitPassed(request);
    if (over) {
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      throw new OAuthError('invalid_request', rateLimitMessage(over), 429);
    }
    // Text that cannot be stored (NUL, other control characters) is refused, never a 500.
    if (hasControlCharacters(request.query) || hasControlCharacters(request.body)) {
      throw new OAuthError('invalid_request', 'Parameters must not contain control characters.');
    }
  });
  scope.setErrorHandler((error, request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    // The shared JSON parser's refusals (bad JSON, NUL, lone surrogates).
    if (error instanceof ApiError && error.status < 500) return sendOAuthError(reply, new OAuthError('invalid_request', error.message));
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendOAuthError(reply, new OAuthError('invalid_request', status === 415
        ? 'The body must be application/x-www-form-urlencoded (application/json for registration).'
        : status === 413 ? 'The body is too large.' : 'The request is malformed.', status === 413 || status === 415 ? status : 400));
    }
    request.log.error({ err: error }, 'oauth request failed');
    return reply.code(500).send({ error: 'server_error', error_description: 'Something went wrong on our side.' });
  });
  // CORS preflight for each of the server's endpoints.
  for (const path of Object.values(OAUTH_PATHS)) scope.options(path, async (_request, reply) => reply.code(204).send());

  scope.get(OAUTH_PATHS.metadata, async () => metadata);
  scope.get(OAUTH_PATHS.jwks, async () => context.signingKeys.jwks());

  scope.post(OAUTH_PATHS.register, async (request, reply) => {
    if (!isJsonObject(request.body)) throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object of client metadata.');
    const client = await registerClient(context, request.body);
    return reply.code(201).send(registrationResponse(client));
  });

  scope.post(OAUTH_PATHS.token, async (request, reply) => {
    if (!isForm(request.body)) throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
    reply.header('Pragma', 'no-cache');
    return tokenEndpoint(context, request.body);
  });

  scope.post(OAUTH_PATHS.revoke, async (request, reply) => {
    if (!isForm(request.body)) throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
    await revokeEndpoint(context, request.body);
    return reply.code(200).send();
  });

  scope.get(OAUTH_PATHS.authorize, async (request, reply) => {
    try {
      const { requestId } = await startAuthorization(context, request.query as Record<string, string | string[]>);
      return reply.redirect(`${baseUrl}${APPROVE_PATH}?request=${encodeURIComponent(requestId)}`, 302);
    } catch (error) {
      if (!(error instanceof AuthorizeFailure)) throw error;
      if (error.redirect) return reply.redirect(error.redirect.href, 302);
      reply.header('Content-Security-Policy', "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'");
      return sendPage(reply, 400, renderPage(requestRefusedPage(error.message), {}));
    }
  });
}

function isForm(body: unknown): body is Form {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}
