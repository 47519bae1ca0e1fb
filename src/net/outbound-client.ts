import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Pool, errors as undiciErrors } from 'undici';
import type { Resolver } from './address-policy.ts';
import { Refused, vetDestination, type Destination } from './destinations.ts';
import type { OwnPorts } from './own-ports.ts';

// Requests from the service to addresses merchants and agent clients give it (webhooks, client
// metadata documents). The destination is decided before any connection: the name is resolved
// once, every answer vetted (net/destinations.ts), and the connection made to a vetted address
// with the original Host header and TLS server name, so a name that changes its answers between
// the check and the connection (DNS rebinding) reaches nothing new. Redirects are never followed.

/** Who the service says it is on every request it makes (spec 6.1 for webhooks). */
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

export interface OutboundClientOptions {
  resolveHost: Resolver;
  /** Success is a 2xx, body included, within this many milliseconds (spec: 10 seconds). */
  timeoutMs: number;
  /** Connections per origin: as many as sends run at once, so no send waits for one (and times out). */
  connectionsPerOrigin: number;
  /** Whether Test endpoints may be on this machine (http://localhost); off for a hosted service. */
  testLoopback: boolean;
  /** The service's own ports on this machine, refused even where Test may use localhost; listeners add theirs as they bind. */
  ownPorts: OwnPorts;
  /** Extra trusted certificate authorities (tests that serve https on loopback). */
  ca?: string | Buffer;
}

export interface OutboundPost {
  url: string;
  /** Live destinations must be public; Test ones may also be this machine (http://localhost). */
  livemode: boolean;
  /** Sent as application/json. */
  body: string;
  /** Further headers (a webhook's signature). */
  headers: Record<string, string>;
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

export class OutboundClient {
  readonly #options: OutboundClientOptions;
  // One connection pool per origin and vetted address; least recently used closed past MAX_POOLS.
  readonly #pools = new Map<string, Pool>();
  #closed = false;

  constructor(options: OutboundClientOptions) {
    this.#options = options;
  }

  get timeoutMs(): number {
    return this.#options.timeoutMs;
  }

  #pool(destination: Destination & { addresses: string[] }): Pool {
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

  /** One POST of a JSON body; never throws: the outcome says what happened. */
  async post(request: OutboundPost): Promise<SendOutcome> {
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
      const destination = await this.#vet(request.url, request.livemode);
      const response = await this.#pool(destination).request({
        path: `${destination.url.pathname}${destination.url.search}`,
        method: 'POST',
        headers: { ...request.headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
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
    if (this.#closed) throw new Refused('failed', 'the service is stopping');
    const destination = await this.#vet(text, true);
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
          throw new Refused('failed', `the document is larger than ${limits.maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
      const cacheControl = response.headers['cache-control'];
      return { status: response.statusCode, body: Buffer.concat(chunks).toString('utf8'), cacheControl: typeof cacheControl === 'string' ? cacheControl : null };
    } catch (error) {
      if (error instanceof Refused) throw error;
      throw new Refused('failed', describeError(error, limits.timeoutMs, false));
    }
  }

  /** Where a request may go: refused unless the name resolved and every answer passed. */
  async #vet(url: string, livemode: boolean): Promise<Destination & { addresses: string[] }> {
    const { testLoopback, ownPorts, resolveHost } = this.#options;
    const rules = { livemode, testLoopback, ownPorts, resolve: resolveHost, whenUnresolved: 'refuse' as const };
    const destination = await vetDestination(url, rules);
    if (destination.addresses === null) throw new Refused('not_public', `the name ${destination.url.hostname} did not resolve`);
    return { url: destination.url, addresses: destination.addresses };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => undefined)));
  }
}
