import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { statusIs } from '../shared/payment-status.ts';
import type { ListPaymentLinksInput } from './schemas.ts';

// Payment links are payments with source 'payment_link'; every query is scoped to the
// caller's business and mode.
const links = ownedRows({
  what: 'payment link',
  table: 'payments',
  rows: (db) => db.selectFrom('payments').selectAll(),
  only: (eb) => eb('source', '=', 'payment_link'),
});

export const findPaymentLink = links.find;

export const getPaymentLink = links.get;

export async function listPaymentLinkRows(db: Db, principal: Principal, input: ListPaymentLinksInput, now: Date): Promise<PaymentRow[]> {
  return links.list(db, principal, input, (query) => {
    let filtered = query;
    if (input.status !== undefined) filtered = filtered.where(statusIs(input.status, now));
    if (input.reference !== undefined) filtered = filtered.where('reference', '=', input.reference);
    return filtered;
  });
}
