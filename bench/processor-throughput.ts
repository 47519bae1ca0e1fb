import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { toHex, type Address, type Hex } from 'viem';
import { systemClock } from '../src/core/clock.ts';
import type { NetworkConfig } from '../src/core/networks-config.ts';
import { PROCESSOR_NOTICES_PATH } from '../src/http/processor.ts';
import { DEFAULT_POLL_MS } from '../src/processor/detection/detection.ts';
import { startForwarding } from '../src/processor/forwarding/forwarding.ts';
import { ProcessorKeys } from '../src/processor/chain/keys.ts';
import { startProcessor } from '../src/processor/processor.ts';
import { transferWithAuthorizationTypes } from '../src/core/eip3009.ts';
import type { AppContext } from '../src/verbs/context.ts';
import { startChain } from '../test/support/chain.ts';
import { deployTestTokens } from '../test/support/chain-tokens.ts';
import { deployMulticall } from '../test/support/chain-multicall.ts';
import { testTokenAbi } from '../test/support/chain-contracts.ts';
import { liveShop } from './processor.ts';

// Issue 22's third benchmark: deposits detected and forwarded per second, sustained, on the local
// chain as `npm run chain` runs it (EDR posing as Polygon, a block every 2 s, final 2 blocks deep),
// with the processor and forwarding wired as src/main.ts wires them (forwarding the processor's
// step, both at their default 2 s poll). N Live payments are started through the API (the processor
// reported its status first), the buyer sends all N deposits at once, and the run times each
// payment from the block holding its deposit to payment.paid committed, and to its forward final
// (the service's payment.updated with txid_out committed). Where the time goes is measured too:
// the JSON-RPC calls (counted and timed at the processor's fetch), the forwarding passes, signing
// alone, and the gas each block used against its limit.

export const PROCESSOR_THROUGHPUT_NAME = 'processor throughput';
const DEPTH = 2;
const BLOCK_MS = 2_000;
const AMOUNT = 10_000_000n; // 10.00 USDC

export interface ProcessorThroughputResult {
  deposits: number;
  blockMs: number;
  pollMs: number;
  /** s from the deposits' block to the last payment.paid / the last forward final. */
  paidSeconds: number;
  forwardedSeconds: number;
  /** s from the deposits' block to the first payment.paid (detection: finality, then the next poll). */
  firstPaidSeconds: number;
  /** Notices posted meanwhile (deposit.confirmed, settlement.completed, statuses) and the ms each took (the outbox posts up to 50 at once). */
  noticesSent: number;
  noticeMs: number;
  paidPerSecond: number;
  forwardedPerSecond: number;
  /** Forwards final per second between the first and the last forward final. */
  forwardSustainedPerSecond: number;
  /** Every JSON-RPC call of the processor from the deposits to the last forward final, per deposit. */
  rpcCallsPerDeposit: number;
  /** Forwarding's own calls (inside its passes), per forward, and the time they took. */
  rpcCallsPerForward: number;
  rpcMsPerForward: number;
  /** Forwarding's passes' time per forward. */
  passMsPerForward: number;
  rpcByMethod: Record<string, number>;
  forwardPasses: number;
  forwardPassMsTotal: number;
  /** ms to sign one forward's two authorizations and its transaction, alone. */
  signMsPerForward: number;
  /** The share of forwarding's time spent neither in RPC calls nor signing: the database, mostly. */
  otherMsPerForward: number;
  blocks: number;
  maxBlockGasUsedPercent: number;
  maxForwardsPerBlock: number;
}

export async function runProcessorThroughputBench(options: {
  serveDatabase(name: string): Promise<{ url: string; databaseUrl: string; context: AppContext }>;
  /** The deposit seed (hex) whose account xpub the service derives deposit addresses from. */
  seedHex: string;
  deposits: number;
  progress(line: string): void;
  cleanup(what: string, run: () => Promise<void>): void;
}): Promise<ProcessorThroughputResult> {
  const { progress } = options;
  const n = options.deposits;
  const chain = await startChain({ chainId: 137 });
  options.cleanup('throughput chain', () => chain.stop());
  const tokens = await deployTestTokens(chain);
  const multicall = await deployMulticall(chain);
  await tokens.mint('usdc', chain.accounts.buyer.address, AMOUNT * BigInt(n));
  const keys = new ProcessorKeys(Buffer.from(options.seedHex, 'hex'));
  await chain.fund(keys.gasWallet.address, 10n ** 22n);
  const service = await options.serveDatabase('processor_throughput');
  const { context } = service;

  // Every JSON-RPC call the processor makes, counted by method and timed.
  const rpc = { calls: 0, ms: 0, byMethod: new Map<string, number>(), passCalls: 0, passMs: 0 };
  // The signed notices the processor posts to the service, one request each.
  const notices = { calls: 0, ms: 0 };
  const noticesUrl = `${service.url}${PROCESSOR_NOTICES_PATH}`;
  // Forwarding runs after the scan in each poll, never beside it: calls made meanwhile are forwarding's.
  let inPass = false;
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url === noticesUrl) {
      const started = performance.now();
      try {
        return await realFetch(input, init);
      } finally {
        notices.calls += 1;
        notices.ms += performance.now() - started;
      }
    }
    if (!url.startsWith(chain.url)) return realFetch(input, init);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) as { method: string } | { method: string }[] : [];
    const counted = inPass;
    for (const call of Array.isArray(body) ? body : [body]) {
      rpc.calls += 1;
      if (counted) rpc.passCalls += 1;
      rpc.byMethod.set(call.method, (rpc.byMethod.get(call.method) ?? 0) + 1);
    }
    const started = performance.now();
    try {
      return await realFetch(input, init);
    } finally {
      rpc.ms += performance.now() - started;
      if (counted) rpc.passMs += performance.now() - started;
    }
  };
  options.cleanup('fetch', async () => {
    globalThis.fetch = realFetch;
  });

  const api = await liveShop(context, service.url, 'Throughput Bench', realFetch);

  const polygon: NetworkConfig = {
    name: 'polygon', rpcUrls: [chain.url], chainId: 137, confirmations: DEPTH, multicall: multicall.toLowerCase() as Address,
    tokens: [{ coin: 'polygon_usdc', address: tokens.address.usdc.toLowerCase() as Address }],
  };
  const quiet = (line: string) => {
    if (!line.includes('forwarding through') && !/forward \d+ final/.test(line)) progress(line);
  };
  const feeWallet = '0x3333333333333333333333333333333333333333';
  const forwarding = await startForwarding({ db: context.db, clock: systemClock, networks: [polygon], keys, feeWallet }, { log: quiet });
  options.cleanup('forwarding', () => forwarding.stop());
  const passes: number[] = [];
  const step = async (network: NetworkConfig) => {
    const started = performance.now();
    inPass = true;
    try {
      await forwarding.forwardNetwork(network);
    } finally {
      inPass = false;
    }
    passes.push(performance.now() - started);
  };
  const processor = await startProcessor({
    db: context.db, databaseUrl: service.databaseUrl, clock: systemClock, networks: [polygon],
    sender: { url: `${service.url}${PROCESSOR_NOTICES_PATH}`, secret: context.processorSecret }, deposits: context.deposits, steps: [step],
  }, { log: quiet });
  options.cleanup('throughput processor', () => processor.stop());

  // Blocks every 2 s, as Polygon and `npm run chain` make them.
  let mining = true;
  const miner = (async () => {
    while (mining) {
      await new Promise((resolve) => setTimeout(resolve, BLOCK_MS));
      if (mining) await chain.mine(1);
    }
  })();
  options.cleanup('miner', async () => {
    mining = false;
    await miner;
  });
  // Its status reaches the service (after its first scan) before the first Live start.
  while (processor.health()[0]?.lastScanAt === null) await new Promise((resolve) => setTimeout(resolve, 20));
  await processor.reportStatus();

  progress(`processor throughput: starting ${n} Live payments`);
  const sessions: { id: string; address: Address }[] = [];
  for (let i = 0; i < n; i += 10) {
    sessions.push(...await Promise.all(Array.from({ length: Math.min(10, n - i) }, async () => {
      const session = await api('POST', '/v1/checkout_sessions', { amount: '10.00', currency: 'USD' });
      const started = await api('POST', `/v1/checkout_sessions/${session.id}/start`, { email: 'buyer@throughput.example' });
      return { id: String(session.id), address: String(started.deposit_address).toLowerCase() as Address };
    })));
  }
  while (!sessions.every((session) => processor.detection.watched.has(session.address))) await new Promise((resolve) => setTimeout(resolve, 20));
  const noticesBefore = { ...notices };
  const baseline = { calls: rpc.calls, ms: rpc.ms, byMethod: new Map(rpc.byMethod), passes: passes.length, passCalls: rpc.passCalls, passMs: rpc.passMs };

  // All N deposits sent at once (the buyer's nonces in order), mined by the next block.
  progress(`processor throughput: sending ${n} deposits`);
  const buyer = chain.wallet(chain.accounts.buyer);
  const nonce = await chain.client.getTransactionCount({ address: chain.accounts.buyer.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (const [i, session] of sessions.entries()) {
    hashes.push(await buyer.writeContract({
      address: tokens.address.usdc, abi: testTokenAbi, functionName: 'transfer', args: [session.address, AMOUNT], nonce: nonce + i, gas: 100_000n,
    }));
  }
  const receipts = await Promise.all(hashes.map((hash) => chain.client.waitForTransactionReceipt({ hash, timeout: 120_000 })));
  const depositBlocks = new Set(receipts.map((receipt) => receipt.blockNumber));
  const firstBlock = receipts.reduce((low, receipt) => (receipt.blockNumber < low ? receipt.blockNumber : low), receipts[0]!.blockNumber);
  const lastBlock = receipts.reduce((high, receipt) => (receipt.blockNumber > high ? receipt.blockNumber : high), 0n);
  const depositedAt = Number((await chain.client.getBlock({ blockNumber: firstBlock })).timestamp) * 1000;
  const depositedWall = Date.now();
  progress(`processor throughput: deposits in ${depositBlocks.size} block(s) (${firstBlock}–${lastBlock}); waiting for paid and forwarded`);

  const ids = sessions.map((session) => session.id);
  const commitTimes = async (type: string) => {
    const { rows } = await sql<{ committed: number }>`
      SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 * 1000 AS committed
      FROM events WHERE type = ${type} AND payment_id = ANY(${ids})`.execute(context.db);
    return rows.map((row) => row.committed).sort((a, b) => a - b);
  };
  const deadline = Date.now() + Math.max(300_000, n * 2_000);
  for (;;) {
    const { rows } = await sql<{ done: number }>`SELECT count(*)::int AS done FROM payments WHERE id = ANY(${ids}) AND txid_out IS NOT NULL`.execute(context.db);
    if (rows[0]!.done >= n) break;
    if (Date.now() > deadline) throw new Error(`only ${rows[0]!.done} of ${n} forwards final before the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const end = {
    calls: rpc.calls - baseline.calls, ms: rpc.ms - baseline.ms, passes: passes.slice(baseline.passes),
    passCalls: rpc.passCalls - baseline.passCalls, passMs: rpc.passMs - baseline.passMs,
  };
  const byMethod = Object.fromEntries([...rpc.byMethod].map(([method, count]) => [method, count - (baseline.byMethod.get(method) ?? 0)])
    .filter(([, count]) => Number(count) > 0).sort((a, b) => Number(b[1]) - Number(a[1])));
  const paid = await commitTimes('payment.paid');
  // payment.updated follows only the settlement (txid_out, merchant_received).
  const forwarded = await commitTimes('payment.updated');
  // The block timestamps are whole seconds in the chain's time: the wall clock when the deposits' receipts came back is the start.
  const start = Math.min(depositedWall, Math.max(depositedAt, depositedWall - BLOCK_MS));
  const paidSeconds = (paid.at(-1)! - start) / 1000;
  const firstPaidSeconds = (paid[0]! - start) / 1000;
  const forwardedSeconds = ((forwarded.at(-1) ?? Date.now()) - start) / 1000;
  const sustained = forwarded.length > 1 ? (forwarded.length - 1) / ((forwarded.at(-1)! - forwarded[0]!) / 1000) : 0;

  // The blocks the forwards went into: how full they were.
  const head = await chain.head();
  let maxGasPercent = 0;
  let maxForwardsPerBlock = 0;
  for (let block = lastBlock + 1n; block <= head; block += 1n) {
    const header = await chain.client.getBlock({ blockNumber: block });
    maxGasPercent = Math.max(maxGasPercent, Number((header.gasUsed * 10_000n) / header.gasLimit) / 100);
    maxForwardsPerBlock = Math.max(maxForwardsPerBlock, header.transactions.length);
  }

  // Signing alone: one forward's two authorizations (deposit key) and its transaction (gas wallet).
  const signRounds = Math.min(n, 100);
  const signStarted = performance.now();
  for (let i = 0; i < signRounds; i++) {
    const depositKey = keys.deposit(10_000 + i);
    for (const share of [1n, 2n]) {
      await depositKey.signTypedData({
        domain: { name: 'USD Coin', version: '2', chainId: 137, verifyingContract: tokens.address.usdc }, types: transferWithAuthorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: { from: depositKey.address, to: feeWallet, value: share, validAfter: 0n, validBefore: 2n ** 40n, nonce: toHex(i * 2 + Number(share), { size: 32 }) },
      });
    }
    await keys.gasWallet.signTransaction({ chainId: 137, to: multicall, data: '0x', nonce: i, gas: 300_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n });
  }
  const signMs = (performance.now() - signStarted) / signRounds;
  const passMs = end.passes.reduce((sum, ms) => sum + ms, 0);
  mining = false;
  await miner;

  return {
    deposits: n, blockMs: BLOCK_MS, pollMs: DEFAULT_POLL_MS, paidSeconds, forwardedSeconds,
    firstPaidSeconds, noticesSent: notices.calls - noticesBefore.calls, noticeMs: (notices.ms - noticesBefore.ms) / Math.max(1, notices.calls - noticesBefore.calls),
    paidPerSecond: n / paidSeconds, forwardedPerSecond: n / forwardedSeconds, forwardSustainedPerSecond: sustained,
    rpcCallsPerDeposit: end.calls / n, rpcCallsPerForward: end.passCalls / n, rpcMsPerForward: end.passMs / n, passMsPerForward: passMs / n, rpcByMethod: byMethod as Record<string, number>,
    forwardPasses: end.passes.length, forwardPassMsTotal: passMs, signMsPerForward: signMs,
    otherMsPerForward: Math.max(0, passMs / n - end.passMs / n - signMs),
    blocks: Number(head - firstBlock) + 1, maxBlockGasUsedPercent: maxGasPercent, maxForwardsPerBlock,
  };
}

export function processorThroughputTable(r: ProcessorThroughputResult): string {
  const f = (value: number, digits = 1) => value.toFixed(digits);
  return [
    '| processor throughput (EDR on loopback, a block every 2 s, final 2 deep, 2 s polls) | deposits | deposits → paid /s | deposits → forwarded final /s | forwards final /s (first to last) | first paid s | notice ms each (up to 50 posted at once) | forwarding ms per forward | its RPC calls | its RPC ms | signing ms | other (DB) ms | fullest block (gas %, txs) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| a burst of ${r.deposits} deposits in one block | ${r.deposits} | ${f(r.paidPerSecond)} (${f(r.paidSeconds)} s) | ${f(r.forwardedPerSecond)} (${f(r.forwardedSeconds)} s) | ${f(r.forwardSustainedPerSecond)} | ${f(r.firstPaidSeconds)} | ${f(r.noticeMs)} | ${f(r.passMsPerForward)} | ${f(r.rpcCallsPerForward)} | ${f(r.rpcMsPerForward)} | ${f(r.signMsPerForward)} | ${f(r.otherMsPerForward)} | ${f(r.maxBlockGasUsedPercent)} %, ${r.maxForwardsPerBlock} |`,
  ].join('\n');
}
