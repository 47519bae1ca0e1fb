import { sql } from 'kysely';
import { DAY, HOUR, MINUTE, type Clock } from '../src/core/clock.ts';
import { expireDuePayments } from '../src/resources/payments/expire.ts';
import { forgetExpired } from '../src/runtime.ts';
import type { AppContext } from '../src/verbs/context.ts';
import { fillBusiness, makeDue, type FilledBusiness } from './scale-fill.ts';
import { defineScenario, type BenchEnv } from './scenarios.ts';
import { openTimedDb, type Holds } from './timed-db.ts';

// Scale (issue 14): a business with a million payments against one with ten thousand, on a
// database of their own (so no other row's tables carry their millions). The payments list's
// first page and a page 90% deep, REST and dashboard, must stay within 1.2× of the same at
// 10,000 (ratio ≥ 0.83); the expiry sweep and the retention run at that size must finish within
// their schedule's period, holding no lock long. BENCH_SCALE_ROWS sizes the big business,
// BENCH_SCALE_DUE the payments due at once for the expiry sweep.

function count(name: string, fallback: number): number {
  const text = process.env[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, not ${JSON.stringify(text)}.`);
  return value;
}

export const SCALE_ROWS = count('BENCH_SCALE_ROWS', 1_000_000);
const SMALL_ROWS = 10_000;
const DUE = count('BENCH_SCALE_DUE', 1_000);
const TARGET = 0.83;
/** A lock held longer than this would stall the writers waiting on it: the jobs' bar. */
const LONG_LOCK_MS = 1_000;

const n = (value: number) => value.toLocaleString('en');
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

interface ScaleState {
  url: string;
  context: AppContext;
  databaseUrl: string;
  large: FilledBusiness;
  small: FilledBusiness;
}

let state: Promise<ScaleState> | undefined;

/** The scale database and its two businesses, made once for every scale row. */
function scaleState(env: BenchEnv): Promise<ScaleState> {
  state ??= (async () => {
    const served = await env.serveDatabase('bench_scale');
    const on = { ...env, serviceUrl: served.url, context: served.context };
    const large = await fillBusiness(on, 'Scale Large', SCALE_ROWS, progress);
    const small = await fillBusiness(on, 'Scale Small', SMALL_ROWS, progress);
    progress('scale: VACUUM (ANALYZE)');
    await sql`VACUUM (ANALYZE)`.execute(served.context.db);
    return { ...served, large, small };
  })();
  return state;
}

const restList = (business: FilledBusiness, deep: boolean) => ({
  method: 'GET' as const, path: `/v1/payments?limit=20${deep ? `&starting_after=${business.deep}` : ''}`, headers: business.auth,
});
const dashboardList = (business: FilledBusiness, deep: boolean) => ({
  method: 'GET' as const, path: `${business.dashboardPath}${deep ? `?starting_after=${business.deep}` : ''}`, headers: { cookie: business.cookie, accept: 'text/html' },
});

const scaleRow = (what: string, request: typeof restList, deep: boolean) => defineScenario<ScaleState>({
  name: `scale: ${what}, ${deep ? `a page 90% deep in the cursor (${n(SCALE_ROWS * 0.9)} payments in)` : 'first page'}, a business with ${n(SCALE_ROWS)} payments (baseline: the same with ${n(SMALL_ROWS)})`,
  target: TARGET,
  baselineOnService: true,
  baselineLabel: `${n(SMALL_ROWS)} payments`,
  setup: scaleState,
  url: ({ url }) => url,
  service: ({ large }) => request(large, deep),
  baseline: ({ small }) => request(small, deep),
});

export const scaleScenarios = [
  scaleRow('GET /v1/payments', restList, false),
  scaleRow('GET /v1/payments', restList, true),
  scaleRow('dashboard payments list', dashboardList, false),
  scaleRow('dashboard payments list', dashboardList, true),
];

export interface JobRun {
  job: string;
  work: string;
  ms: number;
  periodMs: number;
  holds: Holds;
}

const at = (ms: number): Clock => ({ now: () => new Date(ms) });

/** Runs one job on the timed pool as the workers run it, with the clock at `now`. */
async function timedJob(job: string, periodMs: number, run: () => Promise<number>, timed: ReturnType<typeof openTimedDb>, work: (done: number) => string): Promise<JobRun> {
  timed.reset();
  const start = performance.now();
  const done = await run();
  const ms = performance.now() - start;
  const result = { job, work: work(done), ms, periodMs, holds: timed.holds() };
  progress(`scale: ${job}: ${result.work} in ${ms.toFixed(0)} ms; longest statement ${result.holds.longestStatementMs.toFixed(1)} ms, longest transaction ${result.holds.longestTransactionMs.toFixed(1)} ms (longest statement: ${result.holds.longestStatement})`);
  return result;
}

function jobsTable(runs: readonly JobRun[]): string {
  const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const header = [`background job, business with ${n(SCALE_ROWS)} payments`, 'work', 'duration ms', 'longest statement ms', 'longest transaction ms', 'period', 'pass'];
  const rows = runs.map((run) => {
    const longestHold = Math.max(run.holds.longestStatementMs, run.holds.longestTransactionMs);
    const pass = run.ms <= run.periodMs && longestHold <= LONG_LOCK_MS;
    return [run.job, run.work, ms(run.ms), ms(run.holds.longestStatementMs), run.holds.transactions ? ms(run.holds.longestTransactionMs) : '-',
      run.periodMs >= HOUR ? 'hourly' : 'every minute', pass ? 'PASS' : 'FAIL'];
  });
  return [line(header), line(header.map(() => '---')), ...rows.map(line),
    '', `Target: each run within its period, no statement or transaction (so no lock) longer than ${n(LONG_LOCK_MS)} ms.`].join('\n');
}

/**
 * The expiry sweep and the hourly retention on the scale database, each on a pool that times
 * its statements and transactions: with nothing due, with DUE payments due at once, and the
 * retention with the hour due, after a day without it, and after 30 days without it (the
 * whole delivery log). Returns the table, or nothing when no scale row ran.
 */
export async function measureScaleJobs(): Promise<{ table: string; runs: JobRun[] } | undefined> {
  if (!state) return undefined;
  const { context, databaseUrl, large } = await state;
  const timed = openTimedDb(databaseUrl, context.config.dbPoolSize);
  try {
    const now = Date.now();
    const runs: JobRun[] = [];
    const expire = (clock: Clock) => () => expireDuePayments({ ...context, db: timed.db, clock });
    const forget = (clock: Clock) => () => forgetExpired({ db: timed.db, clock });
    const rows = (done: number) => `${n(done)} deleted (deliveries, each with its attempts, and keys)`;
    runs.push(await timedJob('expiry sweep, nothing due', MINUTE, expire(at(now)), timed, (done) => `${n(done)} expired`));
    await makeDue(context.db, large, DUE, now);
    runs.push(await timedJob(`expiry sweep, ${n(DUE)} payments due at once`, MINUTE, expire(at(now)), timed, (done) => `${n(done)} expired, each with its event and delivery`));
    runs.push(await timedJob('retention, the hour due', HOUR, forget(at(now)), timed, rows));
    runs.push(await timedJob('retention after a day without it', HOUR, forget(at(now + DAY)), timed, rows));
    runs.push(await timedJob('retention after 30 days without it (the whole delivery log)', HOUR, forget(at(now + 31 * DAY)), timed, rows));
    return { table: jobsTable(runs), runs };
  } finally {
    await timed.close();
  }
}
