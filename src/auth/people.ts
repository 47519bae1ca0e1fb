import { ApiError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import { BUSINESS_STATE_COLUMNS } from '../tenancy/businesses.ts';
import { scopesForRole, type Principal } from './principal.ts';

// People in the dashboard act in one business and one mode at a time, with their role there.

/**
 * The principal of a signed-in person acting in a business and mode; not_found when they are
 * not a member, so a business that is not theirs looks like one that does not exist.
 */
export async function personPrincipal(db: Db, person: { personId: string; email: string }, businessId: string, livemode: boolean): Promise<Principal> {
  const row = await db.selectFrom('memberships as m').innerJoin('businesses as b', 'b.id', 'm.business_id')
    .select(['m.role', ...BUSINESS_STATE_COLUMNS.map((column) => `b.${column}` as const)])
    .where('m.business_id', '=', businessId).where('m.person_id', '=', person.personId)
    .executeTakeFirst();
  if (!row) throw new ApiError('not_found', `No business with id '${businessId}' is yours.`);
  const { role, ...business } = row;
  return {
    businessId,
    livemode,
    scopes: new Set(scopesForRole(role)),
    actor: { kind: 'person', personId: person.personId, email: person.email, role },
    business,
  };
}
