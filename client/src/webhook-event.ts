// The event a webhook delivers (spec 2.5 to 2.8): an envelope in snake_case with Unix seconds,
// around snapshots in camelCase with timestamps in milliseconds. Written from the spec, because
// the OpenAPI document does not describe webhooks yet; test/client/webhook-types.test.ts checks
// these against the service's own snapshot builders, so the two cannot drift apart unnoticed.

export type PaymentEventType =
  | 'payment.started'
  | 'payment.paid'
  | 'payment.held'
  | 'payment.updated'
  | 'payment.failed'
  | 'payment.expired'
  | 'payment.canceled';

export type Mode = 'test' | 'live';
export type PaymentStatus = 'open' | 'pending' | 'paid' | 'held' | 'failed' | 'expired';
export type PaymentSource = 'api' | 'checkout' | 'payment_link';

export interface WebhookAddress {
  name: string | null;
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postalCode: string | null;
  country: string;
}

/** `data.payment` (spec 2.6). */
export interface WebhookPayment {
  id: string;
  mode: Mode;
  source: PaymentSource;
  checkoutId: string | null;
  planLabel: string | null;
  description: string;
  reference: string | null;
  customerEmail: string | null;
  amount: string;
  currency: string;
  status: PaymentStatus;
  provider: string | null;
  providerName: string | null;
  method: 'card' | 'crypto';
  network: string | null;
  depositAddress: string | null;
  payoutWallet: string | null;
  feeBps: number;
  valueCoin: string | null;
  merchantReceived: string | null;
  coin: string | null;
  holdReason: string | null;
  holdAcceptable: boolean;
  txidIn: string | null;
  txidOut: string | null;
  metadata: Record<string, unknown> | null;
  customerName: string | null;
  memo: string | null;
  trackingUrl: string | null;
  canceledAt: number | null;
  successUrl: string | null;
  createdAt: number;
  paidAt: number | null;
  expiresAt: number;
  url: string;
  orderId: string | null;
}

export interface WebhookOrderItem {
  name: string;
  variant: string | null;
  sku: string | null;
  quantity: number;
  unitAmount: string | null;
  amount: string;
}

/** `data.order` (spec 2.7): the payment's order with its first 50 item lines. */
export interface WebhookOrder {
  id: string;
  mode: Mode;
  number: number;
  displayNumber: string;
  source: PaymentSource;
  checkoutId: string | null;
  /** For orders a store sent (with `order.id`): the store and its own order. */
  store: {
    platform: string | null;
    id: string | null;
    name: string | null;
    url: string | null;
    orderId: string;
    orderNumber: string | null;
    orderUrl: string | null;
    customerId: string | null;
  } | null;
  /** The order's status including this event, from its payments (the paid one, else the held one, else the latest). */
  status: PaymentStatus;
  needsReview: boolean;
  fulfillment: 'none' | 'unfulfilled' | 'fulfilled';
  fulfilledAt: number | null;
  customer: { id: string; email: string | null; name: string | null; erased: boolean } | null;
  summary: string;
  lineCount: number;
  unitCount: number;
  currency: string;
  subtotal: string;
  discount: string;
  discountCode: string | null;
  shipping: string;
  shippingMethod: string | null;
  tax: string;
  total: string;
  amountPaid: string;
  received: string | null;
  shipTo: WebhookAddress | null;
  billTo: WebhookAddress | null;
  reference: string | null;
  paymentId: string | null;
  attemptCount: number;
  createdAt: number;
  updatedAt: number;
  paidAt: number | null;
  items: WebhookOrderItem[];
}

/** `data.customer` (spec 2.8). */
export interface WebhookCustomer {
  id: string;
  mode: Mode;
  email: string | null;
  name: string | null;
  phone: string | null;
  location: string | null;
  shipTo: WebhookAddress | null;
  billTo: WebhookAddress | null;
  storeAccounts: Array<{ platform: string; storeId: string; storeName: string | null; customerId: string }>;
  firstSeenAt: number;
  erased: boolean;
}

interface Envelope<Type extends string, Data> {
  /** `evt_…`, the same on every attempt and resend: deduplicate on it. */
  id: string;
  type: Type;
  /** When the event happened, Unix seconds. */
  created: number;
  livemode: boolean;
  data: Data;
}

export type PaymentEvent = Envelope<PaymentEventType, {
  payment: WebhookPayment;
  order: WebhookOrder | null;
  /** Null until the buyer has given an email. */
  customer: WebhookCustomer | null;
}>;

/** Sent only when asked for (Send test event, Send ping). */
export type PingEvent = Envelope<'ping', { payment: null; order: null; customer: null }>;

/**
 * A verified event. Narrow on `type`; an event type added later within v1 (spec 9) arrives with
 * its own type string and the same envelope: acknowledge it with a 2xx and ignore it.
 */
export type WebhookEvent = PaymentEvent | PingEvent;
