import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RefusalRecorder } from './rate-limiter.ts';
import { withTimeout } from './timeout.ts';

// The process's Prometheus metrics (prom-client), one registry per application context so test
// apps sharing a process never mix their counts. Events are counted where they happen (a
// request answered, a delivery attempt made, a rate limit refusing); what lives in the database
// (the delivery queue, expiry lag) is read by cheap indexed queries when a scraper asks.

/** What a scrape reads from outside the process's memory. */
export interface ScrapeSources {
  /** Pending deliveries whose attempt is due now, and the earliest due time among them. */
  deliveryBacklog(): Promise<{ due: number; oldestDueAt: Date | null }>;
  /** The earliest expiry time among payments that are due to expire and not expired yet. */
  oldestUnexpiredDueAt(): Promise<Date | null>;
  /** The exchange rate in effect of each non-USD price currency: where it is from and the time it is of (null: none known). */
  fxRates(): Promise<Array<{ currency: string; source: string; asOf: Date | null }>>;
  /** The age a Live start accepts of a rate (FX_RATES_MAX_AGE_HOURS), in seconds. */
  fxRateMaxAgeSeconds: number;
  /** The connection pool as node-postgres counts it. */
  pool(): { total: number; idle: number; waiting: number; max: number };
  now(): Date;
}

/** A scrape waits this long for the database before reporting its values as unknown (NaN). */
const SCRAPE_QUERY_TIMEOUT_MS = 5_000;

// Most answers take a few milliseconds: the low buckets are where a regression shows.
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DELIVERY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

const secondsBetween = (earlier: Date | null, later: Date) => earlier === null ? 0 : Math.max(0, (later.getTime() - earlier.getTime()) / 1000);

export class Metrics implements RefusalRecorder {
  readonly registry = new Registry();
  readonly #sources: ScrapeSources;
  readonly #requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route pattern and status, with their duration.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  // Children by "method route status": a label set is hashed once, not on every request.
  readonly #requestSeries = new Map<string, { observe(value: number): void }>();
  readonly #attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts sent, by result and attempt number (1 to 7; "manual" for retries and resends people ask for).',
    labelNames: ['result', 'attempt'] as const,
    registers: [this.registry],
  });
  readonly #deliveryLatency = new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'From an event\'s creation (its commit) to the send of its first delivery attempt.',
    buckets: DELIVERY_BUCKETS,
    registers: [this.registry],
  });
  readonly #refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused by a rate limit, by limit.',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  readonly #forgedNotices = new Counter({
    name: 'processor_notices_refused_total',
    help: 'Processor notices refused before anything was written: unsigned, badly signed or stale signatures, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly #due = new Gauge({ name: 'webhook_deliveries_due', help: 'Pending webhook deliveries whose attempt is due now (the delivery queue).', registers: [this.registry] });
  readonly #oldestDue = new Gauge({ name: 'webhook_oldest_due_delivery_seconds', help: 'How long the longest-waiting due delivery has been due; 0 when none is.', registers: [this.registry] });
  readonly #expiryLag = new Gauge({ name: 'payment_expiry_lag_seconds', help: 'How far past its expiry time the oldest unexpired due payment is; 0 when none is.', registers: [this.registry] });
  readonly #fxRateAge = new Gauge({
    name: 'fx_rate_age_seconds',
    help: 'Age of the exchange rate in effect per currency (from its reference day, or when the operator set it), by source; +Inf when of no known time.',
    labelNames: ['currency', 'source'] as const,
    registers: [this.registry],
  });
  readonly #fxRateMaxAge = new Gauge({ name: 'fx_rate_max_age_seconds', help: 'The age past which a Live start refuses a rate (FX_RATES_MAX_AGE_HOURS).', registers: [this.registry] });
  readonly #pool = new Gauge({ name: 'db_pool_connections', help: 'Database connections of this process\'s pool, by state (total, idle).', labelNames: ['state'] as const, registers: [this.registry] });
  readonly #poolWaiting = new Gauge({ name: 'db_pool_waiting', help: 'Queries waiting for a free database connection.', registers: [this.registry] });
  readonly #poolMax = new Gauge({ name: 'db_pool_max_connections', help: 'The pool\'s size (DB_POOL_SIZE).', registers: [this.registry] });

  constructor(sources: ScrapeSources) {
    this.#sources = sources;
  }

  /** The Node.js process's own metrics (CPU, memory, event loop lag): for the server process only. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** route: the route's pattern (`/v1/payments/:id`), never the raw path, so ids cannot multiply series. */
  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.#requestSeries.get(key);
    if (series === undefined) {
      series = this.#requests.labels(method, route, String(status));
      this.#requestSeries.set(key, series);
    }
    series.observe(seconds);
  }

  deliveryAttempted(succeeded: boolean, attempt: number | 'manual'): void {
    this.#attempts.labels(succeeded ? 'succeeded' : 'failed', String(attempt)).inc();
  }

  /** An event's first delivery attempt was sent `seconds` after the event was created. */
  firstDeliverySent(seconds: number): void {
    this.#deliveryLatency.observe(Math.max(0, seconds));
  }

  /** A notice refused at its signature: counted, never written (issue 30, must have 7). */
  noticeRefused(reason: string): void {
    this.#forgedNotices.labels(reason).inc();
  }

  refusals(limit: string): () => void {
    const counter = this.#refusals.labels(limit);
    return () => counter.inc();
  }

  /** The text exposition, with the database-backed values read now. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    await this.#refresh();
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  async #refresh(): Promise<void> {
    const sources = this.#sources;
    const pool = sources.pool();
    this.#pool.labels('total').set(pool.total);
    this.#pool.labels('idle').set(pool.idle);
    this.#poolWaiting.set(pool.waiting);
    this.#poolMax.set(pool.max);
    // A database that does not answer makes these unknown (NaN), not stale.
    const [backlog, unexpired, rates] = await Promise.allSettled([
      withTimeout(sources.deliveryBacklog(), SCRAPE_QUERY_TIMEOUT_MS),
      withTimeout(sources.oldestUnexpiredDueAt(), SCRAPE_QUERY_TIMEOUT_MS),
      withTimeout(sources.fxRates(), SCRAPE_QUERY_TIMEOUT_MS),
    ]);
    const now = sources.now();
    this.#due.set(backlog.status === 'fulfilled' ? backlog.value.due : NaN);
    this.#oldestDue.set(backlog.status === 'fulfilled' ? secondsBetween(backlog.value.oldestDueAt, now) : NaN);
    this.#expiryLag.set(unexpired.status === 'fulfilled' ? secondsBetween(unexpired.value, now) : NaN);
    // A rate's source changes (an override set or cleared): only the current series are shown.
    this.#fxRateAge.reset();
    if (rates.status === 'fulfilled') {
      for (const rate of rates.value) this.#fxRateAge.labels(rate.currency, rate.source).set(rate.asOf === null ? Infinity : secondsBetween(rate.asOf, now));
    }
    this.#fxRateMaxAge.set(sources.fxRateMaxAgeSeconds);
  }
}
