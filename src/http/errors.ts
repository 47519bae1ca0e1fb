import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody } from '../core/errors.ts';
import { RETRY_AFTER_SECONDS } from '../auth/gate.ts';
import { bearerCredential } from '../auth/authenticate.ts';

// One mapper from errors to the spec's error shape (section 7), Fastify's own errors included.
// A 5xx never shows its internal message.

export function resourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/v1`;
}

function fromFastify(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The body is larger than 64 KiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The URL is not valid (a bad percent-encoding).');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('not_found', 'No object has this id.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json', 'The body is not valid JSON.');
    default:
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return new ApiError('invalid_request', error.message);
      }
      return new ApiError('internal_error', 'Something went wrong on our side. Try again later.');
  }
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && error.code.startsWith('FST_')) {
    return fromFastify(error as FastifyError);
  }
  return new ApiError('internal_error', 'Something went wrong on our side. Try again later.');
}

/** metadataUrl: the protected resource's metadata (the API's unless the MCP endpoint answers). */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError, baseUrl: string, metadataUrl = resourceMetadataUrl(baseUrl)): FastifyReply {
  const metadata = `resource_metadata="${metadataUrl}"`;
  // Set here too: errors raised before routing skip the app's onSend hook.
  reply.header('Cache-Control', 'no-store');
  if (error.code === 'invalid_api_key' || error.code === 'invalid_token' || error.code === 'agent_disconnected') {
    const sent = bearerCredential(request.headers.authorization) !== null;
    reply.header('WWW-Authenticate', sent ? `Bearer error="invalid_token", ${metadata}` : `Bearer ${metadata}`);
  } else if (error.code === 'insufficient_scope') {
    reply.header('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${error.scope ?? ''}", ${metadata}`);
  } else if (error.code === 'rate_limited') {
    reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
  }
  return reply.code(error.status).send(errorBody(error));
}

/** allowedMethods: the methods some route answers on a concrete path (for 405 and Allow). */
export function registerErrorHandling(app: FastifyInstance, baseUrl: string, allowedMethods: (path: string) => string[]): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = asApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, apiError, baseUrl);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(path);
    if (allowed.length > 0 && request.method !== 'OPTIONS') {
      reply.header('Allow', allowed.join(', '));
      return sendError(request, reply, new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}.`), baseUrl);
    }
    if (request.method === 'OPTIONS') {
      return sendError(request, reply, new ApiError('browser_requests_refused', 'The API is for servers: it does not answer browser (CORS) requests.'), baseUrl);
    }
    return sendError(request, reply, new ApiError('not_found', `There is no ${request.method} ${path}.`), baseUrl);
  });
}
