import { z } from 'zod';
import { DECIMAL, MAX_AMOUNT_MINOR, parseAmount } from '../../core/money.ts';
import { characters, coded } from '../../core/validation.ts';
import { addressField } from '../shared/addresses.ts';
import { httpAddressField, MAX_URL_LENGTH } from '../shared/fields.ts';

// The store order a checkout session is for (issue: "order" on session create): its lines,
// totals, addresses and the store it came from. Errors answer invalid_order naming the field
// (invalid_url for its addresses, too_long for text past its limit).

const fail = (message: string) => coded('invalid_order', message);

function text(field: string, max: number, description: string) {
  return z
    .string(fail(`${field} must be a string.`))
    .refine((value) => characters(value) <= max, coded('too_long', `${field} must be at most ${max} characters.`))
    .nullish()
    .meta({ description: `${description} Up to ${max} characters.`, maxLength: max });
}

/** A non-negative decimal string with at most two decimals, in minor units. */
function money(field: string) {
  return z
    .string(fail(`${field} must be a decimal string such as "12.50".`))
    .refine((value) => {
      const minor = parseAmount(value);
      return minor !== null && minor <= MAX_AMOUNT_MINOR * 10;
    }, fail(`${field} must be a decimal string such as "12.50", at most two decimals.`))
    .transform((value) => parseAmount(value) ?? 0)
    .meta({ pattern: DECIMAL.source });
}

/** An address in the store, which the merchant may open: http(s) only (invalid_url), kept as sent. */
function link(field: string, description: string) {
  return httpAddressField(field).nullish()
    .meta({ description: `${description} A full http:// or https:// address without username or password, up to 2,048 characters.`, maxLength: MAX_URL_LENGTH });
}

const moneyText = (what: string) => `${what}: a decimal string such as "12.50", at most two decimals, in the session's currency.`;

export const MAX_ORDER_ITEMS = 500;

const ItemInput = z.object({
  name: z.string(fail('Each item needs a name.')).refine((v) => v.trim() !== '', fail('Each item needs a name.'))
    .refine((v) => characters(v) <= 200, coded('too_long', 'Item names are at most 200 characters.'))
    .meta({ description: 'What was bought; required, up to 200 characters.', minLength: 1, maxLength: 200 }),
  variant: text('variant', 200, 'Size, colour or other variant.'),
  sku: text('sku', 100, "The store's stock-keeping unit."),
  quantity: z.number(fail('quantity must be a whole number from 1.')).int(fail('quantity must be a whole number from 1.'))
    .min(1, fail('quantity must be a whole number from 1.')).max(100_000, fail('quantity is at most 100000.'))
    .describe('How many units, 1 to 100000.'),
  unit_amount: money('unit_amount').nullish().describe(moneyText('Price of one unit')),
  amount: money('amount').describe(moneyText('Price of the line; unit_amount × quantity when unit_amount is sent')),
}, fail('Each item must be an object with name, quantity and amount.')).describe('One item line.');

const StoreInput = z.object({
  platform: text('store.platform', 40, 'The store platform, such as "woocommerce".'),
  id: text('store.id', 100, "The store's id on its platform."),
  name: text('store.name', 200, "The store's name."),
  url: link('order.store.url', "The store's address."),
}, fail('order.store must be an object with platform, id, name and url.'));

export const OrderInput = z.object({
  id: z.string(fail('order.id, the store\'s own order id, must be a string.'))
    .refine((v) => v.trim() !== '' && characters(v) <= 100, fail('order.id must be 1 to 100 characters.'))
    .meta({ description: "The store's own order id; required, 1 to 100 characters.", minLength: 1, maxLength: 100 }),
  number: text('order.number', 64, "The store's order number, shown to people instead of the service's."),
  url: link('order.url', "The order's page in the store."),
  items: z.array(ItemInput, fail('order.items must be an array of item lines.'))
    .max(MAX_ORDER_ITEMS, fail(`An order has at most ${MAX_ORDER_ITEMS} item lines.`)).default([])
    .describe(`The item lines, at most ${MAX_ORDER_ITEMS}; their amounts add up to subtotal.`),
  subtotal: money('subtotal').nullish().describe(moneyText('Sum of the item amounts')),
  discount: money('discount').nullish().describe(moneyText('Taken off the subtotal')),
  discount_code: text('discount_code', 100, 'The discount code used.'),
  shipping: money('shipping').nullish().describe(moneyText('Shipping charged')),
  shipping_method: text('shipping_method', 200, 'How it ships.'),
  tax: money('tax').nullish().describe(moneyText('Tax charged')),
  total: money('total').nullish().describe(moneyText('subtotal - discount + shipping + tax; it must add up')),
  ship_to: addressField('ship_to').nullish().describe('Where the order ships; the same rules as shipping_address.'),
  bill_to: addressField('bill_to').nullish().describe('The order\'s billing address; the same rules as billing_address.'),
  store: StoreInput.nullish()
    .describe('The store the order comes from. A session with the same store (platform, id) and order.id as an earlier one attaches to that order.'),
  customer_id: text('order.customer_id', 100, "The store's own id for the customer."),
}, fail('order must be an object.'))
  .superRefine((order, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message: fail(message).error });
    const itemsTotal = order.items.reduce((sum, item) => sum + item.amount, 0);
    const subtotal = order.subtotal ?? itemsTotal;
    if (order.items.length > 0 && order.subtotal != null && order.subtotal !== itemsTotal) {
      issue('subtotal', 'subtotal must be the sum of the item amounts.');
    }
    order.items.forEach((item, index) => {
      if (item.unit_amount != null && item.unit_amount * item.quantity !== item.amount) {
        ctx.addIssue({ code: 'custom', path: ['items', index, 'amount'], message: fail('amount must be unit_amount × quantity.').error });
      }
    });
    const computed = subtotal - (order.discount ?? 0) + (order.shipping ?? 0) + (order.tax ?? 0);
    if (order.total != null && order.total !== computed) issue('total', 'total must be subtotal - discount + shipping + tax.');
    if (computed < 0) issue('discount', 'discount cannot exceed the subtotal plus shipping and tax.');
  })
  .meta({ description: "The store's order: id (required), number, url, items, subtotal, discount, discount_code, shipping, shipping_method, tax, total, ship_to, bill_to, store {platform, id, name, url} and customer_id. A second session with the same store and order id attaches to the same order." });
export type OrderInput = z.output<typeof OrderInput>;

/** Identifies a store order within a business and mode. */
export function storeOrderKey(order: Pick<OrderInput, 'id' | 'store'>): string {
  return JSON.stringify([order.store?.platform ?? null, order.store?.id ?? null, order.id]);
}

/** The order's total as sent or as its lines and charges add up; null when it says nothing of money. */
export function orderTotal(order: OrderInput): number | null {
  if (order.total != null) return order.total;
  const subtotal = order.subtotal ?? (order.items.length > 0 ? order.items.reduce((sum, item) => sum + item.amount, 0) : null);
  if (subtotal === null) return null;
  return subtotal - (order.discount ?? 0) + (order.shipping ?? 0) + (order.tax ?? 0);
}
