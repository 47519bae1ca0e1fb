import type { KnownErrorCode } from './operation-types.ts';

// Every failure of a call is one error class, thrown: the API's own refusal
// (`{ error: { code, message, field } }`, spec 7) with its HTTP status, or, with codes of the
// client's own, an answer that is not the API's (`invalid_response`) or no answer at all
// (`network_error`, status 0). An abort by the caller's signal is rethrown as it is.

/** An error code of the API, or of the client when no API answer came. New API codes may appear within v1. */
export type ErrorCode = KnownErrorCode | 'network_error' | 'invalid_response' | (string & {});

export interface PaymentServiceErrorFields {
  status: number;
  code: ErrorCode;
  message: string;
  field?: string | undefined;
  requestId?: string | undefined;
  retryAfter?: number | undefined;
  cause?: unknown;
}

export class PaymentServiceError extends Error {
  override readonly name = 'PaymentServiceError';
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** Stable: branch on it (and on status), never on the message. */
  readonly code: ErrorCode;
  /** The parameter at fault, when the API names one (`amount`, `shipping_address.postal_code`). */
  readonly field: string | undefined;
  /** The answer's `X-Request-Id`, to quote when asking about a call. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again, from `Retry-After` (429 `rate_limited`). */
  readonly retryAfter: number | undefined;

  constructor(fields: PaymentServiceErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.status = fields.status;
    this.code = fields.code;
    this.field = fields.field;
    this.requestId = fields.requestId;
    this.retryAfter = fields.retryAfter;
  }
}

/** Narrows an unknown caught value, optionally to one code: `isPaymentServiceError(error, 'not_found')`. */
export function isPaymentServiceError(error: unknown, code?: ErrorCode): error is PaymentServiceError {
  return error instanceof PaymentServiceError && (code === undefined || error.code === code);
}
