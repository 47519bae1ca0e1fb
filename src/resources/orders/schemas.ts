import type { Principal } from '../../auth/principal.ts';
import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { DECIMAL, formatAmount, parseAmount } from '../../core/money.ts';
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
  status: z.enum(PAYMENT_STATUSES, coded('invalid_filter', `status must be one of ${PAYMENT_STATUSES.join(', ')}.`)).optional()
    .describe('Only orders in this status (it follows the order\'s payments).'),
  ...createdRange,
});
export type ListOrdersInput = z.output<typeof ListOrdersInput>;

const fulfillmentError = coded('invalid_fulfillment', 'fulfillment must be none, unfulfilled or fulfilled.');
export const UpdateOrderInput = OrderIdInput.extend({
  fulfillment: z.enum(FULFILLMENTS, fulfillmentError).optional()
    .describe('`none`, `unfulfilled` or `fulfilled`. Fulfil only orders whose status is `paid`.'),
  fulfilled_at: z.number(coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .int(coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .min(0, coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .max(253_402_300_799, coded('invalid_fulfillment', 'fulfilled_at must be a Unix time in seconds, or null.'))
    .nullable()
    .optional()
    .describe('When it was fulfilled, Unix seconds; only with fulfillment `fulfilled`. Default: now, when fulfillment becomes `fulfilled`.'),
});
export type UpdateOrderInput = z.output<typeof UpdateOrderInput>;

export const ReportOrderEventInput = OrderIdInput.extend({
  type: z.enum(TIMELINE_TYPES, coded('invalid_event_type', 'type must be canceled or refunded.'))
    .describe('What you did: `canceled` the order or `refunded` money.'),
  amount: z.string(coded('invalid_amount', 'amount must be a decimal string such as "10.00".'))
    .refine((text) => parseAmount(text) !== null && (parseAmount(text) ?? 0) > 0, coded('invalid_amount', 'amount must be a positive decimal string such as "10.00".'))
    .transform((text) => parseAmount(text) ?? 0)
    .optional()
    .meta({ description: 'Only for type `refunded`: how much was refunded, a decimal string in the order currency, at most what was paid and not yet refunded (default: all of it).', pattern: DECIMAL.source }),
  reason: z.string(coded('invalid_description', 'reason must be a string.'))
    .refine((text) => characters(text) <= 500, coded('too_long', 'reason must be at most 500 characters.'))
    .optional()
    .meta({ description: 'Why, in your words, shown on the order\'s timeline; up to 500 characters.', maxLength: 500 }),
});
export type ReportOrderEventInput = z.output<typeof ReportOrderEventInput>;

export const OrderStoreOut = z.object({
  platform: z.string().nullable().describe('The store platform, such as `woocommerce`.'),
  id: z.string().nullable().describe('The store\'s id on its platform.'),
  name: z.string().nullable().describe('The store\'s name.'),
  url: z.string().nullable().describe('The store\'s address.'),
  order_id: z.string().describe('The store\'s own order id (`order.id` at session creation).'),
  order_number: z.string().nullable().describe('The store\'s order number, shown to people.'),
  order_url: z.string().nullable().describe('The order\'s page in the store.'),
  customer_id: z.string().nullable().describe('The store\'s own id for the customer.'),
}).describe('The store an order came from, for orders sent with `order.id`.');

export const OrderCustomerOut = CustomerOut.pick({ id: true, email: true, name: true, erased: true })
  .describe('The order\'s customer, in short (the customer object has the rest).');

export const OrderItemOut = z.object({
  name: z.string().describe('What was bought.'),
  variant: z.string().nullable().describe('Size, colour or other variant.'),
  sku: z.string().nullable().describe('The store\'s stock-keeping unit.'),
  quantity: z.number().int().describe('How many units.'),
  unit_amount: z.string().nullable().describe('Price of one unit, a decimal string; null when not sent.'),
  amount: z.string().describe('Price of the line, a decimal string (unit_amount × quantity when both are known).'),
}).describe('One item line of an order.');

export const OrderTimelineEntryOut = z.object({
  type: z.enum(TIMELINE_TYPES).describe('`canceled` or `refunded`.'),
  amount: z.string().nullable().describe('For a refund: how much, a decimal string in the order currency; null for a cancellation.'),
  reason: z.string().nullable().describe('Why, as you reported it.'),
  created: z.number().int().describe('When it was reported, Unix seconds.'),
}).describe('A cancellation or refund you reported on the order.');

const money = (what: string) => z.string().describe(`${what}: a decimal string with two decimals in the order currency.`);

export const OrderOut = z.object({
  id: z.string().describe('`ord_…`.'),
  object: z.literal('order').describe('Always `order`.'),
  livemode: z.boolean().describe('false = Test, true = Live.'),
  number: z.number().int().describe('The service\'s order number, counting from 1001 per mode.'),
  display_number: z.string().describe('The number shown to people: the store\'s number when sent, else the service\'s.'),
  source: z.enum(['api', 'checkout', 'payment_link']).describe('Where the first payment came from: `api`, `checkout` or `payment_link`.'),
  checkout_id: z.string().nullable().describe('`chk_…` for checkout orders; null otherwise.'),
  store: OrderStoreOut.nullable().describe('For orders sent with `order.id`: the store and its ids; null otherwise.'),
  status: z.enum(PAYMENT_STATUSES).describe('Follows all of the order\'s payments: paid over held over the latest attempt.'),
  needs_review: z.boolean().describe('True when held and the merchant needs to decide.'),
  fulfillment: z.enum(FULFILLMENTS).describe('`none`, `unfulfilled` or `fulfilled`.'),
  fulfilled_at: z.number().int().nullable().describe('When it was fulfilled, Unix seconds; null unless fulfilled.'),
  customer_id: z.string().nullable().describe('`cus_…` of the order\'s customer; null until the buyer has given an email.'),
  customer: OrderCustomerOut.nullable().describe('The order\'s customer, in short; null until the buyer has given an email, and null to a caller without customers:read.'),
  customer_name: z.string().nullable().describe('The buyer\'s name as given for this order.'),
  customer_phone: z.string().nullable().describe('The buyer\'s phone as given for this order.'),
  summary: z.string().describe('The first item and how many more lines.'),
  line_count: z.number().int().describe('Number of item lines.'),
  unit_count: z.number().int().describe('Units across all lines.'),
  currency: z.string().describe('The currency of every amount on the order.'),
  subtotal: money('Sum of the item amounts'),
  discount: money('Taken off the subtotal'),
  discount_code: z.string().nullable().describe('The discount code used.'),
  shipping: money('Shipping charged'),
  shipping_method: z.string().nullable().describe('How it ships.'),
  tax: money('Tax charged'),
  total: money('subtotal - discount + shipping + tax'),
  amount_paid: money('Sum of its paid payments; below total after a part-payment left it held'),
  received: z.string().nullable().describe('USDC that reached the merchant wallet, six decimals; null until reported.'),
  ship_to: addressOut.nullable().describe('Where it ships; null when not given.'),
  bill_to: addressOut.nullable().describe('The billing address; null when not given.'),
  reference: z.string().nullable().describe('The reference of its latest payment.'),
  payment_id: z.string().nullable().describe('The payment that decides the status: the paid one, else the held one, else the latest.'),
  payment_ids: z.array(z.string()).describe('Every payment attempt of the order, oldest first.'),
  attempt_count: z.number().int().describe('Number of payments (attempts).'),
  items: z.array(OrderItemOut).describe('Every item line.'),
  timeline: z.array(OrderTimelineEntryOut).describe('Cancellations and refunds you reported, oldest first.'),
  created: z.number().int().describe('When the order was created, Unix seconds.'),
  updated: z.number().int().describe('When the order last changed, Unix seconds.'),
  paid_at: z.number().int().nullable().describe('When its first payment became paid, Unix seconds.'),
}).describe('An order: what was bought and where it ships. Its status follows all of its payments; amounts are decimal strings in the order currency.');
export type OrderOut = z.infer<typeof OrderOut>;
export const OrderList = pageOf(OrderOut, 'orders');

export interface OrderParts {
  order: OrderRow;
  payments: readonly PaymentRow[];
  customer: CustomerRow | null;
  timeline: readonly OrderTimelineRow[];
}

/**
 * The order as `reader` may read it: its customer in short (another resource's data) only to a
 * reader holding customers:read (issue 31); the buyer's name and phone given for this order are
 * the order's own.
 */
export function toOrderOut({ order, payments, customer, timeline }: OrderParts, now: Date, reader: Pick<Principal, 'scopes'>): OrderOut {
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
    customer: customer === null || !reader.scopes.has('customers:read') ? null : { id: customer.id, email: customer.email, name: customer.name, erased: customer.erased },
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
