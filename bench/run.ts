import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { loadConfig } from '../src/core/config.ts';
import { systemClock } from '../src/core/clock.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { buildApp } from '../src/app.ts';
import { operations } from '../src/operations.ts';
import { loadSecrets, openAppContext, startWorkers } from '../src/runtime.ts';
import { embeddedDepositSeed } from '../src/core/deposit-wallet.ts';
import { QUEUES } from '../src/jobs/queues.ts';
import { recordPaymentEvent, type PaymentState } from '../src/events/record.ts';
import type { Db } from '../src/db/database.ts';
import { deliveryTable, runDeliveryBench, type DeliveryBenchResult } from './deliveries.ts';
import { benchShop, startBenchCluster } from './cluster.ts';
import { startBaseline } from './baseline.ts';
import { runLoad, type LoadSummary, type RequestSpec } from './load.ts';
import { compareWithExpected, readExpected, updateExpected } from './expected.ts';
import { measureScaleJobs, scaleScenarios } from './scale.ts';
import { PROCESSOR_SETTLEMENT_NAME, processorLatencyTable, processorSettlementTable, runProcessorLatencyBench, runProcessorSettlementBench, type ProcessorLatencyResult, type ProcessorSettlementResult } from './processor.ts';
import { PROCESSOR_THROUGHPUT_NAME, processorThroughputTable, runProcessorThroughputBench, type ProcessorThroughputResult } from './processor-throughput.ts';
import { PROCESSOR_SCAN_BENCH_NAME, processorScanTable, runProcessorScanBench, type ProcessorScanResult } from './processor-scan.ts';
import { resolveRequest, scenarios, type BenchEnv, type Scenario } from './scenarios.ts';
import { runWaitsBench, waitsTable, type WaitsResult } from './waits.ts';
import { runX402SettleBench, X402_SETTLE_NAME, x402SettleTable, type X402SettleResult } from './x402-settle.ts';
import { BOOKS_EXPORT_NAME, booksExportTable, runBooksExportBench, type BooksExportResult } from './books-export.ts';

// npm run bench: the service against a minimal Fastify + pg baseline, scenario by scenario, on
// one embedded PostgreSQL in a temp dir; the write rows also against the same-work baseline
// (the same rows as ours, bench/same-work.ts). Prints a markdown table, writes bench/results.json.
// Env: BENCH_SECONDS (default 8), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (20),
// BENCH_ONLY (run only scenarios whose name contains this text; "webhook delivery" for the
// delivery benchmark alone, "scale" for the million-payment rows and their background jobs,
// "processor scan" for the processor's scan watching 100,000 addresses against 10, "processor
// throughput" for deposits detected and forwarded per second, BENCH_THROUGHPUT_DEPOSITS of them,
// "payment waits" for the 1,000 waits held open at once, "books export" for the ledger's CSV of
// 100,000 deposits against 10,000, "processor settlement" for a deposit's final block to its
// settlement.completed recorded, BENCH_SETTLEMENT_DEPOSITS of them),
// BENCH_SCALE_ROWS and BENCH_SCALE_DUE (bench/scale.ts), BENCH_POOL_SIZE (the pool of the service
// and the baselines alike, 10).

const POOL_SIZE = Math.round(positiveNumber('BENCH_POOL_SIZE', 10));
const DELIVERY_BENCH_NAME = 'webhook delivery';
const PROCESSOR_LATENCY_NAME = 'processor latency';
const WAITS_NAME = 'payment waits';
const DELIVERY_BUSINESSES = 5;
/** Of the delivery backlog, the events that come from sessions started through the API. */
const DELIVERY_BACKLOG_STARTS = 1_000;
const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url));

function positiveNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(text)}.`);
  return value;
}

const settings = {
  seconds: positiveNumber('BENCH_SECONDS', 8),
  warmupSeconds: positiveNumber('BENCH_WARMUP_SECONDS', 2),
  connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 20)),
  poolSize: POOL_SIZE,
};

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// Cleanups run last-in first-out, once, on the normal path, on a crash and on Ctrl-C.
const cleanups: Array<{ what: string; run: () => Promise<void> }> = [];
let cleaning: Promise<void> | undefined;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const step = cleanups.pop()!;
      try {
        await step.run();
      } catch (error) {
        process.stderr.write(`[bench] cleanup (${step.what}) failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: shutting down`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** A payment's state as an event describes it: the payment, its order with all its payments, its customer. */
async function paymentState(db: Db, paymentId: string): Promise<PaymentState> {
  const payment = await db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
  const order = payment.order_id === null ? null : await db.selectFrom('orders').selectAll().where('id', '=', payment.order_id).executeTakeFirstOrThrow();
  const payments = order === null ? [payment] : await db.selectFrom('payments').selectAll().where('order_id', '=', order.id).execute();
  const customerId = order?.customer_id ?? null;
  const customer = customerId === null ? null : await db.selectFrom('customers').selectAll().where('id', '=', customerId).executeTakeFirstOrThrow();
  return { payment, order, payments, customer };
}

interface Side {
  request: RequestSpec;
  load: LoadSummary;
}

/** The same-work baseline's side of a write row, and the service's ratio against it. */
interface SameWorkSide extends Side {
  ratio: number;
  target: number;
  pass: boolean;
}

interface ScenarioResult {
  name: string;
  target: number;
  service: Side;
  baseline: Side;
  /** Against the one-row baseline (or the scenario's own baseline). */
  ratio: number;
  pass: boolean;
  sameWork?: SameWorkSide;
  /** The p99 of the row's last request (a start) in times its p50, in the worse half of the run, against the scenario's `tail`. */
  tail?: { ratio: number; p50: number; p99: number; target: number; pass: boolean };
  problems: string[];
}

/** One request before loading, so a broken scenario fails with its response instead of a count. */
async function probe(url: string, request: RequestSpec, label: string, expected?: number): Promise<void> {
  const body = request.idReplacement ? request.body?.replaceAll('[<id>]', randomBytes(8).toString('hex')) : request.body;
  const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers, body });
  const text = await response.text();
  if (expected === undefined ? response.status < 200 || response.status > 299 : response.status !== expected) {
    throw new Error(`${label}: ${request.method} ${request.path} answered ${response.status}: ${text.slice(0, 500)}`);
  }
  // An MCP tool's failure is a 200 carrying isError: it would be counted as served.
  if (text.includes('"isError":true')) throw new Error(`${label}: ${request.method} ${request.path} answered a tool error: ${text.slice(0, 500)}`);
}

async function measure(label: string, url: string, request: RequestSpec, seconds: number, warmup: boolean): Promise<LoadSummary> {
  if (warmup) {
    progress(`${label}: warm-up ${settings.warmupSeconds}s`);
    await runLoad({ url, request, connections: settings.connections, seconds: settings.warmupSeconds });
  }
  progress(`${label}: ${seconds}s x ${settings.connections} connections`);
  const load = await runLoad({ url, request, connections: settings.connections, seconds });
  const steps = load.steps?.map((step, index) => `request ${index + 1}: p50 ${ms(step.p50)} ms, p99 ${ms(step.p99)} ms`).join('; ');
  progress(`${label}: ${Math.round(load.requestsPerSecond)} req/s, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms${steps ? ` (${steps})` : ''}`);
  return load;
}

/** Two runs of one side as one: their requests over their time, the slower latencies, every problem. */
function combine(runs: readonly LoadSummary[]): LoadSummary {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const worst = (pick: (run: LoadSummary) => number) => Math.max(...runs.map(pick));
  const statusCodes: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return {
    requestsPerSecond: seconds > 0 ? requests / seconds : 0,
    requests,
    seconds,
    latencyMs: { p50: worst((r) => r.latencyMs.p50), p90: worst((r) => r.latencyMs.p90), p99: worst((r) => r.latencyMs.p99), max: worst((r) => r.latencyMs.max), mean: worst((r) => r.latencyMs.mean) },
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    timeouts: runs.reduce((sum, run) => sum + run.timeouts, 0),
    statusCodes,
  };
}

/** What went wrong in a side's load: answers other than 2xx (or than `expected`, a side answering another status by design), errors, nothing. */
function problemsOf(side: string, load: LoadSummary, expected?: number): string[] {
  const problems: string[] = [];
  const unexpected = expected === undefined ? load.non2xx : Object.entries(load.statusCodes).reduce((sum, [code, count]) => sum + (Number(code) === expected ? 0 : count), 0);
  if (unexpected > 0) problems.push(`${side}: ${unexpected} responses other than ${expected ?? '2xx'} (status codes ${JSON.stringify(load.statusCodes)})`);
  if (load.errors > 0) problems.push(`${side}: ${load.errors} connection errors (${load.timeouts} timeouts)`);
  if (load.requests === 0) problems.push(`${side}: no responses at all`);
  return problems;
}

async function runScenario(scenario: Scenario<unknown>, env: BenchEnv): Promise<ScenarioResult> {
  progress(`scenario ${scenario.name}`);
  const state = scenario.setup ? await scenario.setup(env) : undefined;
  const serviceRequest = resolveRequest(scenario.service, state, env);
  const baselineRequest = resolveRequest(scenario.baseline, state, env);
  const serviceUrl = scenario.url?.(state) ?? env.serviceUrl;
  await probe(serviceUrl, serviceRequest, `${scenario.name} (service)`, scenario.serviceStatus);
  const baselineUrl = scenario.baselineOnService ? serviceUrl : env.baselineUrl;
  await probe(baselineUrl, baselineRequest, `${scenario.name} (baseline)`);
  const sameWorkSpec = scenario.sameWork && { request: resolveRequest(scenario.sameWork.request, state, env), target: scenario.sameWork.target };
  if (sameWorkSpec) await probe(env.baselineUrl, sameWorkSpec.request, `${scenario.name} (same-work)`);

  // Sequential and alternating, never two at once: service, baseline, same-work, same-work,
  // baseline, service, each half the time, so no side always runs first or last on a machine
  // whose speed drifts. A side is warmed up before each run that follows another side's: idle
  // meanwhile, its pool closed its connections (pg's closes one idle for 10 s), and each side
  // is measured warm, not some sides on new PostgreSQL backends and others not.
  const half = settings.seconds / 2;
  const sides = [
    { label: 'service', url: serviceUrl, request: serviceRequest },
    { label: 'baseline', url: baselineUrl, request: baselineRequest },
    ...(sameWorkSpec ? [{ label: 'same-work', url: env.baselineUrl, request: sameWorkSpec.request }] : []),
  ];
  const runs = new Map<string, LoadSummary[]>(sides.map((side) => [side.label, []]));
  const order = [...sides, ...sides.toReversed()];
  for (const [index, side] of order.entries()) {
    runs.get(side.label)!.push(await measure(`${scenario.name} ${side.label}`, side.url, side.request, half, order[index - 1] !== side));
  }
  const service = combine(runs.get('service')!);
  const baseline = combine(runs.get('baseline')!);
  const sameWorkLoad = sameWorkSpec && combine(runs.get('same-work')!);
  const ratioTo = (other: LoadSummary) => (other.requestsPerSecond > 0 ? service.requestsPerSecond / other.requestsPerSecond : 0);
  const ratio = ratioTo(baseline);
  const problems = [...problemsOf('service', service, scenario.serviceStatus), ...problemsOf('baseline', baseline), ...(sameWorkLoad ? problemsOf('same-work', sameWorkLoad) : [])];
  const sameWork = sameWorkSpec && sameWorkLoad ? { ...sameWorkSpec, load: sameWorkLoad, ratio: ratioTo(sameWorkLoad) } : undefined;
  return {
    name: scenario.name,
    target: scenario.target,
    service: { request: serviceRequest, load: service },
    baseline: { request: baselineRequest, load: baseline },
    ratio,
    pass: problems.length === 0 && ratio >= scenario.target,
    sameWork: sameWork && { ...sameWork, pass: problems.length === 0 && sameWork.ratio >= sameWork.target },
    ...(scenario.tail === undefined ? {} : { tail: tailOf(runs.get('service')!, scenario.tail) }),
    problems,
  };
}

/**
 * The service's p99 in times its p50 in the worse of its runs, against `target`: of the last
 * request of a sequence (create + start: the start, timed on its own), else of every request.
 */
function tailOf(runs: readonly LoadSummary[], target: number): NonNullable<ScenarioResult['tail']> {
  const tails = runs.map((run) => {
    const { p50, p99 } = run.steps?.at(-1) ?? run.latencyMs;
    return { ratio: p50 > 0 ? p99 / p50 : 0, p50, p99 };
  });
  const worst = tails.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  return { ...worst, target, pass: worst.ratio <= target };
}

const ms = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const rps = (value: number) => Math.round(value).toString();

function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function table(results: readonly ScenarioResult[]): string {
  const header = ['scenario', 'service req/s', 'service p50 ms', 'service p99 ms', 'baseline req/s', 'baseline p50 ms',
    'baseline p99 ms', 'ratio (service/baseline req/s)', 'target', 'pass'];
  return markdownTable(header, results.map((r) => [
    r.name,
    rps(r.service.load.requestsPerSecond),
    ms(r.service.load.latencyMs.p50),
    ms(r.service.load.latencyMs.p99),
    rps(r.baseline.load.requestsPerSecond),
    ms(r.baseline.load.latencyMs.p50),
    ms(r.baseline.load.latencyMs.p99),
    r.ratio.toFixed(2),
    `≥ ${r.target}`,
    r.pass ? 'PASS' : 'FAIL',
  ]));
}

/** The write rows against both baselines: the one-row insert, and the same rows as ours (bench/same-work.ts). */
function sameWorkTable(results: readonly ScenarioResult[]): string {
  const rows = results.flatMap((r) => (r.sameWork ? [[
    r.name,
    rps(r.service.load.requestsPerSecond),
    rps(r.baseline.load.requestsPerSecond),
    r.ratio.toFixed(2),
    rps(r.sameWork.load.requestsPerSecond),
    ms(r.sameWork.load.latencyMs.p50),
    ms(r.sameWork.load.latencyMs.p99),
    r.sameWork.ratio.toFixed(2),
    `≥ ${r.sameWork.target}`,
    r.sameWork.pass ? 'PASS' : 'FAIL',
    r.tail ? `${r.tail.ratio.toFixed(1)} (${ms(r.tail.p99)} ÷ ${ms(r.tail.p50)} ms; ≤ ${r.tail.target}: ${r.tail.pass ? 'PASS' : 'FAIL'})` : '',
  ]] : []));
  if (rows.length === 0) return '';
  return markdownTable(['write row', 'service req/s', 'one-row baseline req/s', 'ratio', 'same-work req/s', 'same-work p50 ms', 'same-work p99 ms',
    'ratio vs same-work', 'target', 'pass', 'start p99 ÷ p50 (worse half)'], rows);
}

/** Each ratio the run measured, by the name bench/expected.json keeps its figure under. */
function ratioRows(results: readonly ScenarioResult[]): Array<{ name: string; ratio: number }> {
  return results.flatMap((r) => [{ name: r.name, ratio: r.ratio }, ...(r.sameWork ? [{ name: `${r.name} (vs same-work)`, ratio: r.sameWork.ratio }] : [])]);
}

/**
 * BENCH_WITHOUT: indexes and triggers to drop from the bench's database after its migrations,
 * separated by semicolons ("INDEX events_list; TRIGGER payments_status_changed ON payments"), so a
 * run measures what each costs; only indexes and triggers, by name.
 */
function withoutObjects(): string[] {
  const objects = (process.env.BENCH_WITHOUT ?? '').split(';').map((each) => each.trim()).filter(Boolean);
  for (const object of objects) {
    if (!/^(INDEX [a-z_][a-z0-9_.]*|TRIGGER [a-z_][a-z0-9_]* ON [a-z_][a-z0-9_.]*)$/i.test(object)) {
      throw new Error(`BENCH_WITHOUT takes "INDEX name" or "TRIGGER name ON table", separated by semicolons, not ${JSON.stringify(object)}.`);
    }
  }
  return objects;
}

async function main(): Promise<void> {
  const started = new Date();
  const only = process.env.BENCH_ONLY;
  const selected = [...scenarios, ...scaleScenarios].filter((s) => !only || s.name.includes(only));
  const deliveriesSelected = !only || DELIVERY_BENCH_NAME.includes(only);
  const processorLatencySelected = !only || PROCESSOR_LATENCY_NAME.includes(only);
  const processorScanSelected = !only || PROCESSOR_SCAN_BENCH_NAME.includes(only);
  const waitsSelected = !only || WAITS_NAME.includes(only);
  const processorThroughputSelected = !only || PROCESSOR_THROUGHPUT_NAME.includes(only);
  const booksExportSelected = !only || BOOKS_EXPORT_NAME.includes(only);
  const processorSettlementSelected = !only || PROCESSOR_SETTLEMENT_NAME.includes(only);
  const x402SettleSelected = !only || X402_SETTLE_NAME.includes(only);
  if (selected.length === 0 && !deliveriesSelected && !processorLatencySelected && !processorScanSelected && !waitsSelected && !processorThroughputSelected
    && !booksExportSelected && !processorSettlementSelected && !x402SettleSelected) {
    throw new Error(`No scenario name contains ${JSON.stringify(only)}.`);
  }

  const dataDir = await mkdtemp(path.join(tmpdir(), 'payment-service-bench-'));
  cleanups.push({ what: 'temp dir', run: () => rm(dataDir, { recursive: true, force: true }) });
  progress(`starting PostgreSQL in ${dataDir}`);
  // Durability off, on both sides alike; the delivery benchmark times each event from its
  // transaction's commit (pg_xact_commit_timestamp).
  const cluster = await startBenchCluster(dataDir, { max_connections: '400', track_commit_timestamp: 'on' });
  cleanups.push({ what: 'PostgreSQL', run: () => cluster.stop() });

  const migrator = openDatabase(cluster.url, 1);
  await migrate(migrator.db).finally(async () => {
    // What an index or trigger costs on the write path (issue 32): the bench's own database without it.
    for (const object of withoutObjects()) {
      progress(`without ${object}`);
      await sql.raw(`DROP ${object}`).execute(migrator.db);
    }
    await migrator.close();
  });

  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', RATE_LIMITS: 'off', FX_RATES_URL: 'off', DATABASE_URL: cluster.url, DB_POOL_SIZE: String(POOL_SIZE) });
  const secrets = await loadSecrets({ ...config, dataDir });
  const service = await openAppContext(cluster.url, config, { secrets });
  cleanups.push({ what: 'service pool', run: () => service.close() });
  const { context } = service;
  const handle = { db: context.db };
  const app = await buildApp(context, operations);
  cleanups.push({ what: 'service', run: () => app.close() });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const serviceUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const shop = (name: string, ownerEmail: string) => benchShop(context, name, ownerEmail);

  const { id: businessId, secret } = await shop('Bench Shop', 'owner@bench.example');
  const business = { id: businessId };

  const baseline = await startBaseline({ databaseUrl: cluster.url, poolSize: POOL_SIZE, businessId: business.id, baseUrl: config.baseUrl });
  cleanups.push({ what: 'baseline', run: () => baseline.close() });
  progress(`service ${serviceUrl}, baseline ${baseline.url}`);

  /** A database of its own in the cluster, made and migrated here. */
  async function migratedDatabase(name: string): Promise<string> {
    await sql.raw(`CREATE DATABASE ${name}`).execute(handle.db);
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    const ownMigrator = openDatabase(url.toString(), 1);
    await migrate(ownMigrator.db).finally(() => ownMigrator.close());
    return url.toString();
  }

  /** The service again on a database of its own (made and migrated here), closed at the end. */
  async function serveDatabase(name: string, overrides: Partial<typeof config> = {}) {
    const databaseUrl = await migratedDatabase(name);
    const own = await openAppContext(databaseUrl, { ...config, ...overrides, databaseUrl }, { secrets });
    cleanups.push({ what: `${name} pool`, run: () => own.close() });
    const ownApp = await buildApp(own.context, operations);
    cleanups.push({ what: `${name} service`, run: () => ownApp.close() });
    await ownApp.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(ownApp.server.address() as AddressInfo).port}`, databaseUrl, context: own.context };
  }

  const auth = { authorization: `Bearer ${secret}` };
  const env: BenchEnv = {
    serviceUrl,
    baselineUrl: baseline.url,
    context,
    businessId: business.id,
    secretKey: secret,
    auth,
    serveDatabase,
    async api(method, requestPath, body) {
      const headers: Record<string, string> = { ...auth };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${serviceUrl}${requestPath}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  };

  const results: ScenarioResult[] = [];
  for (const scenario of selected) {
    // Each later scenario from a settled database: the rows and dead versions earlier scenarios
    // left are vacuumed and counted now, not by autovacuum in the middle of its run. (Not before
    // the first: statistics of the nearly empty tables would plan for tables that stay empty.)
    if (results.length > 0) {
      await sql`VACUUM (ANALYZE)`.execute(handle.db);
      await sql`CHECKPOINT`.execute(handle.db);
    }
    results.push(await runScenario(scenario, env));
  }

  // 1,000 waits held open at once, then one change (before the workers start: nothing else runs).
  let waits: WaitsResult | undefined;
  if (waitsSelected) waits = await runWaitsBench({ serviceUrl, context, auth, progress });

  // The scale rows' background jobs, on their database, once its rows were measured.
  const scaleJobs = await measureScaleJobs();

  // The delivery benchmark last: it starts the workers, which the request scenarios run without.
  let deliveries: DeliveryBenchResult | undefined;
  if (deliveriesSelected) {
    // The request scenarios queued deliveries to an address nobody listens on: not this run's work.
    await service.jobs.boss.deleteAllJobs(QUEUES.delivery);
    const keys: string[] = [];
    for (let i = 0; i < DELIVERY_BUSINESSES; i += 1) {
      keys.push((await shop(`Delivery Shop ${i}`, `owner${i}@deliveries.example`)).secret);
    }
    const states = new Map<string, Promise<PaymentState>>();
    deliveries = await runDeliveryBench({
      businesses: DELIVERY_BUSINESSES,
      backlogEvents: Math.round(positiveNumber('BENCH_DELIVERY_BACKLOG', 100_000)),
      backlogStarts: DELIVERY_BACKLOG_STARTS,
      async recordStarted(paymentId) {
        let state = states.get(paymentId);
        if (state === undefined) {
          state = paymentState(context.db, paymentId);
          states.set(paymentId, state);
        }
        await recordPaymentEvent(context.db, { baseUrl: config.baseUrl, jobs: context.jobs, now: new Date() }, 'payment.started', await state);
      },
      offeredPerSecond: 100,
      offeredSeconds: Math.round(positiveNumber('BENCH_DELIVERY_SECONDS', 30)),
      settle: async () => {
        await sql`VACUUM (ANALYZE)`.execute(handle.db);
      },
      async commitTimes(eventIds) {
        const { rows } = await sql<{ id: string; committed: number }>`
          SELECT id, extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 * 1000 AS committed
          FROM events WHERE id = ANY(${eventIds})`.execute(handle.db);
        return new Map(rows.map((row) => [row.id, row.committed]));
      },
      startWorkers: () => startWorkers(service),
      progress,
      async api(index, method, requestPath, body) {
        const response = await fetch(`${serviceUrl}${requestPath}`, {
          method,
          headers: { authorization: `Bearer ${keys[index]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      },
    });
  }

  // A real EVM on loopback, the processor at its default poll interval, and the service.
  let processorLatency: ProcessorLatencyResult | undefined;
  if (processorLatencySelected) {
    processorLatency = await runProcessorLatencyBench({
      serveDatabase, progress, deposits: Math.round(positiveNumber('BENCH_PROCESSOR_DEPOSITS', 40)),
      cleanup: (what, run) => cleanups.push({ what, run }),
    });
  }

  // The processor's scan on a database of its own and a local chain.
  let processorScan: ProcessorScanResult | undefined;
  if (processorScanSelected) {
    const own = openDatabase(await migratedDatabase('bench_processor'), 2);
    cleanups.push({ what: 'processor database', run: () => own.close() });
    processorScan = await runProcessorScanBench(own.db, progress, (what, run) => cleanups.push({ what, run }));
  }

  /** The processor signs for the addresses the service derives: the bench's own wallet, never one named by DEPOSIT_XPUB. */
  const benchSeed = async (row: string) => {
    if (config.depositXpub) throw new Error(`${row} signs with the bench's own deposit seed: unset DEPOSIT_XPUB.`);
    return embeddedDepositSeed({ dataDir });
  };

  // The processor and forwarding together on the local chain, N deposits at once.
  let processorThroughput: ProcessorThroughputResult | undefined;
  if (processorThroughputSelected) {
    processorThroughput = await runProcessorThroughputBench({
      serveDatabase, progress,
      seedHex: await benchSeed('processor throughput'),
      deposits: Math.round(positiveNumber('BENCH_THROUGHPUT_DEPOSITS', 200)),
      cleanup: (what, run) => cleanups.push({ what, run }),
    });
  }

  // A deposit's final block to its settlement recorded, forwarding running, one deposit at a time.
  let processorSettlement: ProcessorSettlementResult | undefined;
  if (processorSettlementSelected) {
    processorSettlement = await runProcessorSettlementBench({
      serveDatabase, progress, seedHex: await benchSeed('processor settlement'),
      deposits: Math.round(positiveNumber('BENCH_SETTLEMENT_DEPOSITS', 30)),
      cleanup: (what, run) => cleanups.push({ what, run }),
    });
  }

  // A buyer's signed x402 retry to its 200 on the local chain, one payment at a time.
  let x402Settle: X402SettleResult | undefined;
  if (x402SettleSelected) {
    x402Settle = await runX402SettleBench({
      serveDatabase, progress, seedHex: await benchSeed(X402_SETTLE_NAME),
      payments: Math.round(positiveNumber('BENCH_X402_PAYMENTS', 20)),
      cleanup: (what, run) => cleanups.push({ what, run }),
    });
  }

  // The books' CSV of 100,000 deposits on a database of its own.
  let booksExport: BooksExportResult | undefined;
  if (booksExportSelected) booksExport = await runBooksExportBench({ serveDatabase, progress });

  const expected = await readExpected();
  const warnings = [...results.flatMap((r) => r.problems.map((problem) => `WARNING: ${r.name}: ${problem}`)), ...compareWithExpected(ratioRows(results), expected)];
  if (process.env.BENCH_UPDATE_EXPECTED === '1') {
    await updateExpected(ratioRows(results), `${started.toISOString().slice(0, 10)}, load average ${loadavg().map((load) => load.toFixed(1)).join(' ')} at the end, ${availableParallelism()} cores`);
    progress('bench/expected.json updated with this run\'s ratios');
  }
  const tables = [results.length > 0 ? table(results) : '', sameWorkTable(results), scaleJobs?.table ?? '', deliveries ? deliveryTable(deliveries) : '',
    processorLatency ? processorLatencyTable(processorLatency) : '', processorScan ? processorScanTable(processorScan) : '', waits ? waitsTable(waits) : '',
    processorThroughput ? processorThroughputTable(processorThroughput) : '', processorSettlement ? processorSettlementTable(processorSettlement) : '',
    booksExport ? booksExportTable(booksExport) : '', x402Settle ? x402SettleTable(x402Settle) : ''].filter(Boolean);
  process.stdout.write(`\n${warnings.length > 0 ? `${warnings.join('\n')}\n\n` : ''}${tables.join('\n\n')}\n`);

  await writeFile(RESULTS_FILE, `${JSON.stringify({
    started: started.toISOString(),
    finished: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    settings,
    scenarios: results,
    scaleJobs: scaleJobs?.runs,
    deliveries,
    processorLatency,
    processorScan,
    waits,
    processorThroughput,
    processorSettlement,
    booksExport,
    x402Settle,
  }, null, 2)}\n`);
  progress(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanUp();
}
process.exitCode = failed ? 1 : 0;
