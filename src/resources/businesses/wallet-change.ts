import { MINUTE } from '../../core/clock.ts';
import { ApiError } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import type { OperationContext } from '../../verbs/context.ts';

// A payout wallet change asked for in the dashboard waits, per owner and business, until that
// owner confirms it (migration 0023). What the three steps share: who asks, and the pending row.

/** A change not confirmed within this time is forgotten: the owner asks again. */
export const WALLET_CHANGE_TTL_MS = 60 * MINUTE;

/** The person asking, in the caller's business (the actions are people's only). */
export function askerOf(ctx: OperationContext): { businessId: string; personId: string } {
  const { actor } = ctx.principal;
  if (actor.kind !== 'person') throw new ApiError('insufficient_role', 'Only a person in the dashboard can do this.');
  return { businessId: ctx.principal.businessId, personId: actor.personId };
}

export interface PendingWalletChange {
  /** The wallet now (null: none). */
  current: string | null;
  /** The wallet asked for (null: none). */
  payout_wallet: string | null;
  requested_at: Date;
}

/** The caller's pending change, still in time, or not_found; `lock` holds its row for the transaction. */
export async function pendingWalletChange(db: Db, ctx: OperationContext, lock = false): Promise<Omit<PendingWalletChange, 'current'>> {
  const { businessId, personId } = askerOf(ctx);
  let query = db.selectFrom('payout_wallet_changes').select(['payout_wallet', 'requested_at'])
    .where('business_id', '=', businessId).where('person_id', '=', personId)
    .where('requested_at', '>', new Date(ctx.clock.now().getTime() - WALLET_CHANGE_TTL_MS));
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new ApiError('not_found', 'No payout wallet change is waiting for your confirmation (one waits an hour). Enter the new address again.');
  return row;
}

/** Retention: changes no longer confirmable (the hourly job). */
export async function forgetStaleWalletChanges(ctx: { db: Db; clock: { now(): Date } }): Promise<number> {
  const result = await ctx.db.deleteFrom('payout_wallet_changes')
    .where('requested_at', '<=', new Date(ctx.clock.now().getTime() - WALLET_CHANGE_TTL_MS)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
