import { request } from 'undici';
import { RefusedFeed } from './reference-rates.ts';

// One fetch of the rate feed, bounded: the whole answer within the time limit (a server that
// sends a byte a second is cut off, not waited for), at most MAX_FEED_BYTES read (the daily file
// is about 1.5 KiB), a 200 only (redirects are not followed), and UTF-8 that decodes cleanly.
// The address is the operator's setting, not a merchant's, so it is not vetted like a webhook's.

export const MAX_FEED_BYTES = 64 * 1024;
export const FEED_TIMEOUT_MS = 10_000;

const USER_AGENT = 'payment-service-rates/1.0';

export async function fetchFeed(url: string, timeoutMs: number = FEED_TIMEOUT_MS): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response;
  try {
    response = await request(url, { signal, headers: { 'user-agent': USER_AGENT, accept: 'application/xml, text/xml' } });
  } catch (error) {
    throw new RefusedFeed(signal.aborted ? `no answer within ${timeoutMs / 1000} seconds` : `the request failed: ${describe(error)}`);
  }
  const { statusCode, headers, body } = response;
  try {
    if (statusCode !== 200) throw new RefusedFeed(`it answered HTTP ${statusCode}`);
    const declared = Number(headers['content-length']);
    if (declared > MAX_FEED_BYTES) throw new RefusedFeed(`its body is over ${MAX_FEED_BYTES / 1024} KiB`);
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > MAX_FEED_BYTES) throw new RefusedFeed(`its body is over ${MAX_FEED_BYTES / 1024} KiB`);
      chunks.push(chunk);
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw new RefusedFeed('its body is not UTF-8 text');
    }
  } catch (error) {
    // Nothing more is read: the connection goes (undici reports the abort as an error, wanted here).
    body.on('error', () => undefined).destroy();
    if (error instanceof RefusedFeed) throw error;
    throw new RefusedFeed(signal.aborted ? `the whole answer did not arrive within ${timeoutMs / 1000} seconds` : `reading it failed: ${describe(error)}`);
  }
}

/** The feed's address as logs and `rates list` show it: without a password or a query, which may hold a key. */
export function shownAddress(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}
