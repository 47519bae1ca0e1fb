import { sql } from 'kysely';
import { HOUR, type Clock } from '../../core/clock.ts';
import { ApiError } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import type { PricedCurrency } from './derive.ts';

// USD per unit of each price currency: what locks a payment's USD value when it starts (the hold
// check compares what arrives with it). Service-wide; no business owns them. Two sources: the
// feed (fx_rates, refreshed by the workers, refresh.ts) and the operator's override
// (fx_rate_overrides, `rates set`), which wins while it is set. A rate's age is counted from the
// time it is of: the feed's reference day, or when the operator set it.

export type RateSource = 'operator' | 'feed' | 'placeholder';

export interface RateInEffect {
  usdPerUnit: string;
  /** The time the rate is of; null for the placeholders migration 0003 wrote. */
  asOf: Date | null;
  source: RateSource;
}

/** Each currency's rate in effect, as a query: the operator's while set, else the feed's. */
export function ratesInEffect(db: Db) {
  return db.selectFrom('fx_rates as f').leftJoin('fx_rate_overrides as o', 'o.currency', 'f.currency').select([
    'f.currency',
    sql<string>`coalesce(o.usd_per_unit, f.usd_per_unit)::text`.as('usd_per_unit'),
    sql<Date | null>`CASE WHEN o.currency IS NULL THEN f.reference_at ELSE o.set_at END`.as('as_of'),
    sql<RateSource>`CASE WHEN o.currency IS NOT NULL THEN 'operator' WHEN f.reference_at IS NULL THEN 'placeholder' ELSE 'feed' END`.as('source'),
  ]);
}

/** The rate in effect as JSON from a row of ratesInEffect (for reads that take it along in one statement). */
export interface RateInEffectJson {
  usd_per_unit: string;
  as_of: string | null;
  source: RateSource;
}

export function rateFromJson(json: RateInEffectJson | null): RateInEffect | null {
  return json && { usdPerUnit: json.usd_per_unit, asOf: json.as_of === null ? null : new Date(json.as_of), source: json.source };
}

const when = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The USD per unit a start locks (spec 3, "open -> open"). USD is 1. Test mode takes whatever
 * rate there is. Live refuses a rate of no known time or older than the bound, with
 * `409 exchange_rate_unavailable`, before anything is written.
 */
export function usableRate(currency: string, rate: RateInEffect | null, context: { livemode: boolean; now: Date; maxAgeHours: number }): string {
  if (currency === 'USD') return '1';
  if (rate && !context.livemode) return rate.usdPerUnit;
  const after = 'Try again later; prices in USD are not affected.';
  if (!rate || rate.asOf === null) {
    throw new ApiError('exchange_rate_unavailable', `Live payments in ${currency} cannot start yet: the service has no ${currency} exchange rate from its rate source. ${after}`);
  }
  if (context.now.getTime() - rate.asOf.getTime() > context.maxAgeHours * HOUR) {
    throw new ApiError('exchange_rate_unavailable',
      `Live payments in ${currency} cannot start right now: the newest ${currency} exchange rate is of ${when(rate.asOf)}, older than the ${context.maxAgeHours} hours allowed. ${after}`);
  }
  return rate.usdPerUnit;
}

/** The rate a start in this currency and mode would lock, read now (for a check before anything is written). */
export async function requireUsableRate(ctx: { db: Db; clock: Clock; config: { fxRates: { maxAgeHours: number } } }, currency: string, livemode: boolean): Promise<string> {
  if (currency === 'USD') return '1';
  const row = await ratesInEffect(ctx.db).where('f.currency', '=', currency).executeTakeFirst();
  const rate = row ? { usdPerUnit: row.usd_per_unit, asOf: row.as_of, source: row.source } : null;
  return usableRate(currency, rate, { livemode, now: ctx.clock.now(), maxAgeHours: ctx.config.fxRates.maxAgeHours });
}

export interface FxRateOut {
  currency: string;
  /** The rate in effect. */
  usd_per_unit: string;
  /** Where it comes from: the operator's override, the feed, or the placeholder of a fresh install. */
  source: RateSource;
  /** The time the rate is of (ISO 8601), null for a placeholder. */
  as_of: string | null;
  age_hours: number | null;
  /** Whether a Live start may lock it (false: older than the bound, or of no known time). */
  live_usable: boolean;
  feed: { usd_per_unit: string; reference_at: string | null; stored_at: string };
  override: { usd_per_unit: string; set_at: string } | null;
}

export async function setFxRate(ctx: { db: Db; clock: Clock }, currency: PricedCurrency, usdPerUnit: string): Promise<{ currency: string; usd_per_unit: string; set_at: string }> {
  const now = ctx.clock.now();
  await ctx.db.insertInto('fx_rate_overrides').values({ currency, usd_per_unit: usdPerUnit, set_at: now })
    .onConflict((conflict) => conflict.column('currency').doUpdateSet({ usd_per_unit: usdPerUnit, set_at: now })).execute();
  return { currency, usd_per_unit: usdPerUnit, set_at: now.toISOString() };
}

/** Removes the operator's rate: the feed's applies again. Whether there was one. */
export async function clearFxRate(db: Db, currency: PricedCurrency): Promise<boolean> {
  const result = await db.deleteFrom('fx_rate_overrides').where('currency', '=', currency).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listFxRates(ctx: { db: Db; clock: Clock; config: { fxRates: { maxAgeHours: number } } }): Promise<FxRateOut[]> {
  const rows = await ctx.db.selectFrom('fx_rates as f').leftJoin('fx_rate_overrides as o', 'o.currency', 'f.currency')
    .select(['f.currency', sql<string>`f.usd_per_unit::text`.as('feed_rate'), 'f.reference_at', 'f.updated_at', sql<string | null>`o.usd_per_unit::text`.as('override_rate'), 'o.set_at'])
    .where('f.currency', '<>', 'USD').orderBy('f.currency').execute();
  const now = ctx.clock.now();
  return rows.map((row) => {
    const override = row.override_rate !== null && row.set_at !== null ? { usd_per_unit: row.override_rate, set_at: row.set_at.toISOString() } : null;
    const asOf = override ? row.set_at : row.reference_at;
    const source: RateSource = override ? 'operator' : row.reference_at === null ? 'placeholder' : 'feed';
    const usdPerUnit = override?.usd_per_unit ?? row.feed_rate;
    const ageHours = asOf === null ? null : Math.round(((now.getTime() - asOf.getTime()) / HOUR) * 10) / 10;
    return {
      currency: row.currency,
      usd_per_unit: usdPerUnit,
      source,
      as_of: asOf === null ? null : asOf.toISOString(),
      age_hours: ageHours,
      live_usable: asOf !== null && now.getTime() - asOf.getTime() <= ctx.config.fxRates.maxAgeHours * HOUR,
      feed: { usd_per_unit: row.feed_rate, reference_at: row.reference_at?.toISOString() ?? null, stored_at: row.updated_at.toISOString() },
      override,
    };
  });
}

/** The feed's last fetch, for the operator. */
export async function lastFetch(db: Db) {
  return await db.selectFrom('fx_rate_last_fetch').select(['url', 'fetched_at', 'ok', 'outcome']).executeTakeFirst() ?? null;
}
