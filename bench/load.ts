import { Worker } from 'node:worker_threads';

// One autocannon run, in a worker thread: the servers under test keep the main thread's event
// loop to themselves, and both sides of a scenario are loaded the same way.

/** One HTTP request shape. Plain data: it is copied into the load worker. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Replace every `[<id>]` in the request (path, headers, body) with a fresh id per request. */
  idReplacement?: boolean;
  /**
   * Requests sent after this one on the same connection, in order, each counted as a request:
   * `{id}` in a path is the `id` of the previous JSON response (create, then start it).
   */
  then?: Array<Omit<RequestSpec, 'then' | 'idReplacement'>>;
}

export interface LoadOptions {
  url: string;
  request: RequestSpec;
  connections: number;
  seconds: number;
}

export interface LoadSummary {
  /** Completed responses divided by the run's duration in seconds. */
  requestsPerSecond: number;
  requests: number;
  seconds: number;
  /** autocannon's latency histogram, in whole milliseconds. */
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** A sequence's requests (`then`), each timed on its own: p50 and p99 in milliseconds, in the sequence's order. */
  steps?: Array<{ p50: number; p99: number }>;
}

export function runLoad(options: LoadOptions): Promise<LoadSummary> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: options });
    let settled = false;
    worker.once('message', (summary: LoadSummary) => {
      settled = true;
      resolve(summary);
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`The load worker exited with code ${code} before reporting.`));
    });
  });
}
