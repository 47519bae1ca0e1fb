import { sql } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';
import type { CustomerWithTotals, ListCustomersInput } from './schemas.ts';

/** The customer row alone: for changing it, and for finding a page's place. */
const records = ownedRows({ what: 'customer', table: 'customers', rows: (db) => db.selectFrom('customers').selectAll() });

export const getCustomerRecord = records.get;

// Counts and spend are derived from orders and payments at read time, so they cannot drift.
const customers = ownedRows({
  what: 'customer',
  table: 'c',
  rows: (db) => db
    .selectFrom('customers as c')
    .selectAll('c')
    .select([
      sql<number>`(SELECT count(*)::int FROM orders o WHERE o.customer_id = c.id)`.as('orders_count'),
      sql<number>`(SELECT count(*)::int FROM orders o WHERE o.customer_id = c.id
        AND EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status = 'paid'))`.as('paid_orders_count'),
      // Paid payments in full, and what arrived on held ones (part-payments), per currency.
      sql<Record<string, number> | null>`(
        SELECT jsonb_object_agg(s.currency, s.total) FROM (
          SELECT p.currency, sum(CASE WHEN p.status = 'paid' THEN p.amount_minor ELSE coalesce(p.received_minor, 0) END) AS total
          FROM payments p JOIN orders o ON o.id = p.order_id
          WHERE o.customer_id = c.id AND p.status IN ('paid', 'held')
          GROUP BY p.currency) s)`.as('spent_minor'),
      sql<Date | null>`(SELECT max(o.created_at) FROM orders o WHERE o.customer_id = c.id)`.as('last_order_at'),
    ]),
  // A page's starting customer is needed only for its place, not its totals.
  cursor: records.find,
});

export const getCustomer = customers.get;

export async function listCustomerRows(db: Db, principal: Principal, input: ListCustomersInput): Promise<CustomerWithTotals[]> {
  return customers.list(db, principal, input, (query) => (input.email === undefined ? query : query.where('c.email', '=', input.email)));
}
