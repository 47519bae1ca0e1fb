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

export const CustomerOut = z.object({
  id: z.string(),
  object: z.literal('customer'),
  livemode: z.boolean(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  phone: z.string().nullable(),
  shipping_address: addressOut.nullable(),
  billing_address: addressOut.nullable(),
  store_accounts: z.array(z.object({
    platform: z.string(),
    store_id: z.string(),
    store_name: z.string().nullable(),
    customer_id: z.string(),
  })),
  orders_count: z.number().int(),
  paid_orders_count: z.number().int(),
  spent: z.record(z.string(), z.string()),
  created: z.number().int(),
  last_order_at: z.number().int().nullable(),
  erased: z.boolean(),
});
export type CustomerOut = z.infer<typeof CustomerOut>;

export const CustomerList = pageOf(CustomerOut);

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
