import type { TestApp } from './harness.ts';

/**
 * Makes the rates the database holds (a fresh install's placeholders: EUR 1.08, GBP 1.27, CAD
 * 0.73, AUD 0.66) the feed's, of the app's current time, so Live starts in those currencies lock
 * them (a placeholder is refused in Live, and a rate is refused once older than the bound).
 */
export async function freshRates(t: TestApp): Promise<void> {
  await t.db.updateTable('fx_rates').set({ reference_at: t.clock.now() }).execute();
}
