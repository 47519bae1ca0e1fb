import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import { pageRows } from '../../core/pagination.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';
import type { CheckoutRow } from '../../db/schema.ts';
import type { ListCheckoutsInput } from './schemas.ts';

function checkouts(db: Db, principal: Principal, id?: string) {
  return scoped(db.selectFrom('checkouts').selectAll(), 'checkouts', principal, id);
}

export async function findCheckout(db: Db, principal: Principal, id: string): Promise<CheckoutRow | undefined> {
  return checkouts(db, principal, id).executeTakeFirst();
}

/** Any checkout of the caller's business and mode, deleted ones included (spec 4.2). */
export async function getCheckout(db: Db, principal: Principal, id: string): Promise<CheckoutRow> {
  const row = await findCheckout(db, principal, id);
  if (!row) throw notFound('checkout', id);
  return row;
}

/** Active checkouts, newest first. */
export async function listCheckoutRows(db: Db, principal: Principal, input: ListCheckoutsInput): Promise<CheckoutRow[]> {
  let query = checkouts(db, principal).where('active', '=', true);
  if (input.kind !== undefined) query = query.where('kind', '=', input.kind);
  return pageRows(query, input, (id) => findCheckout(db, principal, id), 'a checkout');
}
