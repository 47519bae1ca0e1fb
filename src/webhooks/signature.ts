import { createHmac, timingSafeEqual } from 'node:crypto';

// The signature scheme of spec 6.4: `t=<unix seconds>,v1=<hex>` where hex is HMAC-SHA-256,
// keyed with the secret, of `<t>.<raw body>`. Our webhooks are signed with it, and the payment
// processor signs its notices to us the same way.

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signatureHex(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The header value; several secrets (a roll's overlap) give several v1 entries. */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signatureHex(secret, timestamp, body)}`)].join(',');
}

/** Why a signature was refused, as a short stable word (a metric's label). */
export type SignatureRefusal = 'missing' | 'malformed' | 'stale' | 'mismatch';
export type Verification = { ok: true } | { ok: false; refusal: SignatureRefusal; reason: string };

/** Checks a signature header against one secret, with the 300-second tolerance, in constant time. */
export function verifySignature(header: string | undefined, secret: string, body: string, nowSeconds: number): Verification {
  if (!header) return { ok: false, refusal: 'missing', reason: 'no signature header' };
  const parts = header.split(',').map((part) => part.trim());
  const t = parts.find((part) => /^t=\d{1,12}$/.test(part));
  const signatures = parts.filter((part) => /^v1=[0-9a-f]{64}$/.test(part)).map((part) => part.slice(3));
  if (!t || signatures.length === 0 || parts.length !== signatures.length + 1) return { ok: false, refusal: 'malformed', reason: 'malformed signature header' };
  const timestamp = Number(t.slice(2));
  if (Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return { ok: false, refusal: 'stale', reason: 'timestamp outside the 300-second tolerance' };
  const expected = Buffer.from(signatureHex(secret, timestamp, body), 'hex');
  const matches = signatures.some((hex) => timingSafeEqual(Buffer.from(hex, 'hex'), expected));
  return matches ? { ok: true } : { ok: false, refusal: 'mismatch', reason: 'signature does not match' };
}
