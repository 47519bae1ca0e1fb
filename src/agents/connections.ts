import { recordActivity, type ActivitySubject } from '../audit/activity.ts';
import type { Principal } from '../auth/principal.ts';
import type { Clock } from '../core/clock.ts';
import { announceAuthChange } from '../db/auth-changes.ts';
import type { Db } from '../db/database.ts';
import type { AgentConnectionRow } from '../db/schema.ts';

/**
 * Disconnects an agent: its access tokens stop working at once (credential caches are told) and
 * its refresh tokens expire. `by` is who did it: a person or operator, or the service itself (a
 * stolen refresh token, a client revoking its own token). False when it was disconnected already.
 */
export async function disconnectConnection(deps: { db: Db; clock: Clock }, connection: Pick<AgentConnectionRow, 'id' | 'business_id' | 'livemode'>, why: string, by: Principal | string): Promise<boolean> {
  const now = deps.clock.now();
  const subject: Principal | ActivitySubject = typeof by === 'string' ? { businessId: connection.business_id, livemode: connection.livemode, actor: by } : by;
  const done = await deps.db.transaction().execute(async (trx) => {
    const row = await trx.updateTable('agent_connections').set({ disconnected_at: now, disconnected_why: why })
      .where('id', '=', connection.id).where('disconnected_at', 'is', null).returning('id').executeTakeFirst();
    if (!row) return false;
    await trx.updateTable('oauth_refresh_tokens').set({ expires_at: now }).where('connection_id', '=', connection.id).where('expires_at', '>', now).execute();
    await recordActivity(trx, subject, 'agent.disconnected', connection.id, { why }, now);
    return true;
  });
  if (done) announceAuthChange();
  return done;
}
