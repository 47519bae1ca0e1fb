import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { booksCommands } from '../src/cli/books.ts';
import { DAY } from '../src/core/clock.ts';
import { systemClock } from '../src/core/clock.ts';
import { openDatabase, type Db } from '../src/db/database.ts';
import type { Database } from '../src/db/schema.ts';
import { createBusiness } from '../src/tenancy/businesses.ts';
import type { AppContext } from '../src/verbs/context.ts';

// Issue 30's books export: the accountant's CSV of a business's Live money (`booksCsv`, through
// the operator's `books export` command, written to a file) for a range holding 100,000 deposits,
// each with its forward's net and fee rows (300,000 movements), and for a range of 10,000 of them
// in the same table, so the time shows it scales linearly and the memory that it does not grow
// with the rows. The rows are written by set-based SQL, as the notices' statements write them
// (`src/resources/ledger/record.ts`: the clock's milliseconds, the chain's lowercase hex, a share
// naming its deposit's transaction and log). Memory is sampled every 50 ms during each export
// (heap used and RSS) against the value just before it, after a full garbage collection: once as
// it comes (heap used then counts what V8 has not collected yet, which grows with the run's
// length until its next full collection), and once more with a full collection before each
// sample, the peak of what the export holds, which is what the bound is on.

export const BOOKS_EXPORT_NAME = 'books export';
const DEPOSITS = 100_000;
const PER_DAY = 1_000;
const FEW_DAYS = 10;
const SAMPLE_MS = 50;
const TARGET_SECONDS = 10;
/** Peak live heap growth allowed: a batch of 2,000 rows and its CSV in flight, never the range. */
const TARGET_HEAP_MB = 64;
const AMOUNT = 10_000_000n; // 10.00 USDC
const FEE_BPS = 150n;
const PAYOUT = '0x1111111111111111111111111111111111111111';
const USDC = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';

export interface BooksExportRun {
  deposits: number;
  movements: number;
  days: number;
  seconds: number;
  /** The batches' statements, and their time with the driver reading the rows. */
  batches: number;
  databaseSeconds: number;
  bytes: number;
  /** Peak growth over the value just before the export, MB. */
  heapMb: number;
  rssMb: number;
}

export interface BooksExportResult {
  fillSeconds: number;
  few: BooksExportRun;
  many: BooksExportRun;
  /** The same exports, each memory sample after a full collection: the peak of what the export holds. */
  live: { few: BooksExportRun; many: BooksExportRun };
  /** The plan of a batch at 100,000 (EXPLAIN ANALYZE of the first batch and of the one before the last). */
  plans: { first: string; last: string };
  targetSeconds: number;
  targetHeapMb: number;
  pass: boolean;
}

/** SQL for `length` hex digits made from `seed` and the row number g: the same in every statement. */
const hex = (seed: string, length: number) => `substr(md5('${seed}a' || g) || md5('${seed}b' || g), 1, ${length})`;

/** 100,000 paid Live payments, one deposit each at PER_DAY a day, each forwarded 8 s later (net and fee in one transaction, as a batch forward makes them). */
async function fill(db: Db, businessId: string, firstDay: Date): Promise<void> {
  const at = `date_trunc('milliseconds', '${firstDay.toISOString()}'::timestamptz + (g / ${PER_DAY}) * interval '1 day' + (g % ${PER_DAY}) * interval '${86_400 / PER_DAY} seconds')`;
  const net = AMOUNT - (AMOUNT * FEE_BPS) / 10_000n;
  await sql.raw(`
    INSERT INTO payments (id, business_id, livemode, source, status, amount_minor, currency, description, created_at, expires_at, started_at, paid_at, updated_at,
      method, network, coin, deposit_address, deposit_index, payout_wallet, fee_bps, usd_value_minor, value_coin, received_minor, txid_in, txid_in_log_index, txid_out, merchant_received, forwarded_net)
    SELECT 'pay_' || ${hex('p', 24)}, '${businessId}', true, 'api', 'paid', 1000, 'USD', 'Books bench', ${at} - interval '5 minutes', ${at} + interval '1 hour', ${at} - interval '4 minutes', ${at}, ${at} + interval '8 seconds',
      'crypto', 'polygon', 'polygon_usdc', '0x' || ${hex('d', 40)}, g, '${PAYOUT}', ${FEE_BPS}, 1000, '10.000000', 1000, '0x' || ${hex('x', 64)}, g % 7, '0x' || ${hex('f', 64)}, '${Number(net) / 1e6}', ${Number(net) / 1e6}
    FROM generate_series(0, ${DEPOSITS - 1}) AS g`).execute(db);
  const movement = (kind: string, tx: string, log: string, from: string, to: string, value: bigint, later: string, deposit: string) => `
    SELECT 'mov_' || ${hex(`m${kind}`, 24)}, '${businessId}', true, 'pay_' || ${hex('p', 24)}, '${kind}', 'polygon', '0x' || ${hex(tx, 64)}, ${log}, 1000000 + g * 2,
      ${from}, ${to}, '${USDC}', 'polygon_usdc', ${value}, 6, ${deposit}, ${kind === 'deposit' ? `'paid'` : 'NULL'}, false, ${at} + interval '${later}'
    FROM generate_series(0, ${DEPOSITS - 1}) AS g`;
  const columns = `(id, business_id, livemode, payment_id, kind, network, tx_hash, log_index, block_number, from_address, to_address, token, coin, value, decimals,
      deposit_tx_hash, deposit_log_index, disposition, needs_review, recorded_at)`;
  const buyer = `'0x' || ${hex('b', 40)}`;
  const address = `'0x' || ${hex('d', 40)}`;
  const ofDeposit = `'0x' || ${hex('x', 64)}, g % 7`;
  await sql.raw(`INSERT INTO chain_movements ${columns} ${movement('deposit', 'x', 'g % 7', buyer, address, AMOUNT, '0 seconds', 'NULL, NULL')}`).execute(db);
  await sql.raw(`INSERT INTO chain_movements ${columns} ${movement('forward_net', 'f', '0', address, `'${PAYOUT}'`, net, '8 seconds', ofDeposit)}`).execute(db);
  await sql.raw(`INSERT INTO chain_movements ${columns} ${movement('forward_fee', 'f', '1', address, `'0x3333333333333333333333333333333333333333'`, AMOUNT - net, '8 seconds', ofDeposit)}`).execute(db);
  await sql`VACUUM (ANALYZE) chain_movements, payments`.execute(db);
}

/** A full collection now (the bench's own: Node offers it only behind --expose-gc). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** A context whose database logs each statement: the export's batches, their time (the driver's parsing included), their SQL for EXPLAIN. */
function loggingContext(context: AppContext, databaseUrl: string) {
  // The service's pool prepares its statements; this one plans each batch anew (under a millisecond each, in the plans below).
  const handle = openDatabase(databaseUrl, 1);
  const batches: Array<{ query: CompiledQuery; ms: number }> = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: handle.pool }),
    log: (event) => {
      if (event.query.sql.includes('FROM chain_movements d')) batches.push({ query: event.query, ms: event.queryDurationMillis });
    },
  });
  return { context: { ...context, db }, batches, handle };
}

/**
 * The operator's `books export` of `days` days from `from` to a file, timed, with memory sampled
 * every SAMPLE_MS. `live`: each sample after a full collection, so the peak is what the export
 * holds rather than what V8 has not collected yet (slower: a run for memory, not for time).
 */
async function exportRun(logging: ReturnType<typeof loggingContext>, businessId: string, from: Date, days: number, out: string, live: boolean): Promise<BooksExportRun> {
  const gc = collector();
  const day = (date: Date) => date.toISOString().slice(0, 10);
  gc();
  const before = process.memoryUsage();
  const peak = { heap: before.heapUsed, rss: before.rss };
  const sample = setInterval(() => {
    if (live) gc();
    const now = process.memoryUsage();
    peak.heap = Math.max(peak.heap, now.heapUsed);
    peak.rss = Math.max(peak.rss, now.rss);
  }, SAMPLE_MS);
  const batchesBefore = logging.batches.length;
  const started = performance.now();
  try {
    const { json } = await booksCommands['books export']!.run(logging.context, { business: businessId, from: day(from), to: day(new Date(from.getTime() + (days - 1) * DAY)), out }, [], (line) => console.error(line));
    const seconds = (performance.now() - started) / 1000;
    const deposits = (json as { lines: number }).lines; // the bench's books hold arrivals only: a line each
    const batches = logging.batches.slice(batchesBefore);
    const mb = (bytes: number) => bytes / 2 ** 20;
    return {
      deposits, movements: deposits * 3, days, seconds, batches: batches.length, databaseSeconds: batches.reduce((sum, batch) => sum + batch.ms, 0) / 1000,
      bytes: (await stat(out)).size, heapMb: mb(peak.heap - before.heapUsed), rssMb: mb(peak.rss - before.rss),
    };
  } finally {
    clearInterval(sample);
  }
}

/** EXPLAIN (ANALYZE, BUFFERS) of a batch as booksCsv sent it. */
async function plan(handle: ReturnType<typeof openDatabase>, query: CompiledQuery): Promise<string> {
  const { rows } = await handle.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, [...query.parameters]);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

export async function runBooksExportBench(options: {
  serveDatabase(name: string): Promise<{ databaseUrl: string; context: AppContext }>;
  progress(line: string): void;
}): Promise<BooksExportResult> {
  const { progress } = options;
  const { context, databaseUrl } = await options.serveDatabase('bench_books');
  const business = await createBusiness(context.db, systemClock, { name: 'Books Bench', ownerEmail: 'owner@books-bench.example' });
  const days = DEPOSITS / PER_DAY;
  const firstDay = new Date(Math.floor((Date.now() - (days + 1) * DAY) / DAY) * DAY);
  progress(`books export: writing ${DEPOSITS.toLocaleString('en')} deposits with their forwards (${(DEPOSITS * 3).toLocaleString('en')} movements)`);
  const fillStarted = performance.now();
  await fill(context.db, business.id, firstDay);
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  progress(`books export: filled in ${fillSeconds.toFixed(1)} s`);

  const dir = await mkdtemp(path.join(tmpdir(), 'books-bench-'));
  const logging = loggingContext(context, databaseUrl);
  try {
    const run = async (label: string, runDays: number, live: boolean) => {
      const result = await exportRun(logging, business.id, firstDay, runDays, path.join(dir, `${label}.csv`), live);
      progress(`books export, ${label}: ${result.deposits} arrivals in ${result.seconds.toFixed(2)} s (${result.databaseSeconds.toFixed(2)} s in ${result.batches} batches), heap +${result.heapMb.toFixed(1)} MB, RSS +${result.rssMb.toFixed(1)} MB`);
      return result;
    };
    // Once untimed (connections, the file system's cache), then each size for time, then each for live memory.
    await run('warm-up', FEW_DAYS, false);
    const few = await run('10 days', FEW_DAYS, false);
    const many = await run(`${days} days`, days, false);
    const manyBatches = logging.batches.slice(-many.batches);
    // The first batch, and the one before the last (the last of a range of whole batches finds nothing).
    const plans = { first: await plan(logging.handle, manyBatches[0]!.query), last: await plan(logging.handle, manyBatches.at(-2)!.query) };
    const fewLive = await run('10 days, collected at each sample', FEW_DAYS, true);
    const manyLive = await run(`${days} days, collected at each sample`, days, true);
    const pass = many.deposits === DEPOSITS && few.deposits === FEW_DAYS * PER_DAY && many.seconds < TARGET_SECONDS && manyLive.heapMb < TARGET_HEAP_MB;
    return { fillSeconds, few, many, live: { few: fewLive, many: manyLive }, plans, targetSeconds: TARGET_SECONDS, targetHeapMb: TARGET_HEAP_MB, pass };
  } finally {
    await logging.context.db.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

export function booksExportTable(r: BooksExportResult): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const row = (run: BooksExportRun, live: BooksExportRun) => `| ${n(run.deposits)} arrivals (${n(run.movements)} movements, ${run.days} days) | ${run.seconds.toFixed(2)} (${run.databaseSeconds.toFixed(2)} in ${run.batches} batches) | ${n(Math.round(run.deposits / run.seconds))} | ${(run.bytes / 2 ** 20).toFixed(1)} | ${live.heapMb.toFixed(1)} | ${run.heapMb.toFixed(1)} | ${run.rssMb.toFixed(1)} |`;
  return [
    '| books export: `books export` (booksCsv, keyset batches of 2,000) to a file | s (of which the batches\' statements) | arrivals/s | CSV MB | peak live heap growth MB (collected at each 50 ms sample) | peak heap used growth MB (uncollected) | peak RSS growth MB |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    row(r.few, r.live.few),
    row(r.many, r.live.many),
    `| 10× the rows | ${(r.many.seconds / r.few.seconds).toFixed(1)}× the time | | | ${(r.live.many.heapMb / Math.max(r.live.few.heapMb, 0.1)).toFixed(1)}× | ${(r.many.heapMb / Math.max(r.few.heapMb, 0.1)).toFixed(1)}× | target at ${n(r.many.deposits)}: < ${r.targetSeconds} s, live heap < ${r.targetHeapMb} MB: ${r.pass ? 'PASS' : 'FAIL'} |`,
  ].join('\n');
}
