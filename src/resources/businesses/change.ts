import type { Updateable } from 'kysely';
import { recordActivity } from '../../audit/activity.ts';
import type { BusinessChangeDetails } from '../../audit/actions.ts';
import { announceAuthChange } from '../../db/auth-changes.ts';
import type { BusinessesTable, Integration } from '../../db/schema.ts';
import { INTEGRATIONS } from '../../tenancy/businesses.ts';
import type { OperationContext } from '../../verbs/context.ts';
import type { Db } from '../../db/database.ts';
import { toBusinessOut, type BusinessOut } from './schemas.ts';
import { mailPayoutWalletChanged } from './wallet-mail.ts';

export interface BusinessChanges extends Omit<Updateable<BusinessesTable>, 'id' | 'name' | 'created_at' | 'updated_at' | 'disabled_integrations'> {
  disable?: Integration[] | undefined;
  enable?: Integration[] | undefined;
}

/**
 * Changes the caller's business (under its row lock, so concurrent changes of the integrations
 * do not undo each other). Every credential of the business carries its state, so caches are
 * told at once. A new payout wallet is mailed to every owner and its activity names the old one.
 * `check` runs first under the lock, in the transaction (a confirmation's own conditions).
 */
export async function changeBusiness(ctx: OperationContext, changes: BusinessChanges, action: 'business.payout_wallet_changed' | 'business.settings_updated' | 'business.updated', check?: (trx: Db) => Promise<void>): Promise<BusinessOut> {
  const { principal } = ctx;
  const { disable, enable, ...columns } = changes;
  const now = ctx.clock.now();
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('businesses').select(['disabled_integrations', 'payout_wallet']).where('id', '=', principal.businessId).forUpdate().executeTakeFirstOrThrow();
    await check?.(trx);
    const disabled = new Set(current.disabled_integrations);
    for (const integration of disable ?? []) disabled.add(integration);
    for (const integration of enable ?? []) disabled.delete(integration);
    const set = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
    const row = await trx.updateTable('businesses')
      .set({ ...set, disabled_integrations: INTEGRATIONS.filter((i) => disabled.has(i)), updated_at: now })
      .where('id', '=', principal.businessId).returningAll().executeTakeFirstOrThrow();
    const walletChanged = columns.payout_wallet !== undefined && columns.payout_wallet !== current.payout_wallet;
    const details: BusinessChangeDetails = walletChanged ? { ...changes, payout_wallet_before: current.payout_wallet } : changes;
    await recordActivity(trx, principal, action, principal.businessId, details, now);
    if (walletChanged) await mailPayoutWalletChanged(trx, ctx, { from: current.payout_wallet, to: row.payout_wallet, at: now });
    return row;
  });
  announceAuthChange();
  return toBusinessOut(updated);
}
