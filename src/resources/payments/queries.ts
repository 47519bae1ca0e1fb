import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';
import type { PaymentSource } from '../../db/schema.ts';
import type { ListPaymentsInput, PaymentWithCustomer } from './schemas.ts';
import { statusIs } from '../shared/payment-status.ts';

const paymentRows = ownedRows({
  what: 'payment',
  table: 'p',
  rows: (db) => db.selectFrom('payments as p').leftJoin('orders as o', 'o.id', 'p.order_id').selectAll('p').select('o.customer_id'),
});

/** Payments of the caller's business and mode (with `id`, that one), each with its order's customer. */
export const payments = paymentRows.query;

/** Only payments of these sources (a checkout session is a payment of source api or checkout). */
function ofSources(sources: readonly PaymentSource[] | undefined) {
  return sources && ((query: ReturnType<typeof payments>) => query.where('p.source', 'in', [...sources]));
}

export async function findPayment(db: Db, principal: Principal, id: string, sources?: readonly PaymentSource[]): Promise<PaymentWithCustomer | undefined> {
  return paymentRows.find(db, principal, id, ofSources(sources));
}

export async function getPayment(db: Db, principal: Principal, id: string, what = 'payment', sources?: readonly PaymentSource[]): Promise<PaymentWithCustomer> {
  return paymentRows.get(db, principal, id, { what, narrow: ofSources(sources) });
}

export async function listPaymentRows(db: Db, principal: Principal, input: ListPaymentsInput, now: Date): Promise<PaymentWithCustomer[]> {
  return paymentRows.list(db, principal, input, (query) => {
    let filtered = query;
    if (input.status !== undefined) filtered = filtered.where(statusIs(input.status, now, 'p'));
    if (input.reference !== undefined) filtered = filtered.where('p.reference', '=', input.reference);
    if (input.source !== undefined) filtered = filtered.where('p.source', '=', input.source);
    if (input.order_id !== undefined) filtered = filtered.where('p.order_id', '=', input.order_id);
    if (input.customer_id !== undefined) filtered = filtered.where('o.customer_id', '=', input.customer_id);
    return filtered;
  });
}
