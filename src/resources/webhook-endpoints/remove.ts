import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';

// Removing an endpoint, however it happens (DELETE, revoking the key that added it, 410 Gone from
// an endpoint added through the API): it stops receiving events, its pending retries stop, its
// secrets cease to exist, and its delivery history stays readable for 30 days (spec 4.4).

/**
 * Removes the endpoints `which` picks among those not removed yet, inside the caller's
 * transaction; returns the ids removed.
 */
export async function removeEndpoints(trx: Db, which: (eb: ExpressionBuilder<Database, 'webhook_endpoints'>) => Expression<SqlBool>, now: Date): Promise<string[]> {
  const removed = await trx
    .updateTable('webhook_endpoints')
    .set({ deleted_at: now, secret_encrypted: null, previous_secret_encrypted: null, previous_secret_expires_at: null })
    .where(which)
    .where('deleted_at', 'is', null)
    .returning('id')
    .execute();
  const ids = removed.map((row) => row.id);
  await cancelPendingDeliveries(trx, ids, now);
  return ids;
}

/** Stops the pending deliveries of removed endpoints: their retries are not sent. */
export async function cancelPendingDeliveries(db: Db, endpointIds: readonly string[], now: Date): Promise<void> {
  if (endpointIds.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'canceled', next_attempt_at: null, finished_at: now })
    .where('endpoint_id', 'in', [...endpointIds])
    .where('status', '=', 'pending')
    .execute();
}
