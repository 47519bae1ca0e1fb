import type { OperationOutput } from './operation-types.ts';

// The API's objects under their own names, read off the operation that returns each one, so a
// change of schema names in the document changes nothing here.

export type PaymentLink = OperationOutput<'retrieve_payment_link'>;
export type Checkout = OperationOutput<'retrieve_checkout'>;
export type Customer = OperationOutput<'retrieve_customer'>;
export type WebhookEndpoint = OperationOutput<'retrieve_webhook_endpoint'>;
/** As created: the only time the endpoint's signing `secret` is shown. */
export type CreatedWebhookEndpoint = OperationOutput<'create_webhook_endpoint'>;
export type CheckoutSession = OperationOutput<'retrieve_checkout_session'>;
export type Payment = OperationOutput<'retrieve_payment'>;
export type Order = OperationOutput<'retrieve_order'>;
