import type { components } from './schema.ts';

// The event a webhook delivers (spec 2.5 to 2.8): an envelope in snake_case with Unix seconds,
// around snapshots in camelCase with timestamps in milliseconds. Named from the OpenAPI
// document's webhooks section (generated into schema.ts); test/client/types.test.ts checks them
// against the service's own snapshot builders, so the two cannot drift apart unnoticed.

type Schemas = components['schemas'];

/** A payment event (spec 6.2), with `data.payment`, `data.order` and `data.customer`. */
export type PaymentEvent = Schemas['PaymentEvent'];
/** Sent only when asked for (Send test event, Send ping): every object null. */
export type PingEvent = Schemas['PingEvent'];
export type PaymentEventType = PaymentEvent['type'];

/** `data.payment` (spec 2.6). */
export type WebhookPayment = Schemas['PaymentSnapshot'];
/** `data.order` (spec 2.7): the payment's order with its first 50 item lines. */
export type WebhookOrder = Schemas['OrderSnapshot'];
export type WebhookOrderItem = WebhookOrder['items'][number];
/** `data.customer` (spec 2.8). */
export type WebhookCustomer = Schemas['CustomerSnapshot'];
export type WebhookAddress = Schemas['AddressSnapshot'];

export type Mode = WebhookPayment['mode'];
export type PaymentStatus = WebhookPayment['status'];
export type PaymentSource = WebhookPayment['source'];

/**
 * A verified event. Narrow on `type`; an event type added later within v1 (spec 9) arrives with
 * its own type string and the same envelope: acknowledge it with a 2xx and ignore it.
 */
export type WebhookEvent = PaymentEvent | PingEvent;
