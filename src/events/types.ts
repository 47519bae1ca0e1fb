// Event types (spec 6.2). A new type is one line here; endpoints that receive every type get it.
export const PAYMENT_EVENT_TYPES = [
  'payment.started',
  'payment.paid',
  'payment.held',
  'payment.updated',
  'payment.failed',
  'payment.expired',
  'payment.canceled',
] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/** Sent only when the merchant asks for a test send; not something an endpoint subscribes to. */
export const PING = 'ping';

export function isPaymentEventType(value: string): value is PaymentEventType {
  return (PAYMENT_EVENT_TYPES as readonly string[]).includes(value);
}
