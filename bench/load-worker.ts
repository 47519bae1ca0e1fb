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
const cannonOptions: autocannon.Options = {
  url: `${options.url}${request.path}`,
  method: request.method,
  headers: request.headers ?? {},
  ...(request.body === undefined ? {} : { body: request.body }),
  idReplacement: request.idReplacement ?? false,
  connections: options.connections,
  duration: options.seconds,
  timeout: 10,
  skipAggregateResult: true,
};
const result = aggregateResult([await autocannon(cannonOptions)], cannonOptions);

const statusCodes: Record<string, number> = {};
for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;

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
};
parentPort?.postMessage(summary);
