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
  invalid_events: 400,
  invalid_metadata: 400,
  invalid_order: 400,
  invalid_customer: 400,
  invalid_outcome: 400,
  invalid_checkout: 400,
  invalid_fulfillment: 400,
  invalid_event_type: 400,
  invalid_api_key: 401,
  invalid_token: 401,
  invalid_signature: 401,
  agent_disconnected: 401,
  insufficient_scope: 403,
  suspended: 403,
  integration_disabled: 403,
  merchant_read_only: 403,
  browser_requests_refused: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  no_payout_wallet: 409,
  commerce_paused: 409,
  not_cancelable: 409,
  invalid_state: 409,
  checkout_inactive: 409,
  test_mode_only: 400,
  duplicate_url: 409,
  too_many: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  /** For insufficient_scope: the scope that was needed (sent in WWW-Authenticate). */
  readonly scope: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string, details?: { scope?: string }) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = field;
    this.scope = details?.scope;
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('not_found', `No ${what} with id '${id}' exists in this mode.`);
}

export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

export function errorBody(error: ApiError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
    },
  };
}

/** An operator action refused for a reason the operator can act on (CLI and dashboard actions). */
export class RefusedError extends Error {}
