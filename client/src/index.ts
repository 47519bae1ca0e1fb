// @payment-service/client: the typed client of the Payment Service API (docs/accept-payments.md, "Typed client").

export { PaymentService } from './payment-service.ts';
export { ApiClient, type ApiResponse, type PaymentServiceOptions } from './api-client.ts';
export { PaymentServiceError, isPaymentServiceError, type ErrorCode, type PaymentServiceErrorFields } from './errors.ts';
export type { CallOptions, ErrorBody, KnownErrorCode, ListItem, ListOperationId, OperationId, OperationInput, OperationOutput } from './operation-types.ts';
export type { Checkout, CheckoutSession, CreatedWebhookEndpoint, Customer, Order, Payment, PaymentLink, WebhookEndpoint } from './objects.ts';
export { OPERATIONS } from './operations.ts';
export {
  DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, signWebhook, verifyWebhook, WebhookVerificationError,
  type RawBody, type SignatureHeader, type VerifyWebhookOptions, type WebhookVerificationReason,
} from './webhooks.ts';
export type * from './webhook-event.ts';
export type { components, operations, paths, webhooks } from './schema.ts';
