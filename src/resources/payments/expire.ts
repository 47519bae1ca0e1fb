import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { AppContext } from '../../verbs/context.ts';
import { applyMove } from './machine.ts';

/**
 * Expires every unpaid payment whose time is up, each in its own transaction with its
 * payment.expired event. Several workers can sweep at once: a payment another worker holds is
 * skipped. Returns how many were expired.
 */
export async function expireDuePayments(ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'jobs' | 'paymentMails'>): Promise<number> {
  let expired = 0;
  for (;;) {
    const now = ctx.clock.now();
    const done = await ctx.db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('payments')
        .select('id')
        .where('status', 'in', ['open', 'pending'])
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!due) return false;
      await applyMove(trx, ctx, due.id, 'expire', { where: sql<boolean>`expires_at <= ${now}` });
      return true;
    });
    if (!done) return expired;
    expired += 1;
  }
}

/**
 * The expiry time of the unexpired payment most overdue for expiry (null when none is): how far
 * the sweep is behind. The first entry of the partial index payments_due.
 */
export async function oldestUnexpiredDueAt(db: Db, now: Date): Promise<Date | null> {
  const row = await db.selectFrom('payments').select('expires_at')
    .where('status', 'in', ['open', 'pending'])
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(1)
    .executeTakeFirst();
  return row?.expires_at ?? null;
}
