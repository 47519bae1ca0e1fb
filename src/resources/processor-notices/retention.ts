import { DAY, type Clock } from '../../core/clock.ts';
import { BATCH, inBatches } from '../../db/batches.ts';
import type { Db } from '../../db/database.ts';

/** Notices that changed nothing (refused, duplicates) stay this long, like the delivery log (spec 8). */
export const PROCESSOR_NOTICE_RETENTION_MS = 30 * DAY;

/**
 * The notice log's retention: what changed nothing goes after 30 days. An applied notice stays
 * with its payment: it is the evidence of what the processor said moved the payment (its timeline).
 */
export async function forgetOldProcessorNotices(ctx: { db: Db; clock: Clock }): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - PROCESSOR_NOTICE_RETENTION_MS);
  return inBatches(async () => {
    const gone = await ctx.db.deleteFrom('processor_notices').where('id', 'in', (eb) => eb.selectFrom('processor_notices').select('id')
      .where('received_at', '<=', cutoff).where('outcome', '!=', 'applied').limit(BATCH)).executeTakeFirst();
    return Number(gone.numDeletedRows);
  });
}
