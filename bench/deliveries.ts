import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Arrival } from './receiver-worker.ts';

// The webhook delivery benchmark: payment events (payment.started of Test sessions) delivered by
// the pg-boss worker to a local receiver in another thread.
//  1. sustained throughput: a backlog of events queued while no worker runs, then drained. The
//     first events come from sessions started through the API; the rest are more payment.started
//     events of those payments, written by the service's own event statement (the one a start
//     runs: event, deliveries, jobs), since 100,000 starts through HTTP would take minutes here;
//  2. latency from commit to receiver at an offered 100 events per second: from the commit of the
//     event's transaction (PostgreSQL's commit timestamp, track_commit_timestamp) to its arrival,
//     and, shown beside it, from when its start request was sent (the request's own work too).

export interface DeliveryBenchOptions {
  /** One JSON call to the service as business `index`'s Test key. */
  api(index: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Businesses to spread the events over, one endpoint each. */
  businesses: number;
  backlogEvents: number;
  /** Of the backlog, how many come from sessions started through the API (the rest are recorded directly). */
  backlogStarts: number;
  /** Records one more payment.started of a payment with the service's own event statement. */
  recordStarted(paymentId: string): Promise<void>;
  offeredPerSecond: number;
  offeredSeconds: number;
  /** When each event's transaction committed (PostgreSQL's commit timestamp), ms since the epoch. */
  commitTimes(eventIds: string[]): Promise<Map<string, number>>;
  /** Vacuums and analyzes the database, as before every scenario after the first. */
  settle(): Promise<void>;
  startWorkers(): Promise<void>;
  progress(line: string): void;
}

export interface DeliveryBenchResult {
  backlog: { events: number; seconds: number; deliveriesPerSecond: number; target: number; pass: boolean };
  latency: {
    offeredPerSecond: number; events: number; delivered: number; target: number; pass: boolean;
    /** From the event's commit (PostgreSQL's commit timestamp) to the receiver: the target's measure. */
    committed: Spread;
    /** From the moment its start request was sent: the request's own work too. */
    sent: Spread;
    /** The start requests' own time (sent to answered), p99 ms. */
    requestP99: number;
    /** The bench process's event-loop delay over the window (service, workers and load generator share it), p99 and max ms. */
    loopDelayP99: number; loopDelayMax: number;
    /** The machine's one-minute load average at the end of the window (2 cores here). */
    load: number;
  };
}

/** p50, p99 and max of a set of durations, ms. */
export interface Spread { p50: number; p99: number; max: number }

/** Deliveries per second a backlog drains at (scale), and p99 ms from commit to receiver at 100 events/s (fast delivery). */
const DRAIN_TARGET = 1000;
const P99_TARGET_MS = 50;

interface Receiver {
  port: number;
  arrivals: Arrival[];
  close(): Promise<void>;
}

async function startReceiverThread(): Promise<Receiver> {
  const worker = new Worker(new URL('./receiver-worker.ts', import.meta.url));
  const arrivals: Arrival[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: { port?: number; arrivals?: Arrival[] }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.arrivals) arrivals.push(...message.arrivals);
    });
  });
  return {
    port,
    arrivals,
    close: async () => {
      worker.postMessage({ close: true });
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

/** Runs `task` over `items` with at most `concurrency` at once. */
async function pool<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

const percentile = (sorted: number[], p: number) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

export async function runDeliveryBench(options: DeliveryBenchOptions): Promise<DeliveryBenchResult> {
  const { api, businesses, progress } = options;
  const receiver = await startReceiverThread();
  try {
    const expect = async (call: Promise<{ status: number; body: any }>, what: string) => {
      const response = await call;
      if (response.status >= 300) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
      return response.body;
    };
    // Open sessions: a start with a new buyer's email is a payment.started event each time.
    const latencyEvents = options.offeredPerSecond * options.offeredSeconds;
    const backlogSessions = Math.max(1, Math.min(options.backlogStarts, options.backlogEvents));
    progress(`deliveries: ${backlogSessions + latencyEvents} sessions over ${businesses} businesses`);
    const sessions: Array<{ business: number; id: string }> = [];
    await pool(Array.from({ length: backlogSessions + latencyEvents }, (_, i) => i), 20, async (i) => {
      const business = i % businesses;
      const session = await expect(api(business, 'POST', '/v1/checkout_sessions', { amount: '20.00', currency: 'USD' }), 'session create');
      sessions.push({ business, id: session.id });
    });
    const backlog = sessions.slice(0, backlogSessions);
    const payments = sessions.slice(backlogSessions);
    for (let business = 0; business < businesses; business += 1) {
      await expect(api(business, 'POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:${receiver.port}/b${business}`, events: ['payment.started'] }), 'endpoint create');
    }
    let buyer = 0;
    const start = (session: { business: number; id: string }) =>
      expect(api(session.business, 'POST', `/v1/checkout_sessions/${session.id}/start`, { email: `buyer${buyer++}@bench.example` }), 'start');

    // 1. Backlog, queued with no worker running, then drained.
    progress(`deliveries: queueing a backlog of ${options.backlogEvents} events, ${backlog.length} through the API`);
    const filling = performance.now();
    await pool(backlog, Math.min(20, backlog.length), start);
    const more = Array.from({ length: options.backlogEvents - backlog.length }, (_, i) => backlog[i % backlog.length]!.id);
    await pool(more, 20, (paymentId) => options.recordStarted(paymentId));
    progress(`deliveries: queued in ${((performance.now() - filling) / 1000).toFixed(1)} s; vacuuming`);
    // Queued faster than autovacuum looks: without fresh statistics PostgreSQL would plan the
    // job fetch for the nearly empty table it last saw (sorting the whole backlog at each fetch).
    await options.settle();
    progress('deliveries: starting the workers, draining the backlog');
    const drainStart = performance.now();
    await options.startWorkers();
    // Time for the backlog at a quarter of the target rate, then it counts as not drained.
    const drainLimitMs = (options.backlogEvents / DRAIN_TARGET) * 4_000 + 30_000;
    const drained = await until(() => receiver.arrivals.length >= options.backlogEvents, drainLimitMs);
    const drainSeconds = (performance.now() - drainStart) / 1000;
    if (!drained) progress(`deliveries: only ${receiver.arrivals.length} of ${options.backlogEvents} arrived in ${Math.round(drainLimitMs / 1000)} s`);
    const deliveriesPerSecond = Math.min(receiver.arrivals.length, options.backlogEvents) / drainSeconds;
    progress(`deliveries: ${Math.round(deliveriesPerSecond)} deliveries/s`);

    // 2. Offered load: one settlement every 1/rate seconds, each on its own payment.
    progress(`deliveries: ${options.offeredPerSecond} events/s for ${options.offeredSeconds} s`);
    await until(() => false, 500); // the backlog's stragglers (duplicates at most) arrive first
    // As every scenario, from a settled database: the drain's 100,000 finished jobs and
    // deliveries are vacuumed now, not by autovacuum in the middle of the measurement.
    await options.settle();
    receiver.arrivals.length = 0;
    const sentAt = new Map<string, number>();
    const requestMs: number[] = [];
    const interval = 1000 / options.offeredPerSecond;
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const begun = performance.now();
    const calls: Array<Promise<unknown>> = [];
    for (const [i, payment] of payments.entries()) {
      const due = begun + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sent = performance.now();
      sentAt.set(payment.id, performance.timeOrigin + sent);
      calls.push(start(payment).then(() => requestMs.push(performance.now() - sent)));
    }
    await Promise.all(calls);
    loopDelay.disable();
    const load = loadavg()[0]!;
    await until(() => receiver.arrivals.length >= payments.length, 30_000);
    const arrivals = receiver.arrivals.filter((arrival) => sentAt.has(arrival.paymentId));
    const committedAt = await options.commitTimes(arrivals.map((arrival) => arrival.eventId));
    const spread = (durations: number[]): Spread => {
      const sorted = durations.sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
    };
    const committed = spread(arrivals.map((arrival) => arrival.at - committedAt.get(arrival.eventId)!));
    return {
      backlog: { events: options.backlogEvents, seconds: drainSeconds, deliveriesPerSecond, target: DRAIN_TARGET, pass: drained && deliveriesPerSecond >= DRAIN_TARGET },
      latency: {
        offeredPerSecond: options.offeredPerSecond, events: payments.length, delivered: arrivals.length, target: P99_TARGET_MS,
        pass: arrivals.length === payments.length && committedAt.size === arrivals.length && committed.p99 <= P99_TARGET_MS,
        committed,
        sent: spread(arrivals.map((arrival) => arrival.at - sentAt.get(arrival.paymentId)!)),
        requestP99: spread(requestMs).p99,
        loopDelayP99: loopDelay.percentile(99) / 1e6, loopDelayMax: loopDelay.max / 1e6, load,
      },
    };
  } finally {
    await receiver.close();
  }
}

export function deliveryTable(result: DeliveryBenchResult): string {
  const { backlog, latency } = result;
  const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(0));
  const shown = (durations: Spread) => `${ms(durations.p50)} / ${ms(durations.p99)} / ${ms(durations.max)}`;
  return [
    '| webhook delivery | measured | target | pass |',
    '| --- | --- | --- | --- |',
    `| sustained deliveries/s (backlog of ${backlog.events.toLocaleString('en-US')} events drained in ${backlog.seconds.toFixed(1)} s) | ${Math.round(backlog.deliveriesPerSecond)} | ≥ ${backlog.target} | ${backlog.pass ? 'PASS' : 'FAIL'} |`,
    `| commit → receiver at ${latency.offeredPerSecond} events/s: p50 / p99 / max ms (${latency.delivered} of ${latency.events} delivered; ` +
      `from the start request's sending ${shown(latency.sent)}, the requests' own p99 ${ms(latency.requestP99)}; ` +
      `event-loop delay p99 ${ms(latency.loopDelayP99)}, max ${ms(latency.loopDelayMax)}; load average ${latency.load.toFixed(1)}) ` +
      `| ${shown(latency.committed)} | p99 ≤ ${latency.target} | ${latency.pass ? 'PASS' : 'FAIL'} |`,
  ].join('\n');
}
