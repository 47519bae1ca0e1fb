import { sql } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';
import type { OrderRow } from '../../db/schema.ts';
import type { ListOrdersInput, OrderParts } from './schemas.ts';

const orders = ownedRows({ what: 'order', table: 'orders', rows: (db) => db.selectFrom('orders').selectAll() });

/** Orders with their payments, customers and timelines, three queries for any number of orders. */
async function withParts(db: Db, rows: OrderRow[]): Promise<OrderParts[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const customerIds = [...new Set(rows.map((row) => row.customer_id).filter((id): id is string => id !== null))];
  const [payments, customers, timeline] = await Promise.all([
    db.selectFrom('payments').selectAll().where('order_id', 'in', ids).execute(),
    customerIds.length ? db.selectFrom('customers').selectAll().where('id', 'in', customerIds).execute() : Promise.resolve([]),
    db.selectFrom('order_timeline').selectAll().where('order_id', 'in', ids).orderBy('id').execute(),
  ]);
  return rows.map((order) => ({
    order,
    payments: payments.filter((p) => p.order_id === order.id),
    customer: customers.find((c) => c.id === order.customer_id) ?? null,
    timeline: timeline.filter((entry) => entry.order_id === order.id),
  }));
}

export const findOrderRow = orders.find;

/** The order row itself (no parts), or not_found; `narrow` may lock it (`forUpdate`). */
export const getOrderRow = orders.get;

export async function getOrder(db: Db, principal: Principal, id: string): Promise<OrderParts> {
  const [parts] = await withParts(db, [await orders.get(db, principal, id)]);
  if (!parts) throw notFound('order', id);
  return parts;
}

/**
 * The order's status as deriveOrder reads it (paid over held over the latest attempt, an unpaid
 * attempt past its time being expired), in SQL, so the list filter agrees with the objects even
 * before the expiry sweep has written a change.
 */
function derivedStatus(now: Date) {
  return sql<string>`(CASE
    WHEN EXISTS (SELECT 1 FROM payments p WHERE p.order_id = orders.id AND p.status = 'paid') THEN 'paid'
    WHEN EXISTS (SELECT 1 FROM payments p WHERE p.order_id = orders.id AND p.status = 'held') THEN 'held'
    ELSE (SELECT CASE WHEN p.status IN ('open', 'pending') AND p.expires_at <= ${now} THEN 'expired' ELSE p.status END
          FROM payments p WHERE p.order_id = orders.id ORDER BY p.created_at DESC, p.id DESC LIMIT 1)
  END)`;
}

export async function listOrderParts(db: Db, principal: Principal, input: ListOrdersInput, now: Date): Promise<{ rows: OrderRow[]; parts: OrderParts[] }> {
  const rows = await orders.list(db, principal, input, (query) => {
    let filtered = query;
    if (input.customer_id !== undefined) filtered = filtered.where('customer_id', '=', input.customer_id);
    if (input.store_order_id !== undefined) filtered = filtered.where(sql<boolean>`store ->> 'order_id' = ${input.store_order_id}`);
    if (input.status !== undefined) filtered = filtered.where(derivedStatus(now), '=', input.status);
    return filtered;
  });
  return { rows, parts: await withParts(db, rows.slice(0, input.limit)) };
}
