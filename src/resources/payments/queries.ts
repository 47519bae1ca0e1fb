import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import { createdBounds, pageRows } from '../../core/pagination.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';
import type { PaymentSource } from '../../db/schema.ts';
import type { ListPaymentsInput, PaymentWithCustomer } from './schemas.ts';
import { statusIs } from '../shared/payment-status.ts';

/** Payments of the caller's business and mode (with `id`, that one), each with its order's customer. */
export function payments(db: Db, principal: Pick<Principal, 'businessId' | 'livemode'>, id?: string) {
  return scoped(db.selectFrom('payments as p').leftJoin('orders as o', 'o.id', 'p.order_id').selectAll('p').select('o.customer_id'), 'p', principal, id);
}

export async function findPayment(db: Db, principal: Principal, id: string, sources?: readonly PaymentSource[]): Promise<PaymentWithCustomer | undefined> {
  let query = payments(db, principal, id);
  if (sources) query = query.where('p.source', 'in', [...sources]);
  return query.executeTakeFirst();
}

export async function getPayment(db: Db, principal: Principal, id: string, what = 'payment', sources?: readonly PaymentSource[]): Promise<PaymentWithCustomer> {
  const row = await findPayment(db, principal, id, sources);
  if (!row) throw notFound(what, id);
  return row;
}

export async function listPaymentRows(db: Db, principal: Principal, input: ListPaymentsInput, now: Date): Promise<PaymentWithCustomer[]> {
  let query = payments(db, principal);
  if (input.status !== undefined) query = query.where(statusIs(input.status, now, 'p'));
  if (input.reference !== undefined) query = query.where('p.reference', '=', input.reference);
  if (input.source !== undefined) query = query.where('p.source', '=', input.source);
  if (input.order_id !== undefined) query = query.where('p.order_id', '=', input.order_id);
  if (input.customer_id !== undefined) query = query.where('o.customer_id', '=', input.customer_id);
  const { from, before } = createdBounds(input);
  if (from) query = query.where('p.created_at', '>=', from);
  if (before) query = query.where('p.created_at', '<', before);
  return pageRows(query, input, (id) => findPayment(db, principal, id), 'a payment', 'p');
}
