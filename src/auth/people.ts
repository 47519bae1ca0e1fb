import { ApiError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import { BUSINESS_STATE_COLUMNS } from '../tenancy/businesses.ts';
import { scopesForRole, type Principal } from './principal.ts';
import { hashSecret } from './secret-keys.ts';
import type { DashboardSession, SessionDeps } from './sessions.ts';

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

/**
 * A page of a business in one query: the session (undefined when there is none or it ended),
 * and the person's principal in that business and mode (not_found when they are not a member).
 */
export async function sessionIn(deps: SessionDeps, sessionId: string | undefined, businessId: string, livemode: boolean): Promise<{ session: DashboardSession; principal: Principal; expiresAt: Date } | undefined> {
  if (!sessionId) return undefined;
  const row = await deps.db.selectFrom('dashboard_sessions as s').innerJoin('people as p', 'p.id', 's.person_id')
    .leftJoin('memberships as m', (join) => join.onRef('m.person_id', '=', 's.person_id').on('m.business_id', '=', businessId))
    .leftJoin('businesses as b', 'b.id', 'm.business_id')
    .select(['s.person_id', 's.csrf_token', 's.expires_at', 'p.email', 'p.time_zone', 'm.role', ...BUSINESS_STATE_COLUMNS.map((column) => `b.${column}` as const)])
    .where('s.id_hash', '=', hashSecret(sessionId)).executeTakeFirst();
  if (!row || row.expires_at <= deps.clock.now()) return undefined;
  const session = { personId: row.person_id, email: row.email, csrfToken: row.csrf_token, timeZone: row.time_zone ?? 'UTC' };
  const { role, id, name, status, commerce, disabled_integrations, payout_wallet, crypto_enabled, fee_bps } = row;
  if (role === null || id === null || name === null || status === null || commerce === null || disabled_integrations === null || crypto_enabled === null || fee_bps === null) {
    throw new ApiError('not_found', `No business with id '${businessId}' is yours.`);
  }
  return {
    session,
    expiresAt: row.expires_at,
    principal: {
      businessId, livemode, scopes: new Set(scopesForRole(role)),
      actor: { kind: 'person', personId: session.personId, email: session.email, role },
      business: { id, name, status, commerce, disabled_integrations, payout_wallet, crypto_enabled, fee_bps },
    },
  };
}
