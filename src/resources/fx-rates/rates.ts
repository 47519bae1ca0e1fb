import type { Clock } from '../../core/clock.ts';
import type { Currency } from '../../core/money.ts';
import type { Db } from '../../db/database.ts';

// USD per unit of each price currency: what locks a payment's USD value when it starts (the hold
// check compares what arrives with it). Service-wide, set by the operator; no business owns them.

export interface FxRateOut {
  currency: string;
  usd_per_unit: string;
  updated: string;
}

export async function setFxRate(ctx: { db: Db; clock: Clock }, currency: Currency, usdPerUnit: string): Promise<FxRateOut> {
  const now = ctx.clock.now();
  await ctx.db.insertInto('fx_rates').values({ currency, usd_per_unit: usdPerUnit, updated_at: now })
    .onConflict((conflict) => conflict.column('currency').doUpdateSet({ usd_per_unit: usdPerUnit, updated_at: now })).execute();
  return { currency, usd_per_unit: usdPerUnit, updated: now.toISOString() };
}

export async function listFxRates(db: Db): Promise<FxRateOut[]> {
  const rates = await db.selectFrom('fx_rates').select(['currency', 'usd_per_unit', 'updated_at']).orderBy('currency').execute();
  return rates.map((rate) => ({ currency: rate.currency, usd_per_unit: rate.usd_per_unit, updated: rate.updated_at.toISOString() }));
}
