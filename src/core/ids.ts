import { randomBytes } from 'node:crypto';

// Typed, prefixed ids (spec: pay_, ord_, cus_, chk_, we_, evt_; ours: biz_, key_, per_).
export type IdPrefix = 'pay' | 'ord' | 'cus' | 'chk' | 'we' | 'evt' | 'dlv' | 'biz' | 'key' | 'per';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 text from the CSPRNG (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
