import type { WebhookEvent } from './webhook-event.ts';

// Webhook signatures (spec 6.4): `Service-Signature: t=<unix seconds>,v1=<64 lowercase hex>`,
// with one more v1 per extra secret while a rolled secret still signs; each v1 is HMAC-SHA-256,
// keyed with the endpoint's `whsec_…` secret, of `<t>.` followed by the exact raw body bytes.
// Web Crypto, not node:crypto, so receivers on Node, Deno, Bun and edge runtimes share it; its
// HMAC verify compares in constant time (Node: CRYPTO_memcmp), so no comparison is ours.

/** The header every delivery carries its signature in. */
export const SIGNATURE_HEADER = 'Service-Signature';
/** The spec's tolerance between a signature's timestamp and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationReason =
  /** No `Service-Signature` header (or an empty one). */
  | 'missing_signature'
  /** A header not of the form `t=<digits>,v1=<64 lowercase hex>[,v1=…]`. */
  | 'malformed_signature'
  /** No v1 matches: another secret, or a body or timestamp changed on the way. */
  | 'signature_mismatch'
  /** Signed by the endpoint, but too far from now: a replay of an old delivery, or a clock far off. */
  | 'timestamp_outside_tolerance'
  /** Signed, but not a JSON event. */
  | 'invalid_payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** Largest allowed distance between the signature's timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's current time (default: the clock), for tests and replays of stored deliveries. */
  now?: Date;
}

/** The header's value as a framework gives it (Node lists a header sent twice; that is malformed). */
export type SignatureHeader = string | readonly string[] | null | undefined;

/** The exact bytes received: verify before any parsing or re-encoding of the body. */
export type RawBody = string | Uint8Array | ArrayBuffer;

const SIGNATURE_FORM = /^t=(\d{1,15})((?:,v1=[0-9a-f]{64})+)$/;
const utf8 = new TextEncoder();

/**
 * Checks a delivery's signature and returns its event. Pass the raw body as received, the
 * `Service-Signature` header and the endpoint's secret. Throws a WebhookVerificationError
 * naming why it refused: answer the delivery with a 4xx then (spec 6.3), so it is retried.
 */
export async function verifyWebhook(rawBody: RawBody, signatureHeader: SignatureHeader, secret: string, options: VerifyWebhookOptions = {}): Promise<WebhookEvent> {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0)) throw new TypeError('toleranceSeconds must be a number of seconds, 0 or more.');
  const header = typeof signatureHeader === 'string' || !signatureHeader ? signatureHeader : signatureHeader.length === 1 ? signatureHeader[0] : ',';
  if (!header) throw new WebhookVerificationError('missing_signature', `The request has no ${SIGNATURE_HEADER} header.`);
  const form = SIGNATURE_FORM.exec(header.trim());
  if (!form) throw new WebhookVerificationError('malformed_signature', `The ${SIGNATURE_HEADER} header is not of the form t=<unix seconds>,v1=<64 lowercase hex>.`);
  const timestamp = form[1]!;
  const candidates = form[2]!.split(',v1=').slice(1);

  const body = bytesOf(rawBody);
  const key = await crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const signed = concat(utf8.encode(`${timestamp}.`), body);
  const verdicts = await Promise.all(candidates.map((hex) => crypto.subtle.verify('HMAC', key, hexBytes(hex), signed)));
  if (!verdicts.includes(true)) throw new WebhookVerificationError('signature_mismatch', 'No signature matches this secret and body.');

  // Checked after the signature, which covers the timestamp: a refusal here is a genuine delivery, late.
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const skew = now - Number(timestamp);
  if (Math.abs(skew) > tolerance) {
    throw new WebhookVerificationError('timestamp_outside_tolerance', `The signature was made ${Math.abs(skew)} seconds ${skew > 0 ? 'ago' : 'from now'}, beyond the ${tolerance}-second tolerance.`);
  }

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not JSON.');
  }
  const envelope = event as Partial<WebhookEvent> | null;
  if (typeof envelope !== 'object' || envelope === null || typeof envelope.id !== 'string' || typeof envelope.type !== 'string' || typeof envelope.data !== 'object') {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not an event (id, type, data).');
  }
  return event as WebhookEvent;
}

/**
 * A `Service-Signature` value for `rawBody`, as the service makes it: for a receiver's own tests.
 * Several secrets give several v1 values, as during a secret roll.
 */
export async function signWebhook(rawBody: RawBody, secrets: string | readonly string[], timestamp: number = Math.floor(Date.now() / 1000)): Promise<string> {
  const signed = concat(utf8.encode(`${timestamp}.`), bytesOf(rawBody));
  const values = await Promise.all((typeof secrets === 'string' ? [secrets] : secrets).map(async (secret) => {
    const key = await crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
    return `v1=${Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  }));
  return [`t=${timestamp}`, ...values].join(',');
}

function bytesOf(raw: RawBody): Uint8Array<ArrayBuffer> {
  if (typeof raw === 'string') return utf8.encode(raw);
  return raw instanceof ArrayBuffer ? new Uint8Array(raw) : new Uint8Array(raw);
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}
