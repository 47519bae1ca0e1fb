import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, signatureHex, verifySignature } from '../../src/webhooks/signature.ts';

// Fixed vectors pinning the spec 6.4 scheme: hex HMAC-SHA-256, keyed with the secret, of
// "<t>.<raw body>" as UTF-8 bytes. The expected hex values were computed outside the service with
//   printf '%s' '<t>.<body>' | openssl dgst -sha256 -hmac '<secret>' -hex
// and are checked here against node:crypto and against the service's signer and verifier.

const SECRET = 'whsec_vector_secret_0001';
const T = 1767225600;

const VECTORS: Array<{ name: string; secret: string; t: number; body: string; hex: string }> = [
  {
    name: 'a notice body',
    secret: SECRET, t: T, body: '{"id":"ntc_vector_1","type":"deposit.confirmed","amount":"40.000000"}',
    hex: '094d8b43ec729be9ab644cc5eb947b3ab6c4a6a2d7b5f38366938639fb1b500c',
  },
  { name: 'an empty body', secret: SECRET, t: T, body: '', hex: '579ce92ff3bc8d93d8fd5baf0790b0c8d7a16dd1bfd27cd0fbb4fc4ac9658942' },
  { name: 'non-ASCII text (UTF-8 bytes)', secret: SECRET, t: T, body: '{"memo":"café ☕"}', hex: 'ab96056dda45777b026918bb7b8467a61d8612af915146e6e52a946a9305d29b' },
  {
    name: 'another secret and timestamp',
    secret: 'another-secret', t: T + 300, body: '{"id":"ntc_vector_1","type":"deposit.confirmed","amount":"40.000000"}',
    hex: '5a2c74611296d7dc9ba72cc46cf28d11e824c346f0b97ef4281bf80e88cd739c',
  },
];

describe('signature vectors (spec 6.4)', () => {
  it.each(VECTORS)('$name: node:crypto gives the pinned hex', ({ secret, t, body, hex }) => {
    expect(createHmac('sha256', secret).update(Buffer.from(`${t}.${body}`, 'utf8')).digest('hex')).toBe(hex);
  });

  it.each(VECTORS)('$name: the service signs it the same way', ({ secret, t, body, hex }) => {
    expect(signatureHex(secret, t, body)).toBe(hex);
    expect(signatureHeader([secret], t, body)).toBe(`t=${t},v1=${hex}`);
    expect(signatureHex(secret, t, body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each(VECTORS)('$name: the service verifies it within the tolerance and refuses it outside', ({ secret, t, body, hex }) => {
    const header = `t=${t},v1=${hex}`;
    expect(verifySignature(header, secret, body, t)).toEqual({ ok: true });
    expect(verifySignature(header, secret, body, t + 300)).toEqual({ ok: true });
    expect(verifySignature(header, secret, body, t - 300)).toEqual({ ok: true });
    expect(verifySignature(header, secret, body, t + 301).ok).toBe(false);
    expect(verifySignature(header, secret, body, t - 301).ok).toBe(false);
    expect(verifySignature(header, `${secret}x`, body, t).ok).toBe(false);
    expect(verifySignature(header, secret, `${body} `, t).ok).toBe(false);
    expect(verifySignature(`t=${t},v1=${hex.toUpperCase()}`, secret, body, t).ok).toBe(false);
  });

  it('a roll overlap: two v1 values, one of them matching, verify', () => {
    const [vector] = VECTORS;
    if (!vector) throw new Error('no vector');
    const other = 'f'.repeat(64);
    expect(verifySignature(`t=${vector.t},v1=${other},v1=${vector.hex}`, vector.secret, vector.body, vector.t)).toEqual({ ok: true });
    expect(verifySignature(`t=${vector.t},v1=${vector.hex},v1=${other}`, vector.secret, vector.body, vector.t)).toEqual({ ok: true });
    expect(verifySignature(`t=${vector.t},v1=${other}`, vector.secret, vector.body, vector.t).ok).toBe(false);
  });
});
