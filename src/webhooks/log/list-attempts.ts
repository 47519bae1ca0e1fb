import { unixSeconds } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import { idInput } from '../../resources/shared/ids.ts';
import { defineAction } from '../../verbs/action.ts';
import { getTarget } from '../deliveries.ts';
import type { AttemptEntry } from './schemas.ts';

export const DeliveryIdInput = idInput('dlv');

/** Every request made for one delivery of the caller's business and mode, oldest first. */
export const listDeliveryAttempts = defineAction({
  name: 'list_delivery_attempts',
  title: 'Read a delivery\'s attempts',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: DeliveryIdInput,
  async run(ctx, input): Promise<AttemptEntry[]> {
    const target = await getTarget(ctx.db, ctx.principal, input.id);
    return attemptsOf(ctx.db, target.id);
  },
});

/** The attempts of a delivery found through the caller's business and mode, oldest first. */
export async function attemptsOf(db: Db, deliveryId: string): Promise<AttemptEntry[]> {
  const rows = await db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
  return rows.map((row) => ({
    trigger: row.trigger,
    number: row.number,
    url: row.url,
    sent: unixSeconds(row.sent_at),
    duration_ms: row.duration_ms,
    succeeded: row.succeeded,
    status_code: row.status_code,
    error: row.error,
    response_excerpt: row.response_excerpt,
  }));
}
