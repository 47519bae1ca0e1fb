// Money is integer minor units inside and a two-decimal string at the edge (never a float).
export const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const MIN_AMOUNT_MINOR = 100;
export const MAX_AMOUNT_MINOR = 10_000_000;

/** A plain decimal with at most two decimals (also published as the JSON Schema `pattern` of amounts). */
export const DECIMAL = /^(0|[1-9]\d{0,8})(\.\d{1,2})?$/;

/** "12.5" -> 1250; null when the text is not a plain decimal with at most two decimals. */
export function parseAmount(text: string): number | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = Number(match[1]);
  const fraction = (match[2] ?? '').slice(1).padEnd(2, '0');
  return whole * 100 + Number(fraction);
}

export function formatAmount(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** An amount with its currency, as the service's sentences say it: "60.00 USD". */
export function formatMoney(minor: number, currency: string): string {
  return `${formatAmount(minor)} ${currency}`;
}
