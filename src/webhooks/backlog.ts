import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/**
 * The delivery queue as a scrape reports it: pending deliveries whose attempt is due, and the
 * earliest due time among them. Both read the partial index webhook_deliveries_due (pending
 * deliveries by next_attempt_at) and nothing else.
 */
export async function deliveryBacklog(db: Db, now: Date): Promise<{ due: number; oldestDueAt: Date | null }> {
  const row = await db.selectFrom('webhook_deliveries')
    .select([sql<number>`count(*)::int`.as('due'), sql<Date | null>`min(next_attempt_at)`.as('oldest')])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirstOrThrow();
  return { due: row.due, oldestDueAt: row.oldest };
}
