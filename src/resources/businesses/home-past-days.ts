import { MINUTE } from '../../core/clock.ts';

// What was paid on the days of this week before today, per business, mode and viewer's day: those
// days are over, and a payment's paid time is always the moment it became paid (never earlier), so
// their totals no longer change. Kept here, the home's statement reads only today's payments. A
// day is kept only some minutes after it ended, once a payment made paid just before midnight has
// surely committed.

export type CurrencySums = ReadonlyMap<string, { count: number; minor: number }>;

const GRACE_MS = 10 * MINUTE;
const KEPT_MAX = 10_000;
const kept = new Map<string, CurrencySums>();

const keyOf = (businessId: string, livemode: boolean, since: { today: Date; week: Date }) => `${businessId} ${livemode} ${since.week.getTime()} ${since.today.getTime()}`;

export function pastDaysOf(businessId: string, livemode: boolean, since: { today: Date; week: Date }): CurrencySums | undefined {
  return kept.get(keyOf(businessId, livemode, since));
}

export function keepPastDays(businessId: string, livemode: boolean, since: { today: Date; week: Date }, now: Date, sums: CurrencySums): void {
  if (now.getTime() - since.today.getTime() < GRACE_MS) return;
  if (kept.size >= KEPT_MAX) kept.clear();
  kept.set(keyOf(businessId, livemode, since), sums);
}
