import { ERROR_STATUS } from '../core/errors.ts';

// The error shape and the error answers shared by the operations (spec 7), for the OpenAPI
// document. What each operation can answer is decided in openapi.ts.

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429;

/**
 * The codes this version answers today, named so generators give them a type of their own. v1
 * may add codes (spec 9), so an error's `code` is one of these or any other string.
 */
export const errorCodeSchema = {
  type: 'string',
  description: 'The error codes this version answers today (spec 7). New codes may be added within v1: treat an unknown code by its HTTP status.',
  enum: Object.keys(ERROR_STATUS).sort(),
};

export const errorSchema = {
  type: 'object',
  description: 'Every error answer: branch on the HTTP status and `code`, never on `message`.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      description: 'What went wrong.',
      required: ['code', 'message'],
      properties: {
        code: {
          description: 'A stable code, such as `invalid_amount` or `not_found`: one of ErrorCode, or a code added later within v1.',
          anyOf: [{ $ref: '#/components/schemas/ErrorCode' }, { type: 'string' }],
          examples: ['invalid_amount'],
        },
        message: { type: 'string', description: 'A sentence for people; it may change, so never branch on it.' },
        field: { type: 'string', description: 'The parameter at fault, when there is one, such as `expires_in_days` or `shipping_address.postal_code`.' },
        approval_url: {
          type: 'string', format: 'uri',
          description: 'With `approval_required`: the dashboard page where a person who manages agents approves or declines this exact call. ' +
            'Once approved, repeat the call with the `Approval-Id` header set to the id at the end of this address.',
        },
      },
    },
  },
};

const wwwAuthenticate = {
  'WWW-Authenticate': {
    description: 'Scheme `Bearer` with `resource_metadata`, the address of the protected-resource metadata (where agents find how to sign in); ' +
      'with `error="invalid_token"` when a credential was sent and refused.',
    schema: { type: 'string' },
  },
};

interface SharedResponse {
  /** Its name in components.responses. */
  name: string;
  description: string;
  headers?: Record<string, unknown>;
}

/** The 403 codes of every operation, and those of an operation whose agent call can wait for a person (agents/policy.ts). */
const FORBIDDEN_CODES = [
  '`insufficient_scope` (the credential lacks the scope the message names)', '`suspended` (the account is suspended)',
  '`merchant_read_only` (suspended or archived account, for changes)', '`integration_disabled`',
];
const APPROVAL_CODES = [
  '`approval_required` (a connected agent\'s call beyond its policy: nothing was done; a person approves it at `approval_url`, ' +
  'then the agent repeats the call with the `Approval-Id` header)',
  '`approval_invalid` (the `Approval-Id` sent was declined, used, expired, or approved for other arguments)',
];
const oneOf = (codes: readonly string[]) => `${codes.slice(0, -1).join(', ')} or ${codes.at(-1)}.`;

const scopeChallenge = {
  'WWW-Authenticate': {
    description: 'For `insufficient_scope`: scheme `Bearer` with `error="insufficient_scope"` and the `scope` needed.',
    schema: { type: 'string' },
  },
};

/** The shared error answers (409 is written per operation, naming its codes). */
export const ERROR_RESPONSES: Readonly<Record<Exclude<ErrorStatus, 409>, SharedResponse>> = {
  400: {
    name: 'BadRequest',
    description: 'The request is not valid: `code` says how (`invalid_json`, `invalid_amount`, `invalid_limit`, `invalid_cursor`, `invalid_filter`, …) ' +
      'and `field` names the parameter at fault.',
  },
  401: {
    name: 'Unauthorized',
    description: 'No valid credential: `invalid_api_key` (missing, malformed or revoked secret key), `invalid_token` (an agent token expired, ' +
      'malformed or not issued for this service: get a new one) or `agent_disconnected` (ask for reconnection).',
    headers: wwwAuthenticate,
  },
  403: {
    name: 'Forbidden',
    description: oneOf(FORBIDDEN_CODES),
    headers: scopeChallenge,
  },
  404: {
    name: 'NotFound',
    description: '`not_found`: no such object in this account and mode (another account\'s object, or one of the other mode, is not found either).',
  },
  413: { name: 'PayloadTooLarge', description: '`payload_too_large`: the body is over 64 KiB.' },
  415: {
    name: 'UnsupportedMediaType',
    description: '`unsupported_media_type`: the body is not sent as `application/json`, or is compressed.',
  },
  429: {
    name: 'TooManyRequests',
    description: '`rate_limited`: over a rate limit (about 120 requests a minute per account, 12 session starts a minute in each mode). Retry after the time given.',
    headers: { 'Retry-After': { description: 'Seconds to wait: 60.', schema: { type: 'integer' } } },
  },
};

/** The 403 of an operation a connected agent's call of can wait for a person's approval: its two codes besides. */
export const FORBIDDEN_OR_APPROVAL: SharedResponse = {
  name: 'ForbiddenOrApproval',
  description: oneOf([...FORBIDDEN_CODES, ...APPROVAL_CODES]),
  headers: scopeChallenge,
};
