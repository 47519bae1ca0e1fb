import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/database.ts';
import type { ActivityAction, ActivityDetails } from './actions.ts';

/** Who acted, as the account activity names them: `key:…`, `agent:…`, `person:…` or `operator`. */
export function actorOf(principal: Principal): string {
  const { actor } = principal;
  switch (actor.kind) {
    case 'secret_key': return `key:${actor.keyId}`;
    case 'agent': return `agent:${actor.connectionId}`;
    case 'person': return `person:${actor.personId}`;
    case 'operator': return 'operator';
    case 'buyer': return 'buyer';
  }
}

/** Where an action happened and who did it, when no principal did (the service itself, on its own). */
export interface ActivitySubject {
  businessId: string;
  livemode: boolean;
  actor: string;
}

/** Records an action in the account's activity, with the details it records, inside the caller's transaction. */
export async function recordActivity<A extends ActivityAction>(db: Db, by: Principal | ActivitySubject, action: A, subjectId: string, details: ActivityDetails[A], now: Date): Promise<void> {
  await db
    .insertInto('activity')
    .values({
      business_id: by.businessId,
      livemode: by.livemode,
      actor: typeof by.actor === 'string' ? by.actor : actorOf(by as Principal),
      action,
      subject_id: subjectId,
      details: JSON.stringify(details),
      created_at: now,
    })
    .execute();
}
