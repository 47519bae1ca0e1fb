import type { Updateable } from 'kysely';
import { recordActivity } from '../../audit/activity.ts';
import { announceAuthChange } from '../../db/auth-changes.ts';
import type { Db } from '../../db/database.ts';
import type { BusinessesTable, Integration } from '../../db/schema.ts';
import { INTEGRATIONS } from '../../tenancy/businesses.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { mailPayoutWalletChanged } from './payout-wallet-mail.ts';
import { toBusinessOut, type BusinessOut } from './schemas.ts';

export interface BusinessChanges extends Omit<Updateable<BusinessesTable>, 'id' | 'name' | 'created_at' | 'updated_at' | 'disabled_integrations'> {
  disable?: Integration[] | undefined;
  enable?: Integration[] | undefined;
}

/**
 * Changes the caller's business (under its row lock, so concurrent changes of the integrations
 * do not undo each other). Every credential of the business carries its state, so caches are
 * told at once. A new payout wallet is recorded on its own and mailed to every owner. `first`
 * runs in the same transaction before anything changes (a confirmation claimed).
 */
export async function changeBusiness(ctx: OperationContext, changes: BusinessChanges, action: string, first?: (trx: Db) => Promise<void>): Promise<BusinessOut> {
  const { principal } = ctx;
  const { disable, enable, ...columns } = changes;
  const now = ctx.clock.now();
  const updated = await ctx.db.transaction().execute(async (trx) => {
    await first?.(trx);
    const current = await trx.selectFrom('businesses').select(['disabled_integrations', 'payout_wallet']).where('id', '=', principal.businessId).forUpdate().executeTakeFirstOrThrow();
    const disabled = new Set(current.disabled_integrations);
    for (const integration of disable ?? []) disabled.add(integration);
    for (const integration of enable ?? []) disabled.delete(integration);
    const set = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
    const row = await trx.updateTable('businesses')
      .set({ ...set, disabled_integrations: INTEGRATIONS.filter((i) => disabled.has(i)), updated_at: now })
      .where('id', '=', principal.businessId).returningAll().executeTakeFirstOrThrow();
    await recordActivity(trx, principal, action, principal.businessId, changes as Record<string, unknown>, now);
    // Where money goes changed: its own line in the activity, and every owner is told.
    const from = current.payout_wallet;
    if (columns.payout_wallet !== undefined && (from ?? '').toLowerCase() !== (row.payout_wallet ?? '').toLowerCase()) {
      await recordActivity(trx, principal, 'business.payout_wallet_changed', principal.businessId, { from, to: row.payout_wallet }, now);
      await mailPayoutWalletChanged(trx, ctx, { from, to: row.payout_wallet, at: now });
    }
    return row;
  });
  announceAuthChange();
  return toBusinessOut(updated);
}
