import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { formatAmount, parseAmount } from '../../core/money.ts';
import { createdRange, listParams, pageOf } from '../../core/pagination.ts';
import { characters, coded } from '../../core/validation.ts';
import type { CustomerRow, OrderRow, OrderTimelineRow, PaymentRow } from '../../db/schema.ts';
import { PAYMENT_STATUSES } from '../shared/payment-status.ts';
import { addressOut } from '../shared/addresses.ts';
import { idInput } from '../shared/ids.ts';
import { CustomerOut } from '../customers/schemas.ts';
import { deriveOrder, displayNumber, summaryOf, unitCount } from './derive.ts';

export const FULFILLMENTS = ['none', 'unfulfilled', 'fulfilled'] as const;
export const TIMELINE_TYPES = ['canceled', 'refunded'] as const;

export const OrderIdInput = idInput('ord');

export const ListOrdersInput = z.object({
  ...listParams,
  customer_id: z.string(coded('invalid_filter', 'customer_id must be a string.')).optional().describe('Only orders of this customer (cus_…).'),
  store_order_id: z.string(coded('invalid_filter', 'store_order_id must be a string.')).optional()
    .describe("Find an order by the store's own order id (order.id sent at session creation)."),
  status: z.enum(PAYMENT_STATUSES, coded('invalid_filter', `status must be one of ${PAYMENT_STATUSES.join(', ')}.`)).optional(),
  ...createdRange,
});
export type ListOrdersInput = z.output<typeof ListOrdersInput>;

const fulfillmentError = coded('invalid_fulfillment', 'fulfillment must be none, unfulfilled or fulfilled.');
export const UpdateOrderInput = OrderIdInput.extend({
  fulfillment: z.enum(FULFILLMENTS, fulfillmentError).optional(),
  fulfilled_at: z.number(coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .int(coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .min(0, coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .max(253_402_300_799, coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .nullable()
    .optional()
    .describe('When it was fulfilled (Unix seconds); default now when fulfillment becomes fulfilled.'),
});
export type UpdateOrderInput = z.output<typeof UpdateOrderInput>;

export const ReportOrderEventInput = OrderIdInput.extend({
  type: z.enum(TIMELINE_TYPES, coded('invalid_event_type', 'type must be canceled or refunded.')),
  amount: z.string(coded('invalid_amount', 'amount must be a decimal string such as "10.00".'))
    .refine((text) => parseAmount(text) !== null && (parseAmount(text) ?? 0) > 0, coded('invalid_amount', 'amount must be a positive decimal string such as "10.00".'))
    .transform((text) => parseAmount(text) ?? 0)
    .optional()
    .describe('For a refund: how much was refunded, in the order currency (default: what was paid).'),
  reason: z.string(coded('invalid_description', 'reason must be a string.'))
    .refine((text) => characters(text) <= 500, coded('too_long', 'reason must be at most 500 characters.'))
    .optional(),
});
export type ReportOrderEventInput = z.output<typeof ReportOrderEventInput>;

const StoreOut = z.object({
  platform: z.string().nullable(), id: z.string().nullable(), name: z.string().nullable(), url: z.string().nullable(),
  order_id: z.string(), order_number: z.string().nullable(), order_url: z.string().nullable(), customer_id: z.string().nullable(),
});

export const OrderOut = z.object({
  id: z.string(),
  object: z.literal('order'),
  livemode: z.boolean(),
  number: z.number().int(),
  display_number: z.string(),
  source: z.enum(['api', 'checkout', 'payment_link']),
  checkout_id: z.string().nullable(),
  store: StoreOut.nullable(),
  status: z.enum(PAYMENT_STATUSES),
  needs_review: z.boolean(),
  fulfillment: z.enum(FULFILLMENTS),
  fulfilled_at: z.number().int().nullable(),
  customer_id: z.string().nullable(),
  customer: CustomerOut.pick({ id: true, email: true, name: true, erased: true }).nullable(),
  customer_name: z.string().nullable(),
  customer_phone: z.string().nullable(),
  summary: z.string(),
  line_count: z.number().int(),
  unit_count: z.number().int(),
  currency: z.string(),
  subtotal: z.string(),
  discount: z.string(),
  discount_code: z.string().nullable(),
  shipping: z.string(),
  shipping_method: z.string().nullable(),
  tax: z.string(),
  total: z.string(),
  amount_paid: z.string(),
  received: z.string().nullable(),
  ship_to: addressOut.nullable(),
  bill_to: addressOut.nullable(),
  reference: z.string().nullable(),
  payment_id: z.string().nullable(),
  payment_ids: z.array(z.string()),
  attempt_count: z.number().int(),
  items: z.array(z.object({
    name: z.string(), variant: z.string().nullable(), sku: z.string().nullable(), quantity: z.number().int(),
    unit_amount: z.string().nullable(), amount: z.string(),
  })),
  timeline: z.array(z.object({
    type: z.enum(TIMELINE_TYPES), amount: z.string().nullable(), reason: z.string().nullable(), created: z.number().int(),
  })),
  created: z.number().int(),
  updated: z.number().int(),
  paid_at: z.number().int().nullable(),
});
export type OrderOut = z.infer<typeof OrderOut>;
export const OrderList = pageOf(OrderOut);

export interface OrderParts {
  order: OrderRow;
  payments: readonly PaymentRow[];
  customer: CustomerRow | null;
  timeline: readonly OrderTimelineRow[];
}

export function toOrderOut({ order, payments, customer, timeline }: OrderParts, now: Date): OrderOut {
  const facts = deriveOrder(payments, now);
  const ids = [...payments].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id)).map((p) => p.id);
  return {
    id: order.id,
    object: 'order',
    livemode: order.livemode,
    number: order.number,
    display_number: displayNumber(order),
    source: order.source,
    checkout_id: order.checkout_id,
    store: order.store === null ? null : {
      platform: order.store.platform, id: order.store.id, name: order.store.name, url: order.store.url,
      order_id: order.store.order_id, order_number: order.store.order_number, order_url: order.store.order_url, customer_id: order.store.customer_id,
    },
    status: facts.status,
    needs_review: facts.needsReview,
    fulfillment: order.fulfillment,
    fulfilled_at: unixSecondsOrNull(order.fulfilled_at),
    customer_id: order.customer_id,
    customer: customer === null ? null : { id: customer.id, email: customer.email, name: customer.name, erased: customer.erased },
    customer_name: order.customer_name,
    customer_phone: order.customer_phone,
    summary: summaryOf(order.items),
    line_count: order.items.length,
    unit_count: unitCount(order.items),
    currency: order.currency,
    subtotal: formatAmount(order.subtotal_minor),
    discount: formatAmount(order.discount_minor),
    discount_code: order.discount_code,
    shipping: formatAmount(order.shipping_minor),
    shipping_method: order.shipping_method,
    tax: formatAmount(order.tax_minor),
    total: formatAmount(order.total_minor),
    amount_paid: formatAmount(facts.amountPaidMinor),
    received: facts.received,
    ship_to: order.ship_to,
    bill_to: order.bill_to,
    reference: facts.reference,
    payment_id: facts.paymentId,
    payment_ids: ids,
    attempt_count: facts.attemptCount,
    items: order.items.map((item) => ({
      name: item.name, variant: item.variant, sku: item.sku, quantity: item.quantity,
      unit_amount: item.unit_amount_minor === null ? null : formatAmount(item.unit_amount_minor), amount: formatAmount(item.amount_minor),
    })),
    timeline: timeline.map((entry) => ({
      type: entry.type, amount: entry.amount_minor === null ? null : formatAmount(entry.amount_minor), reason: entry.reason,
      created: unixSeconds(entry.created_at),
    })),
    created: unixSeconds(order.created_at),
    updated: unixSeconds(order.updated_at),
    paid_at: unixSecondsOrNull(facts.paidAt),
  };
}
