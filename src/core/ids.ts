import { randomFillSync } from 'node:crypto';

// Typed, prefixed ids (spec: pay_, ord_, cus_, chk_, we_, evt_; ours: biz_, key_, per_).
export type IdPrefix = 'pay' | 'ord' | 'cus' | 'chk' | 'we' | 'evt' | 'dlv' | 'biz' | 'key' | 'per' | 'con' | 'trk' | 'apr' | 'mov' | 'x4a';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// CSPRNG bytes drawn a pool at a time (as crypto.randomUUID does): one call per 4 KiB, not per id.
const POOL = Buffer.alloc(4096);
let next = POOL.length;

function randomByte(): number {
  if (next === POOL.length) {
    randomFillSync(POOL);
    next = 0;
  }
  const byte = POOL[next] as number;
  // Each byte is used once.
  POOL[next++] = 0;
  return byte;
}

/** Uniform base62 text from the CSPRNG (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
