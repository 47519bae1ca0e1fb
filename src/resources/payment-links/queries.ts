import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import { createdBounds, pageRows } from '../../core/pagination.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { statusIs } from '../shared/payment-status.ts';
import type { ListPaymentLinksInput } from './schemas.ts';

// Payment links are payments with source 'payment_link'; every query is scoped to the
// caller's business and mode.
function links(db: Db, principal: Principal, id?: string) {
  return scoped(db.selectFrom('payments').selectAll(), 'payments', principal, id).where('source', '=', 'payment_link');
}

export async function findPaymentLink(db: Db, principal: Principal, id: string): Promise<PaymentRow | undefined> {
  return links(db, principal, id).executeTakeFirst();
}

export async function getPaymentLink(db: Db, principal: Principal, id: string): Promise<PaymentRow> {
  const row = await findPaymentLink(db, principal, id);
  if (!row) throw notFound('payment link', id);
  return row;
}

export async function listPaymentLinkRows(db: Db, principal: Principal, input: ListPaymentLinksInput, now: Date): Promise<PaymentRow[]> {
  let query = links(db, principal);
  if (input.status !== undefined) query = query.where(statusIs(input.status, now));
  if (input.reference !== undefined) query = query.where('reference', '=', input.reference);
  const { from, before } = createdBounds(input);
  if (from) query = query.where('created_at', '>=', from);
  if (before) query = query.where('created_at', '<', before);
  return pageRows(query, input, (id) => findPaymentLink(db, principal, id), 'a payment link');
}
