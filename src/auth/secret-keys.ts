import { hash } from 'node:crypto';
import { randomBase62 } from '../core/ids.ts';

// Secret keys: `sk_test_` or `sk_live_` followed by 32 base62 characters (190 bits).
// Only the SHA-256 is stored; a fast hash suits a random secret of this strength, and the
// lookup by hash means no secret is ever compared in application code.
export const KEY_PREFIX = 'sk';
const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

export function generateSecretKey(livemode: boolean): string {
  return `${KEY_PREFIX}_${livemode ? 'live' : 'test'}_${randomBase62(32)}`;
}

export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

/** The mode a well-formed key names, or null when the text is not a secret key at all. */
export function secretKeyMode(text: string): { livemode: boolean } | null {
  const match = KEY_PATTERN.exec(text);
  return match ? { livemode: match[1] === 'live' } : null;
}

/** What the dashboard and CLI may show of a key after creation. */
export function secretHint(secret: string): string {
  return `${secret.slice(0, 8)}…${secret.slice(-4)}`;
}
