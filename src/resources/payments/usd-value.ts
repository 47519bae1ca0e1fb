const SCALE = 100_000_000n;

/** Exact product of minor units and a decimal rate with up to 8 places, rounded half up. */
export function convertMinor(minor: number, rate: string): number {
  const [whole = '0', fraction = ''] = rate.split('.');
  const scaled = BigInt(whole) * SCALE + BigInt(fraction.padEnd(8, '0').slice(0, 8));
  return Number((BigInt(minor) * scaled + SCALE / 2n) / SCALE);
}

