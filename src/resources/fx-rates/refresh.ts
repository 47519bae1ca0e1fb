import { DAY, HOUR, type Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import { relativeChange, usdPerUnit, type PricedCurrency } from './derive.ts';
import { fetchFeed, FEED_TIMEOUT_MS, shownAddress } from './fetch-feed.ts';
import { parseReferenceRates, RefusedFeed } from './reference-rates.ts';

// The workers' refresh of the feed's rates (pg-boss, hourly, and once as the workers start).
// Whatever the feed sends is hostile until checked: a body that cannot be read refuses
// everything; a currency whose rate is missing, not a positive decimal, implausible, or more
// than MAX_JUMP away from a recent stored rate is refused alone. A refused rate is logged and
// the stored one stays. A day older than the stored one never replaces it.

/** The ECB fixes its rates at 14:15 CET; a rate's age counts from noon UTC of its day, a little before. */
const REFERENCE_HOUR_UTC = 12;
/** A feed rate this far from a stored one under a week old is refused as a likely error. */
export const MAX_JUMP = 0.25;
const JUMP_WINDOW_MS = 7 * DAY;
const FEED = 'reference-rates';

export interface RefreshResult {
  /** Whether the feed was read (a refused currency still counts as read). */
  ok: boolean;
  /** What came of it, in one line (also kept for `rates list`). */
  outcome: string;
  stored: PricedCurrency[];
  /** Why each refused rate was refused. */
  refused: string[];
}

export interface RefreshContext {
  db: Db;
  clock: Clock;
  config: { fxRates: { url: string | undefined } };
}

export async function refreshFxRates(ctx: RefreshContext, options: { timeoutMs?: number; log?: (line: string) => void } = {}): Promise<RefreshResult> {
  const { url } = ctx.config.fxRates;
  if (url === undefined) return { ok: true, outcome: 'the feed is off (FX_RATES_URL=off)', stored: [], refused: [] };
  const log = options.log ?? ((line: string) => console.error(line));
  const result = await readFeed(ctx, url, options.timeoutMs ?? FEED_TIMEOUT_MS).catch((error: unknown) => {
    if (!(error instanceof RefusedFeed)) throw error;
    return { ok: false, outcome: `refused: ${error.message}`, stored: [], refused: [error.message] };
  });
  const now = ctx.clock.now();
  const shown = shownAddress(url);
  await ctx.db.insertInto('fx_rate_last_fetch').values({ feed: FEED, url: shown, fetched_at: now, ok: result.ok, outcome: result.outcome })
    .onConflict((conflict) => conflict.column('feed').doUpdateSet({ url: shown, fetched_at: now, ok: result.ok, outcome: result.outcome })).execute();
  if (result.refused.length > 0) log(`[fx-rates] ${shown}: ${result.outcome}`);
  return result;
}

async function readFeed(ctx: RefreshContext, url: string, timeoutMs: number): Promise<RefreshResult> {
  const day = parseReferenceRates(await fetchFeed(url, timeoutMs));
  const referenceAt = new Date(`${day.day}T${String(REFERENCE_HOUR_UTC).padStart(2, '0')}:00:00Z`);
  const now = ctx.clock.now();
  if (referenceAt.getTime() > now.getTime() + HOUR) throw new RefusedFeed(`its day ${day.day} is still to come`);
  const stored = new Map((await ctx.db.selectFrom('fx_rates').select(['currency', 'usd_per_unit', 'reference_at']).execute())
    .map((row) => [row.currency, row]));
  const refused: string[] = [];
  const accepted: Array<{ currency: PricedCurrency; usdPerUnit: string }> = [];
  for (const derived of usdPerUnit(day)) {
    if ('refused' in derived) {
      refused.push(derived.refused);
      continue;
    }
    const previous = stored.get(derived.currency);
    const previousAt = previous?.reference_at ?? null;
    if (previousAt !== null && previousAt.getTime() > referenceAt.getTime()) continue;
    if (previous && previousAt !== null && referenceAt.getTime() - previousAt.getTime() <= JUMP_WINDOW_MS
      && relativeChange(previous.usd_per_unit, derived.usdPerUnit) > MAX_JUMP) {
      refused.push(`1 ${derived.currency} = ${derived.usdPerUnit} USD is over ${MAX_JUMP * 100}% from ${previous.usd_per_unit} of ${previousAt.toISOString().slice(0, 10)}`);
      continue;
    }
    accepted.push(derived);
  }
  for (const { currency, usdPerUnit: rate } of accepted) {
    // Conditional, as two refreshes may overlap: a newer day stored meanwhile stays.
    await ctx.db.updateTable('fx_rates').set({ usd_per_unit: rate, reference_at: referenceAt, updated_at: now })
      .where('currency', '=', currency)
      .where((eb) => eb.or([eb('reference_at', 'is', null), eb('reference_at', '<=', referenceAt)]))
      .execute();
  }
  const parts = [`rates of ${day.day}: ${accepted.length ? accepted.map((rate) => `${rate.currency} ${rate.usdPerUnit}`).join(', ') : 'nothing new'}`];
  if (refused.length) parts.push(`refused: ${refused.join('; ')}`);
  return { ok: true, outcome: parts.join('; '), stored: accepted.map((rate) => rate.currency), refused };
}
