import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { formatAmount } from '../../core/money.ts';
import { listParams, pageOf } from '../../core/pagination.ts';
import { coded } from '../../core/validation.ts';
import type { CustomerRow } from '../../db/schema.ts';
import { addressOut } from '../shared/addresses.ts';
import { idInput } from '../shared/ids.ts';

export const CustomerIdInput = idInput('cus');

export const ListCustomersInput = z.object({
  ...listParams,
  email: z
    .string(coded('invalid_email', 'email must be a string.'))
    .trim()
    .toLowerCase()
    .optional()
    .describe('Whole email address in any letter case; the list then has at most one customer.'),
});
export type ListCustomersInput = z.output<typeof ListCustomersInput>;

export const StoreAccountOut = z.object({
  platform: z.string().describe('The store platform.'),
  store_id: z.string().describe('The store\'s id on its platform.'),
  store_name: z.string().nullable().describe('The store\'s name.'),
  customer_id: z.string().describe('The customer.id the store sent.'),
}).describe('The customer\'s account in one store that sent orders.');

export const CustomerOut = z.object({
  id: z.string().describe('`cus_…`.'),
  object: z.literal('customer').describe('Always `customer`.'),
  livemode: z.boolean().describe('false = Test, true = Live.'),
  email: z.string().nullable().describe('Lowercased; null after the customer\'s details are deleted.'),
  name: z.string().nullable().describe('From the latest order that had one.'),
  phone: z.string().nullable().describe('As the store sent it, from the latest order that had one.'),
  shipping_address: addressOut.nullable().describe('The latest shipping address.'),
  billing_address: addressOut.nullable().describe('The latest billing address.'),
  store_accounts: z.array(StoreAccountOut).describe('One entry per store that sent the customer; empty when none.'),
  orders_count: z.number().int().describe('Orders of the customer, paid or not.'),
  paid_orders_count: z.number().int().describe('How many of those orders are paid.'),
  spent: z.record(z.string(), z.string()).describe('Currency code to decimal string: the sum of the customer\'s paid payments per currency, including part-payments on a held order and both payments when one order was paid twice; empty until a payment is paid.'),
  created: z.number().int().describe('First appearance, Unix seconds.'),
  last_order_at: z.number().int().nullable().describe('Creation time of the latest order, Unix seconds; null without orders.'),
  erased: z.boolean().describe('True once the customer\'s details were deleted.'),
}).describe('A customer: one buyer email in one mode. Customers change only through orders.');
export type CustomerOut = z.infer<typeof CustomerOut>;

export const CustomerList = pageOf(CustomerOut, 'customers');

/** A customer row with the counts and spend computed from its orders and payments. */
export type CustomerWithTotals = CustomerRow & {
  last_order_at: Date | null;
  orders_count: number;
  paid_orders_count: number;
  spent_minor: Record<string, number> | null;
};

export function toCustomerOut(row: CustomerWithTotals): CustomerOut {
  const spent = Object.fromEntries(
    Object.entries(row.spent_minor ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([currency, minor]) => [currency, formatAmount(Number(minor))]),
  );
  return {
    id: row.id,
    object: 'customer',
    livemode: row.livemode,
    email: row.email,
    name: row.name,
    phone: row.phone,
    shipping_address: row.shipping_address,
    billing_address: row.billing_address,
    store_accounts: row.store_accounts,
    orders_count: row.orders_count,
    paid_orders_count: row.paid_orders_count,
    spent,
    created: unixSeconds(row.created_at),
    last_order_at: unixSecondsOrNull(row.last_order_at),
    erased: row.erased,
  };
}
