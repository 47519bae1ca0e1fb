import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Pool, errors as undiciErrors } from 'undici';
import { hostOf, isInternalHostname, isIpLiteral, isLoopbackAddress, isLoopbackHost, isPublicAddress, type Resolver } from './address-policy.ts';

// Sending one webhook request (spec 6.1): the destination is decided before any connection: the
// name is resolved once, every answer vetted, and the connection made to a vetted address with
// the original Host header and TLS server name, so a name that changes its answers between the
// check and the connection (DNS rebinding) reaches nothing new. Redirects are never followed.

export const USER_AGENT = 'Service-Webhooks/1.0';
/** How much of a response body is kept for the delivery log. */
export const EXCERPT_BYTES = 1024;
/** How much of a response body is read at most; the rest is not waited for. */
const READ_LIMIT_BYTES = 64 * 1024;
const MAX_POOLS = 256;

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  /** Why the attempt failed, for the log; null when it succeeded. */
  error: string | null;
  /** The start of the response body, for the log. */
  excerpt: string | null;
  durationMs: number;
}

export interface WebhookSenderOptions {
  resolveHost: Resolver;
  /** Success is a 2xx, body included, within this many milliseconds (spec: 10 seconds). */
  timeoutMs: number;
  /** Connections per origin: as many as sends run at once, so no send waits for one (and times out). */
  connectionsPerOrigin: number;
  /** Whether Test endpoints may be on this machine (http://localhost); off for a hosted service. */
  testLoopback: boolean;
  /** Extra trusted certificate authorities (tests that serve https on loopback). */
  ca?: string | Buffer;
}

export interface WebhookRequest {
  url: string;
  /** Live endpoints are vetted; Test endpoints may also use this machine (http://localhost). */
  livemode: boolean;
  body: string;
  signature: string;
}

export class Refused extends Error {}

interface Destination {
  url: URL;
  /** Every answer of the one resolution, each vetted; connections go to these only. */
  addresses: string[];
}

/** Where a request for `text` may go: the vetted addresses to connect to, or Refused. */
export async function destinationFor(text: string, livemode: boolean, resolveHost: Resolver, testLoopback = true): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Refused('the endpoint address is not a valid URL');
  }
  if (url.username !== '' || url.password !== '') throw new Refused('the endpoint address contains credentials');
  const host = hostOf(url);
  const loopbackInTest = testLoopback && !livemode && isLoopbackHost(host);
  if (url.protocol !== 'https:' && !(loopbackInTest && url.protocol === 'http:')) throw new Refused(`${url.protocol} addresses are not sent to`);

  if (isIpLiteral(host)) {
    if (loopbackInTest || isPublicAddress(host)) return { url, addresses: [host] };
    throw new Refused(`${host} is not a public internet address`);
  }
  if (!loopbackInTest && isInternalHostname(host)) throw new Refused(`${host} is an internal host name`);
  let answers: string[];
  try {
    answers = await resolveHost(host);
  } catch {
    throw new Refused(`the name ${host} did not resolve`);
  }
  if (answers.length === 0) throw new Refused(`the name ${host} did not resolve`);
  // Every answer must pass, not just the one used: a name that also points inside is refused. The
  // message does not repeat the address (an internal resolver's answers are nobody's business).
  const allowed = loopbackInTest ? isLoopbackAddress : isPublicAddress;
  if (answers.some((address) => !allowed(address))) {
    throw new Refused(`${host} resolves to an address that is not ${loopbackInTest ? 'on this machine' : 'on the public internet'}`);
  }
  return { url, addresses: [...new Set(answers)].sort() };
}

/** A lookup that answers every name with the vetted addresses (all of them, so Node can fall back between families). */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  }) as unknown as LookupFunction;
}

function describeError(error: unknown, timeoutMs: number, gotHeaders: boolean): string {
  if (error instanceof Refused) return `refused: ${error.message}`;
  const name = (error as { name?: string })?.name;
  const code = (error as { code?: string })?.code;
  if (name === 'TimeoutError' || name === 'AbortError' || error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return gotHeaders ? `the response body did not complete within ${timeoutMs / 1000} seconds` : `no response within ${timeoutMs / 1000} seconds`;
  }
  if (error instanceof undiciErrors.ConnectTimeoutError) return `connecting timed out`;
  switch (code) {
    case 'ECONNREFUSED': return 'connection refused';
    case 'ECONNRESET': case 'UND_ERR_SOCKET': return 'connection closed by the endpoint';
    case 'EHOSTUNREACH': case 'ENETUNREACH': return 'host unreachable';
    default:
      if (typeof code === 'string' && (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))) return `TLS failed: ${code}`;
      return typeof code === 'string' ? `request failed: ${code}` : 'request failed';
  }
}

export class WebhookSender {
  readonly #options: WebhookSenderOptions;
  // One connection pool per origin and vetted address; least recently used closed past MAX_POOLS.
  readonly #pools = new Map<string, Pool>();
  #closed = false;

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
  }

  get timeoutMs(): number {
    return this.#options.timeoutMs;
  }

  #pool(destination: Destination): Pool {
    const key = `${destination.url.origin} ${destination.addresses.join(',')}`;
    let pool = this.#pools.get(key);
    if (pool) {
      this.#pools.delete(key);
    } else {
      pool = new Pool(destination.url.origin, {
        connections: this.#options.connectionsPerOrigin,
        connect: {
          lookup: pinnedLookup(destination.addresses),
          timeout: this.#options.timeoutMs,
          ...(this.#options.ca ? { ca: this.#options.ca } : {}),
        },
      });
      if (this.#pools.size >= MAX_POOLS) {
        const [oldestKey, oldest] = this.#pools.entries().next().value!;
        this.#pools.delete(oldestKey);
        void oldest.close().catch(() => undefined);
      }
    }
    this.#pools.set(key, pool);
    return pool;
  }

  /** One POST of the event body; never throws: the outcome says what happened. */
  async send(request: WebhookRequest): Promise<SendOutcome> {
    const started = performance.now();
    const { timeoutMs } = this.#options;
    const signal = AbortSignal.timeout(timeoutMs);
    let statusCode: number | null = null;
    let excerpt: Buffer = Buffer.alloc(0);
    const finish = (error: string | null): SendOutcome => ({
      ok: error === null,
      statusCode,
      error,
      excerpt: excerpt.length > 0 ? excerpt.toString('utf8').replace(/\uFFFD+$/, '') : null,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      if (this.#closed) throw new Error('the sender is closed');
      const destination = await destinationFor(request.url, request.livemode, this.#options.resolveHost, this.#options.testLoopback);
      const response = await this.#pool(destination).request({
        path: `${destination.url.pathname}${destination.url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'service-signature': request.signature,
        },
        body: request.body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      statusCode = response.statusCode;
      // The whole response counts toward the time limit, a slowly trickled body included.
      let read = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        if (excerpt.length < EXCERPT_BYTES) excerpt = Buffer.concat([excerpt, chunk.subarray(0, EXCERPT_BYTES - excerpt.length)]);
        read += chunk.length;
        if (read >= READ_LIMIT_BYTES) {
          response.body.destroy();
          break;
        }
      }
      if (statusCode >= 200 && statusCode < 300) return finish(null);
      if (statusCode >= 300 && statusCode < 400) return finish(`redirect (${statusCode}) not followed`);
      return finish(`the endpoint answered ${statusCode}`);
    } catch (error) {
      return finish(describeError(error, timeoutMs, statusCode !== null));
    }
  }

  /**
   * GETs a small JSON document from the public internet (OAuth client metadata documents), under
   * the same address rules as a Live webhook: https, vetted, pinned, no redirects; refused past
   * `maxBytes` or `timeoutMs`. Throws Refused with a reason a person can read.
   */
  async fetchDocument(text: string, limits: { maxBytes: number; timeoutMs: number }): Promise<{ status: number; body: string; cacheControl: string | null }> {
    if (this.#closed) throw new Refused('the service is stopping');
    const destination = await destinationFor(text, true, this.#options.resolveHost);
    const signal = AbortSignal.timeout(limits.timeoutMs);
    try {
      const response = await this.#pool(destination).request({
        path: `${destination.url.pathname}${destination.url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': USER_AGENT },
        signal,
        headersTimeout: limits.timeoutMs,
        bodyTimeout: limits.timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limits.maxBytes) {
          response.body.destroy();
          throw new Refused(`the document is larger than ${limits.maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
      const cacheControl = response.headers['cache-control'];
      return { status: response.statusCode, body: Buffer.concat(chunks).toString('utf8'), cacheControl: typeof cacheControl === 'string' ? cacheControl : null };
    } catch (error) {
      if (error instanceof Refused) throw error;
      throw new Refused(describeError(error, limits.timeoutMs, false));
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => undefined)));
  }
}
