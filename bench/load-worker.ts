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
interface Context { id?: string }
const ID = /"id":"([^"]+)"/;
const keepId = (_status: number, body: string, context: Context) => { context.id = ID.exec(body)?.[1] ?? context.id; };
const sequence = request.then === undefined ? undefined : [
  { method: request.method, path: request.path, headers: request.headers ?? {}, body: request.body, onResponse: keepId },
  ...request.then.map((next, index, all) => ({
    method: next.method, headers: next.headers ?? {}, body: next.body,
    setupRequest: (req: object, context: Context) => ({ ...req, path: next.path.replace('{id}', context.id ?? '') }),
    ...(index < all.length - 1 ? { onResponse: keepId } : {}),
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
