import { ApiError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import type { Role } from '../db/schema.ts';
import { BUSINESS_STATE_COLUMNS, type BusinessState } from '../tenancy/businesses.ts';
import { scopesForRole, type Principal } from './principal.ts';
import { hashSecret } from './secret-keys.ts';
import { sessionOf, type DashboardSession, type SessionDeps } from './sessions.ts';

// People in the dashboard act in one business and one mode at a time, with their role there.

/**
 * The principal of a signed-in person acting in a business and mode; not_found when they are
 * not a member, so a business that is not theirs looks like one that does not exist.
 */
export async function personPrincipal(db: Db, person: SignedInPerson, businessId: string, livemode: boolean): Promise<Principal> {
  const row = await db.selectFrom('memberships as m').innerJoin('businesses as b', 'b.id', 'm.business_id')
    .select(['m.role', ...BUSINESS_STATE_COLUMNS.map((column) => `b.${column}` as const)])
    .where('m.business_id', '=', businessId).where('m.person_id', '=', person.personId)
    .executeTakeFirst();
  if (!row) throw notYours(businessId);
  const { role, ...business } = row;
  return principalOf(person, role, business, livemode);
}

/** A person as a principal is built for: from their session, which says when they signed in. */
type SignedInPerson = { personId: string; email: string; signedInAt?: Date };

const notYours = (businessId: string) => new ApiError('not_found', `No business with id '${businessId}' is yours.`);

/** A person's principal with their role in a business, in one mode. */
function principalOf(person: SignedInPerson, role: Role, business: BusinessState, livemode: boolean): Principal {
  return {
    businessId: business.id,
    livemode,
    scopes: new Set(scopesForRole(role)),
    actor: { kind: 'person', personId: person.personId, email: person.email, role, signedInAt: person.signedInAt ?? null },
    business,
  };
}

/**
 * A page of a business in one query: the session (undefined when there is none or it ended),
 * and the person's principal in that business and mode (not_found when they are not a member).
 */
export async function sessionIn(deps: SessionDeps, sessionId: string | undefined, businessId: string, livemode: boolean): Promise<{ session: DashboardSession; principal: Principal; expiresAt: Date } | undefined> {
  if (!sessionId) return undefined;
  const row = await deps.db.selectFrom('dashboard_sessions as s').innerJoin('people as p', 'p.id', 's.person_id')
    .leftJoin('memberships as m', (join) => join.onRef('m.person_id', '=', 's.person_id').on('m.business_id', '=', businessId))
    .leftJoin('businesses as b', 'b.id', 'm.business_id')
    .select(['s.person_id', 's.csrf_token', 's.expires_at', 's.created_at', 'p.email', 'p.time_zone', 'm.role', ...BUSINESS_STATE_COLUMNS.map((column) => `b.${column}` as const)])
    .where('s.id_hash', '=', hashSecret(sessionId)).executeTakeFirst();
  if (!row || row.expires_at <= deps.clock.now()) return undefined;
  const session = sessionOf(row);
  const { role, id, name, status, commerce, disabled_integrations, payout_wallet, crypto_enabled, fee_bps } = row;
  // Left joins: no membership, no business columns.
  if (role === null || id === null || name === null || status === null || commerce === null || disabled_integrations === null || crypto_enabled === null || fee_bps === null) {
    throw notYours(businessId);
  }
  const business = { id, name, status, commerce, disabled_integrations, payout_wallet, crypto_enabled, fee_bps };
  return { session, expiresAt: row.expires_at, principal: principalOf(session, role, business, livemode) };
}
