import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/database.ts';

/** Who acted: a secret key or an agent connection, as the dashboard names them. */
export function actorOf(principal: Principal): string {
  return principal.kind === 'agent' ? `agent:${principal.connectionId}` : `key:${principal.keyId}`;
}

/** Where an action happened and who did it, when no principal did (the service itself, an operator). */
export interface ActivitySubject {
  businessId: string;
  livemode: boolean;
  actor: string;
}

/** Records an action in the account's activity, inside the caller's transaction. */
export async function recordActivity(db: Db, by: Principal | ActivitySubject, action: string, subjectId: string, details: Record<string, unknown>, now: Date): Promise<void> {
  await db
    .insertInto('activity')
    .values({
      business_id: by.businessId,
      livemode: by.livemode,
      actor: 'actor' in by ? by.actor : actorOf(by),
      action,
      subject_id: subjectId,
      details: JSON.stringify(details),
      created_at: now,
    })
    .execute();
}
