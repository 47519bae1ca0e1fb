import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';
import type { CheckoutRow } from '../../db/schema.ts';
import type { ListCheckoutsInput } from './schemas.ts';

const checkouts = ownedRows({ what: 'checkout', table: 'checkouts', rows: (db) => db.selectFrom('checkouts').selectAll() });

export const findCheckout = checkouts.find;

/** Any checkout of the caller's business and mode, deleted ones included (spec 4.2). */
export const getCheckout = checkouts.get;

/** Active checkouts, newest first. */
export async function listCheckoutRows(db: Db, principal: Principal, input: ListCheckoutsInput): Promise<CheckoutRow[]> {
  return checkouts.list(db, principal, input, (query) => {
    let filtered = query.where('active', '=', true);
    if (input.kind !== undefined) filtered = filtered.where('kind', '=', input.kind);
    return filtered;
  });
}
