import type { ReferenceDay } from './reference-rates.ts';

// USD per unit of each price currency from rates quoted per euro: USD per EUR is the euro's USD
// rate; USD per GBP is (USD per euro) / (GBP per euro). Exact decimal arithmetic in BigInt,
// rounded half up to the 8 places fx_rates keeps. A value that is not a plain positive decimal,
// or a result no currency of ours has come near (outside 0.2 to 5 USD per unit), is refused.

export const PRICED_CURRENCIES = ['EUR', 'GBP', 'CAD', 'AUD'] as const;
export type PricedCurrency = (typeof PRICED_CURRENCIES)[number];

/** USD per unit a rate must fall within: a factor of 3 to 5 around where these currencies have ever been. */
export const PLAUSIBLE_USD_PER_UNIT = { min: '0.2', max: '5' } as const;

const FEED_PLACES = 10;
const STORED_PLACES = 8;
const FEED_VALUE = /^\d{1,9}(\.\d{1,10})?$/;

/** A decimal string as an integer of `places` decimal places (the value is known to fit). */
function scaled(value: string, places: number): bigint {
  const [whole = '0', fraction = ''] = value.split('.');
  return BigInt(whole) * 10n ** BigInt(places) + BigInt(fraction.padEnd(places, '0').slice(0, places));
}

function decimal(value: bigint, places: number): string {
  const unit = 10n ** BigInt(places);
  return `${value / unit}.${(value % unit).toString().padStart(places, '0')}`;
}

/** numerator / denominator (both scaled alike) to `places` places, half up. */
function divide(numerator: bigint, denominator: bigint, places: number): bigint {
  return (numerator * 10n ** BigInt(places) * 2n + denominator) / (denominator * 2n);
}

export type Derived = { currency: PricedCurrency; usdPerUnit: string } | { currency: PricedCurrency; refused: string };

function feedValue(day: ReferenceDay, currency: string): bigint | string {
  if (day.ambiguous.has(currency)) return `${currency} is given twice`;
  const value = day.perEuro.get(currency);
  if (value === undefined) return `${currency} is missing`;
  if (!FEED_VALUE.test(value)) return `${currency}'s rate "${value.slice(0, 20)}" is not a positive decimal`;
  const amount = scaled(value, FEED_PLACES);
  return amount > 0n ? amount : `${currency}'s rate is zero`;
}

/** Each priced currency's USD per unit, or why it is refused. */
export function usdPerUnit(day: ReferenceDay): Derived[] {
  const usd = feedValue(day, 'USD');
  return PRICED_CURRENCIES.map((currency): Derived => {
    if (typeof usd === 'string') return { currency, refused: usd };
    const perEuro = currency === 'EUR' ? 10n ** BigInt(FEED_PLACES) : feedValue(day, currency);
    if (typeof perEuro === 'string') return { currency, refused: perEuro };
    const result = divide(usd, perEuro, STORED_PLACES);
    const min = scaled(PLAUSIBLE_USD_PER_UNIT.min, STORED_PLACES);
    const max = scaled(PLAUSIBLE_USD_PER_UNIT.max, STORED_PLACES);
    const value = decimal(result, STORED_PLACES);
    if (result < min || result > max) {
      return { currency, refused: `1 ${currency} = ${value} USD is outside ${PLAUSIBLE_USD_PER_UNIT.min} to ${PLAUSIBLE_USD_PER_UNIT.max}` };
    }
    return { currency, usdPerUnit: value };
  });
}

/** How far `next` is from `previous`, as a fraction of `previous` (both decimal strings). */
export function relativeChange(previous: string, next: string): number {
  const before = scaled(previous, STORED_PLACES);
  const after = scaled(next, STORED_PLACES);
  const difference = after > before ? after - before : before - after;
  return before === 0n ? Infinity : Number((difference * 1_000_000n) / before) / 1_000_000;
}
