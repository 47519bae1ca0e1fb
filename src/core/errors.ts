import { TOOL_WORDING_PREFERENCE, type Audience, type Wording } from './wording.ts';

// Every error the API returns, with its HTTP status, in one table (spec section 7).
// Verbs throw ApiError; each transport maps it to its own shape.
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_limit: 400,
  invalid_cursor: 400,
  invalid_filter: 400,
  invalid_idempotency_key: 400,
  invalid_amount: 400,
  invalid_currency: 400,
  missing_description: 400,
  missing_name: 400,
  too_long: 400,
  invalid_customer_name: 400,
  invalid_customer_phone: 400,
  invalid_reference: 400,
  invalid_memo: 400,
  invalid_email: 400,
  invalid_address: 400,
  invalid_expiry: 400,
  invalid_url: 400,
  invalid_collect: 400,
  invalid_kind: 400,
  invalid_description: 400,
  invalid_button_label: 400,
  invalid_theme: 400,
  invalid_value: 400,
  invalid_routing: 400,
  invalid_plans: 400,
  invalid_options: 400,
  invalid_plan: 400,
  invalid_events: 400,
  invalid_metadata: 400,
  invalid_order: 400,
  invalid_customer: 400,
  invalid_outcome: 400,
  invalid_checkout: 400,
  invalid_fulfillment: 400,
  invalid_event_type: 400,
  invalid_access: 400,
  invalid_role: 400,
  invalid_mode: 400,
  invalid_payout_wallet: 400,
  invalid_fee: 400,
  invalid_status: 400,
  invalid_integration: 400,
  invalid_brand_color: 400,
  invalid_logo: 400,
  sign_in_failed: 400,
  invalid_api_key: 401,
  invalid_token: 401,
  invalid_signature: 401,
  agent_disconnected: 401,
  insufficient_scope: 403,
  insufficient_role: 403,
  suspended: 403,
  integration_disabled: 403,
  merchant_read_only: 403,
  browser_requests_refused: 403,
  approval_required: 403,
  approval_invalid: 403,
  payment_required: 402,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  no_payout_wallet: 409,
  commerce_paused: 409,
  not_cancelable: 409,
  invalid_state: 409,
  hold_not_acceptable: 409,
  last_owner: 409,
  checkout_inactive: 409,
  exchange_rate_unavailable: 409,
  payments_unavailable: 409,
  coin_unavailable: 409,
  provider_unavailable: 409,
  test_mode_only: 400,
  duplicate_url: 409,
  too_many: 409,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Codes whose every message names a part of an HTTP request that a tool call does not have (the
 * messages are written in the input schemas, where REST is the only wording), with what a tool
 * caller reads instead.
 */
const TOOL_MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_idempotency_key: 'idempotency_key must be 1 to 120 printable ASCII characters, not blank.',
};

/**
 * A reason the service cannot start that the person starting it can act on (a setting, a
 * folder's permissions, a port): printed as its message alone, without a stack, exit 1.
 */
export class StartupError extends Error {}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  /** For insufficient_scope: the scope that was needed (sent in WWW-Authenticate). */
  readonly scope: string | undefined;
  /** For approval_required: the dashboard page where a person approves the call (in the body). */
  readonly approvalUrl: string | undefined;
  /** The message in each audience's terms (`message` is the REST one). */
  readonly wording: Wording;

  /** message: one sentence for everyone, or a Wording when the next step differs for tool callers. */
  constructor(code: ErrorCode, message: string | Wording, field?: string, details?: { scope?: string; approvalUrl?: string }) {
    const wording = typeof message === 'string' ? { rest: message, tool: TOOL_MESSAGES[code] ?? message } : message;
    super(wording.rest);
    this.wording = wording;
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = field;
    this.scope = details?.scope;
    this.approvalUrl = details?.approvalUrl;
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('not_found', `No ${what} with id '${id}' exists in this mode.`);
}

export interface ErrorBody {
  error: { code: string; message: string; field?: string; approval_url?: string };
}

/** The error's body, its message in the words of whoever reads it (REST unless said). */
export function errorBody(error: ApiError, audience: Audience = 'rest'): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.wording[audience],
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.approvalUrl === undefined ? {} : { approval_url: error.approvalUrl }),
    },
  };
}

/** Over a rate limit, clients wait this long (spec 8: `Retry-After: 60`). */
export const RETRY_AFTER_SECONDS = 60;

/**
 * A 429 for one limit, in plain words: who passed which limit (`This account passed its limit
 * of 120 requests a minute`), then when to retry, as the Retry-After header says.
 */
export function rateLimited(limitPassed: string): ApiError {
  return new ApiError('rate_limited', rateLimitMessage(limitPassed));
}

/** The sentence of a 429, for transports with an error shape of their own (OAuth's). */
export function rateLimitMessage(limitPassed: string): string {
  return `${limitPassed}. Retry after ${RETRY_AFTER_SECONDS} seconds.`;
}

// Errors the HTTP framework raises itself, by its codes (Fastify's FST_ERR_*), as API errors.
function fromFramework(code: string, statusCode: number | undefined, message: string): ApiError {
  switch (code) {
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
      if (statusCode !== undefined && statusCode >= 400 && statusCode < 500) return new ApiError('invalid_request', message);
      return new ApiError('internal_error', 'Something went wrong on our side. Try again later.');
  }
}

/** Any thrown value as an API error; anything unknown is a 500 that shows nothing of itself. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && error.code.startsWith('FST_')) {
    const { statusCode, message } = error as { statusCode?: number; message?: string };
    return fromFramework(error.code, statusCode, message ?? '');
  }
  return new ApiError('internal_error', 'Something went wrong on our side. Try again later.');
}

/** An API error as an HTTP answer, the same for every transport that answers JSON (spec 5.7, 7, 8). */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/**
 * credentialSent: whether the request carried a credential (a refused one adds error="invalid_token");
 * metadataUrl: the protected resource's metadata, named in every WWW-Authenticate;
 * audience: whose words the message is in (a request that prefers the tools' wording is told so).
 */
export function errorResponse(error: ApiError, options: { credentialSent: boolean; metadataUrl: string; audience?: Audience }): ErrorResponse {
  const metadata = `resource_metadata="${options.metadataUrl}"`;
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (error.code === 'invalid_api_key' || error.code === 'invalid_token' || error.code === 'agent_disconnected') {
    headers['www-authenticate'] = options.credentialSent ? `Bearer error="invalid_token", ${metadata}` : `Bearer ${metadata}`;
  } else if (error.code === 'insufficient_scope') {
    headers['www-authenticate'] = `Bearer error="insufficient_scope", scope="${error.scope ?? ''}", ${metadata}`;
  } else if (error.code === 'rate_limited') {
    headers['retry-after'] = String(RETRY_AFTER_SECONDS);
  }
  if (options.audience === 'tool') headers['preference-applied'] = TOOL_WORDING_PREFERENCE;
  return { status: error.status, headers, body: errorBody(error, options.audience) };
}

/** The part of an HTTP reply an error is written to (Fastify's reply is one). */
export interface ErrorReply {
  code(status: number): ErrorReply;
  header(name: string, value: string): ErrorReply;
  send(body: unknown): unknown;
}

/** Writes an error response to a reply. */
export function replyWith(reply: ErrorReply, response: ErrorResponse): unknown {
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  return reply.code(response.status).send(response.body);
}

