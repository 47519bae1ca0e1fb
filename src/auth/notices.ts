import { MINUTE, type Clock } from '../core/clock.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { Db } from '../db/database.ts';
import { hashSecret } from './secret-keys.ts';

// One-time notices from a dashboard form to the page its redirect opens (POST, 303, GET), so a
// reload sends nothing again. A notice may carry a secret shown once (a new key's), so it is
// sealed with the service's secret box, bound to the session (by the session id's hash, as the
// session itself is stored) and a place, deleted when read, unreadable after a few minutes,
// and gone with its session.

export const NOTICE_TTL_MS = 5 * MINUTE;

export interface NoticeDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
}

export async function leaveNotice(deps: NoticeDeps, sessionId: string, place: string, message: object): Promise<void> {
  const now = deps.clock.now();
  await deps.db.insertInto('dashboard_notices').values({
    session_id_hash: hashSecret(sessionId), place, body_sealed: deps.secrets.seal(JSON.stringify(message)),
    created_at: now, expires_at: new Date(now.getTime() + NOTICE_TTL_MS),
  }).execute();
}

/**
 * Takes (deletes and returns) the session's oldest live notice for `place`. Two forms posted at
 * once from two tabs leave two notices: each redirect's page takes one, so each is shown once.
 */
export async function takeNotice(deps: NoticeDeps, sessionId: string, place: string): Promise<unknown> {
  const taken = await deps.db.deleteFrom('dashboard_notices')
    .where('id', '=', (eb) => eb.selectFrom('dashboard_notices').select('id')
      .where('session_id_hash', '=', hashSecret(sessionId)).where('place', '=', place).where('expires_at', '>', deps.clock.now())
      .orderBy('id').limit(1).forUpdate().skipLocked())
    .returning('body_sealed').executeTakeFirst();
  return taken === undefined ? undefined : JSON.parse(deps.secrets.open(taken.body_sealed));
}

/** Removes notices nobody came to read (retention; a read one is deleted when read). */
export async function forgetExpiredNotices(deps: Pick<NoticeDeps, 'db' | 'clock'>): Promise<number> {
  const deleted = await deps.db.deleteFrom('dashboard_notices').where('expires_at', '<=', deps.clock.now()).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
