import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Address } from 'viem';
import { systemClock } from '../src/core/clock.ts';
import type { Db } from '../src/db/database.ts';
import { ChainClient } from '../src/processor/chain/chain-client.ts';
import { Detector } from '../src/processor/detection/detector.ts';
import { WatchedAddresses } from '../src/processor/detection/watched-addresses.ts';
import { testTokenAbi } from '../test/support/chain-contracts.ts';
import { startPolygonChain } from '../test/support/processor-chain.ts';

// The processor's scan (issue 22): the same block range scanned while watching 100,000 open
// deposit addresses and while watching 10 must take about the same time (≥ 0.8× the speed) and
// the same RPC calls, since recipients are matched in memory. On Hardhat's EDR node (the tests'
// chain, test/support) through the counting RPC proxy: BLOCKS blocks, every tenth holding
// TRANSFERS_PER_BLOCK USDC transfers to strangers, 10 of them to the watched deposit addresses.
// Each side is a fresh detector scanning the whole range from an empty cursor; the reconciliation
// is off for the comparison (its cost is bounded per pass, not per address, and shown beside it).

const BLOCKS = 1_000;
const BUSY_EVERY = 10;
const TRANSFERS_PER_BLOCK = 20;
const PAID = 10;
const MANY = 100_000;
const RUNS = 21;
const DEPTH = 2;
const TARGET = 0.8;
const FAR = new Date('2100-01-01T00:00:00Z');

export const PROCESSOR_SCAN_BENCH_NAME = 'processor scan';

interface Side { watched: number; medianMs: number; fastestMs: number; calls: number; recorded: number }

export interface ProcessorScanResult {
  blocks: number;
  transfers: number;
  few: Side;
  many: Side;
  /** Scans per second watching MANY over watching PAID (the ratio of the median times). */
  ratio: number;
  target: number;
  /** Every scan of either side made the same RPC calls and recorded the same deposits. */
  sameCalls: boolean;
  pass: boolean;
  reconciliation: { watched: number; addresses: number; calls: number; requests: number; ms: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const syntheticAddress = (i: number) => `0x${(0x5ca1e000000 + i).toString(16).padStart(40, '0')}`;

export async function runProcessorScanBench(db: Db, progress: (line: string) => void, onCleanup: (what: string, run: () => Promise<void>) => void): Promise<ProcessorScanResult> {
  const started = await startPolygonChain({ depth: DEPTH });
  onCleanup('chain', () => started.stop());
  const { chain, tokens, proxy, polygon } = started;
  const buyer = chain.accounts.buyer;

  progress(`processor scan: making ${BLOCKS} blocks with ${(BLOCKS / BUSY_EVERY) * TRANSFERS_PER_BLOCK} transfers`);
  const paid = await Promise.all(Array.from({ length: PAID }, async () => (await chain.newAccount()).address));
  const from = (await chain.head()) + 1n;
  const wallet = chain.wallet(buyer);
  let nonce = await chain.client.getTransactionCount({ address: buyer.address, blockTag: 'pending' });
  const fees = await chain.client.estimateFeesPerGas();
  let transfers = 0;
  /** Every stride-th transfer goes to a watched address, spreading their deposits over the range. */
  const stride = (BLOCKS / BUSY_EVERY) * TRANSFERS_PER_BLOCK / PAID;
  for (let block = 0; block < BLOCKS; block += 1) {
    if (block % BUSY_EVERY === 0) {
      const sends: Array<Promise<unknown>> = [];
      for (let i = 0; i < TRANSFERS_PER_BLOCK; i += 1) {
        const to = transfers % stride === 0 ? paid[transfers / stride]! : syntheticAddress(MANY + transfers) as Address;
        sends.push(wallet.writeContract({
          address: tokens.address.usdc, abi: testTokenAbi, functionName: 'transfer', args: [to, 1_000_000n + BigInt(transfers)],
          gas: 100_000n, nonce: nonce++, maxFeePerGas: fees.maxFeePerGas * 2n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        }));
        transfers += 1;
      }
      await Promise.all(sends);
    }
    await chain.mine(1);
  }
  await chain.mine(DEPTH);

  const watching = (count: number) => {
    const watched = new WatchedAddresses();
    for (const address of paid) watched.add(address, FAR);
    for (let i = paid.length; i < count; i += 1) watched.add(syntheticAddress(i), FAR);
    return watched;
  };
  const lists = { few: watching(PAID), many: watching(MANY) };
  const forget = async () => {
    for (const table of ['processor.cursors', 'processor.blocks', 'processor.transfers', 'processor.outgoing_transfers', 'processor.network_scans'] as const) {
      await db.deleteFrom(table).where('network', '=', 'polygon').execute();
    }
  };
  const scanOnce = async (watched: WatchedAddresses) => {
    await forget();
    const detector = new Detector({ db, network: polygon, client: new ChainClient(polygon), watched, clock: systemClock }, { startBlock: from, reconcile: false });
    const calls = proxy.calls();
    const started = performance.now();
    const { recorded } = await detector.scan();
    return { ms: performance.now() - started, calls: proxy.calls() - calls, recorded };
  };

  progress(`processor scan: ${RUNS} scans of each side, alternating`);
  await scanOnce(lists.few); // warm-up: connections, prepared plans, JIT
  const runs = { few: [] as Array<Awaited<ReturnType<typeof scanOnce>>>, many: [] as Array<Awaited<ReturnType<typeof scanOnce>>> };
  for (let run = 0; run < RUNS; run += 1) {
    const order = run % 2 === 0 ? (['few', 'many'] as const) : (['many', 'few'] as const);
    for (const side of order) runs[side].push(await scanOnce(lists[side]));
  }
  const side = (name: 'few' | 'many', watched: number): Side => ({
    watched, medianMs: median(runs[name].map((run) => run.ms)), fastestMs: Math.min(...runs[name].map((run) => run.ms)), calls: median(runs[name].map((run) => run.calls)), recorded: median(runs[name].map((run) => run.recorded)),
  });
  const few = side('few', PAID);
  const many = side('many', MANY);
  const sameCalls = [...runs.few, ...runs.many].every((run) => run.calls === few.calls && run.recorded === PAID);
  const ratio = few.medianMs / many.medianMs;
  progress(`processor scan: ${few.medianMs.toFixed(1)} ms watching ${PAID}, ${many.medianMs.toFixed(1)} ms watching ${MANY}; ${few.calls} and ${many.calls} RPC calls`);

  // One reconciliation pass with 100,000 open addresses in the database: bounded by addressesPerPass, not by the watch list.
  await db.insertInto('processor.watched_addresses').columns(['address', 'payment_id', 'watch_from', 'watch_until'])
    .expression(sql`SELECT '0x' || lpad(to_hex(${0x5ca1e000000}::bigint + i), 40, '0'), 'pay_bench_' || i, now(), ${FAR}::timestamptz FROM generate_series(1, ${MANY}) AS i`)
    .execute();
  await scanOnce(lists.many);
  const reconciler = new Detector({ db, network: polygon, client: new ChainClient(polygon), watched: lists.many, clock: systemClock });
  const [calls, requests] = [proxy.calls('eth_call'), proxy.requests()];
  const passStarted = performance.now();
  const pass = await reconciler.reconcile();
  const reconciliation = {
    watched: MANY, addresses: pass?.addresses.length ?? 0, calls: proxy.calls('eth_call') - calls, requests: proxy.requests() - requests, ms: performance.now() - passStarted,
  };
  await db.deleteFrom('processor.watched_addresses').where('payment_id', 'like', 'pay_bench_%').execute();
  return { blocks: BLOCKS, transfers, few, many, ratio, target: TARGET, sameCalls, pass: sameCalls && ratio >= TARGET, reconciliation };
}

export function processorScanTable(result: ProcessorScanResult): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const { few, many, reconciliation: pass } = result;
  return [
    `| processor scan of ${n(result.blocks)} blocks, ${n(result.transfers)} transfers (${RUNS} runs, each a scan of either side back to back, alternating which first) | watching ${n(few.watched)} | watching ${n(many.watched)} | ratio (speed, ${n(many.watched)} / ${n(few.watched)}) | target | pass |`,
    '| --- | --- | --- | --- | --- | --- |',
    `| scan time ms, median (fastest) (${few.recorded} and ${many.recorded} deposits recorded) | ${few.medianMs.toFixed(1)} (${few.fastestMs.toFixed(1)}) | ${many.medianMs.toFixed(1)} (${many.fastestMs.toFixed(1)}) | ${result.ratio.toFixed(2)} (${(few.fastestMs / many.fastestMs).toFixed(2)}) | ≥ ${result.target} | ${result.ratio >= result.target ? 'PASS' : 'FAIL'} |`,
    `| RPC calls per scan (every run) | ${few.calls} | ${many.calls} | ${result.sameCalls ? 'equal' : 'DIFFER'} | equal | ${result.sameCalls ? 'PASS' : 'FAIL'} |`,
    `| a reconciliation pass, ${n(pass.watched)} open addresses | | ${n(pass.addresses)} addresses read: ${n(pass.calls)} eth_call in ${n(pass.requests)} HTTP requests, ${pass.ms.toFixed(0)} ms | | bounded per pass | |`,
  ].join('\n');
}
