import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import type { LoadOptions, LoadSummary } from './load.ts';

// Runs in a worker thread started by load.ts: one autocannon run, then its summary to the parent.
// Off the main thread autocannon returns raw histograms; its documented aggregateResult (missing
// from @types/autocannon) turns them into the usual result.
const aggregateResult = (autocannon as unknown as {
  aggregateResult(results: unknown[], options: autocannon.Options): autocannon.Result;
}).aggregateResult;

const options = workerData as LoadOptions;
const { request } = options;
// A sequence: each response's id is kept on the connection's context for the next request. The
// load generator shares the machine with the servers, so it does as little as it can: the id is
// read off the answer's text (our objects start with it), and the last answer is not kept at all.
// Each request of a sequence is also timed on its own (from being set up, just before it is
// written, to its answer read), so a row can judge one of its requests: a start's tail, not the
// mix of creates and starts that autocannon's one histogram holds.
interface Context { id?: string; sentAt?: number }
const ID = /"id":"([^"]+)"/;
const timings: number[][] = [[], ...(request.then ?? []).map(() => [])];
const timed = (position: number, keep: boolean) => (_status: number, body: string, context: Context) => {
  if (context.sentAt !== undefined) timings[position]!.push(performance.now() - context.sentAt);
  if (keep) context.id = ID.exec(body)?.[1] ?? context.id;
};
const sequence = request.then === undefined ? undefined : [
  { method: request.method, path: request.path, headers: request.headers ?? {}, body: request.body,
    setupRequest: (req: object, context: Context) => { context.sentAt = performance.now(); return req; }, onResponse: timed(0, true) },
  ...request.then.map((next, index, all) => ({
    method: next.method, headers: next.headers ?? {}, body: next.body,
    setupRequest: (req: object, context: Context) => {
      context.sentAt = performance.now();
      return { ...req, path: next.path.replace('{id}', context.id ?? '') };
    },
    onResponse: timed(index + 1, index < all.length - 1),
  })),
];
const cannonOptions: autocannon.Options = {
  url: `${options.url}${request.path}`,
  method: request.method,
  headers: request.headers ?? {},
  ...(request.body === undefined ? {} : { body: request.body }),
  ...(sequence === undefined ? {} : { requests: sequence as unknown as autocannon.Request[] }),
  idReplacement: request.idReplacement ?? false,
  connections: options.connections,
  duration: options.seconds,
  timeout: 10,
  skipAggregateResult: true,
};
const result = aggregateResult([await autocannon(cannonOptions)], cannonOptions);

const statusCodes: Record<string, number> = {};
for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;

/** The p50 and p99 of one request's timings, in milliseconds (a warm-up is a run of its own, in a worker of its own: none of its requests count). */
function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = values.toSorted((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

const summary: LoadSummary = {
  // Completed responses over the run's measured duration (aggregateResult does not rebuild the
  // per-second histogram behind requests.average).
  requestsPerSecond: result.duration > 0 ? result.requests.total / result.duration : 0,
  requests: result.requests.total,
  seconds: result.duration,
  latencyMs: {
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    mean: result.latency.mean,
  },
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes,
  ...(sequence === undefined ? {} : { steps: timings.map(percentiles) }),
};
parentPort?.postMessage(summary);
