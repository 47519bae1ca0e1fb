import type { Updateable } from 'kysely';
import { recordActivity } from '../../audit/activity.ts';
import { announceAuthChange } from '../../db/auth-changes.ts';
import type { BusinessesTable, Integration } from '../../db/schema.ts';
import { INTEGRATIONS } from '../../tenancy/businesses.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { toBusinessOut, type BusinessOut } from './schemas.ts';

export interface BusinessChanges extends Omit<Updateable<BusinessesTable>, 'id' | 'name' | 'created_at' | 'updated_at' | 'disabled_integrations'> {
  disable?: Integration[] | undefined;
  enable?: Integration[] | undefined;
}

/**
 * Changes the caller's business (under its row lock, so concurrent changes of the integrations
 * do not undo each other). Every credential of the business carries its state, so caches are
 * told at once.
 */
export async function changeBusiness(ctx: OperationContext, changes: BusinessChanges, action: string): Promise<BusinessOut> {
  const { principal } = ctx;
  const { disable, enable, ...columns } = changes;
  const now = ctx.clock.now();
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('businesses').select('disabled_integrations').where('id', '=', principal.businessId).forUpdate().executeTakeFirstOrThrow();
    const disabled = new Set(current.disabled_integrations);
    for (const integration of disable ?? []) disabled.add(integration);
    for (const integration of enable ?? []) disabled.delete(integration);
    const set = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
    const row = await trx.updateTable('businesses')
      .set({ ...set, disabled_integrations: INTEGRATIONS.filter((i) => disabled.has(i)), updated_at: now })
      .where('id', '=', principal.businessId).returningAll().executeTakeFirstOrThrow();
    await recordActivity(trx, principal, action, principal.businessId, changes as Record<string, unknown>, now);
    return row;
  });
  announceAuthChange();
  return toBusinessOut(updated);
}
