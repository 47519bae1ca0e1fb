import { sql } from 'kysely';
import type { Address } from 'viem';
import { operatorPrincipal } from '../src/auth/operator.ts';
import { systemClock } from '../src/core/clock.ts';
import type { NetworkConfig } from '../src/core/networks-config.ts';
import { PROCESSOR_NOTICES_PATH } from '../src/http/processor.ts';
import { startProcessor } from '../src/processor/processor.ts';
import { DEFAULT_POLL_MS } from '../src/processor/detection/detection.ts';
import { createApiKey } from '../src/resources/api-keys/create.ts';
import { updateBusiness } from '../src/resources/businesses/update-account.ts';
import { createBusiness } from '../src/tenancy/businesses.ts';
import type { AppContext } from '../src/verbs/context.ts';
import { startForwarding, type Forwarding } from '../src/processor/forwarding/forwarding.ts';
import { ProcessorKeys } from '../src/processor/chain/keys.ts';
import { startChain } from '../test/support/chain.ts';
import { deployMulticall } from '../test/support/chain-multicall.ts';
import { deployTestTokens } from '../test/support/chain-tokens.ts';

// Issue 22's first benchmark: from the block that makes a Live deposit final to the service's
// payment.paid, with the processor polling at its default interval against a real EDR chain on
// loopback. Deposits are made one at a time, each at a moment unrelated to the poll's phase, so
// the spread covers a whole interval. The end is the commit of the payment.paid event (PostgreSQL's
// commit timestamp): from there the event reaches a receiver as the webhook delivery benchmark
// measures (a Live endpoint must be a public address, which a loopback receiver is not).
// Issue 30's settlement row runs the same deposits with forwarding as the processor's step and a
// block every 2 s, each timed on to its settlement.completed recorded by the service.

const DEPTH = 2;
const USDC = (dollars: number) => BigInt(dollars) * 1_000_000n;
export const PROCESSOR_SETTLEMENT_NAME = 'processor settlement';
const BLOCK_MS = 2_000;
const PAYOUT = '0x1111111111111111111111111111111111111111';
const FEE_WALLET = '0x3333333333333333333333333333333333333333';

/** A business with a payout wallet and a Live key, made as the operator's CLI makes them; answers one JSON call to the service with that key. */
export async function liveShop(context: AppContext, serviceUrl: string, name: string, send: typeof fetch) {
  const business = await createBusiness(context.db, systemClock, { name, ownerEmail: `owner@${name.toLowerCase().replaceAll(' ', '-')}.example` });
  const operator = { ...context, principal: await operatorPrincipal(context.db, business.id, true) };
  await updateBusiness.run(operator, { payout_wallet: PAYOUT });
  const key = (await createApiKey.run(operator, { name: 'bench' })).secret;
  return async (method: string, path: string, body?: unknown) => {
    const response = await send(`${serviceUrl}${path}`, {
      method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json() as Record<string, any>;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
}

export interface ProcessorLatencyResult {
  deposits: number;
  pollMs: number;
  /** ms from the final block to payment.paid's commit. */
  p50: number;
  p99: number;
  max: number;
  target: number;
  pass: boolean;
}

/** From the final block to settlement.completed recorded, with forwarding running and a block every BLOCK_MS. */
export interface ProcessorSettlementResult extends ProcessorLatencyResult {
  blockMs: number;
  depth: number;
  /** The same deposits' final block → payment.paid, in this run. */
  paid: { p50: number; p99: number; max: number };
  /** What the books say reached the payout and fee wallets, and what their balances on the chain say (base units). */
  books: { net: string; fee: string; payoutBalance: string; feeBalance: string; agree: boolean };
}


const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
/** p50, p99 and max of latencies (ms). */
export const spread = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
};

interface LatencyOptions {
  serveDatabase(name: string): Promise<{ url: string; databaseUrl: string; context: AppContext }>;
  deposits: number;
  progress(line: string): void;
  cleanup(what: string, run: () => Promise<void>): void;
}

/**
 * Live deposits one at a time, each at a moment unrelated to the poll's phase, each timed from the
 * moment the block that makes it final is mined to payment.paid committed, and, when `seedHex` is
 * given (forwarding as src/main.ts wires it, signing with that seed, blocks every BLOCK_MS as
 * Polygon and `npm run chain` make them), to its settlement.completed recorded: the books' forward
 * rows committed with the payment's txid_out (PostgreSQL's commit timestamps).
 */
async function timeDeposits(options: LatencyOptions, name: string, seedHex?: string) {
  const { progress } = options;
  const settling = seedHex !== undefined;
  const chain = await startChain({ chainId: 137, automine: !settling, blockIntervalMs: settling ? BLOCK_MS : undefined });
  options.cleanup(`${name} chain`, () => chain.stop());
  const tokens = await deployTestTokens(chain);
  // The processor refuses a network whose batch contract has no code; forwarding batches a forward's shares through it.
  const multicall = await deployMulticall(chain);
  await tokens.mint('usdc', chain.accounts.buyer.address, USDC(1_000_000));
  const service = await options.serveDatabase(name.replaceAll(' ', '_'));
  const { context } = service;

  const api = await liveShop(context, service.url, 'Processor Bench', fetch);

  const polygon: NetworkConfig = {
    name: 'polygon', rpcUrls: [chain.url], chainId: 137, confirmations: DEPTH, multicall: multicall.toLowerCase() as Address,
    tokens: [{ coin: 'polygon_usdc', address: tokens.address.usdc.toLowerCase() as Address }],
  };
  const log = (line: string) => {
    if (!line.includes('forwarding through') && !/forward \d+ final/.test(line)) progress(line);
  };
  let forwarding: Forwarding | undefined;
  if (settling) {
    const keys = new ProcessorKeys(Buffer.from(seedHex, 'hex'));
    await chain.fund(keys.gasWallet.address, 10n ** 22n);
    forwarding = await startForwarding({ db: context.db, clock: systemClock, networks: [polygon], keys, feeWallet: FEE_WALLET }, { log });
    options.cleanup(`${name} forwarding`, () => forwarding!.stop());
  }
  const processor = await startProcessor({
    db: context.db, databaseUrl: service.databaseUrl, clock: systemClock, networks: [polygon],
    sender: { url: `${service.url}${PROCESSOR_NOTICES_PATH}`, secret: context.processorSecret }, deposits: context.deposits,
    steps: forwarding ? [forwarding.forwardNetwork] : [],
  }, { log });
  options.cleanup(`${name} processor`, () => processor.stop());
  // Its first status, once it scanned, reaches the service before the first Live start.
  while (processor.health()[0]?.lastScanAt === null) await new Promise((resolve) => setTimeout(resolve, 20));
  await processor.reportStatus();

  /** Polls until `query` answers a commit time (ms); throws after a minute past `since`. */
  const committedAt = async (what: string, since: number, query: () => Promise<Array<{ committed: number }>>) => {
    for (;;) {
      const [row] = await query();
      if (row) return row.committed;
      if (Date.now() - since > 60_000) throw new Error(`${what} not within a minute of its final block`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const paid: number[] = [];
  const settled: number[] = [];
  for (let i = 0; i < options.deposits; i++) {
    const session = await api('POST', '/v1/checkout_sessions', { amount: '10.00', currency: 'USD' });
    const started = await api('POST', `/v1/checkout_sessions/${session.id}/start`, { email: 'buyer@processor.example' });
    const address = String(started.deposit_address).toLowerCase();
    const id = String(session.id);
    while (!processor.detection.watched.has(address)) await new Promise((resolve) => setTimeout(resolve, 5));
    // A moment unrelated to the poll's phase.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * DEFAULT_POLL_MS));
    const { blockNumber } = await tokens.transfer('usdc', chain.accounts.buyer, address as Address, USDC(10));
    // Mined now rather than at the next interval block, so the moment it turns final is this one.
    while (await chain.head() < blockNumber + BigInt(DEPTH)) await chain.mine(1);
    const finalAt = Date.now();
    paid.push(await committedAt(`payment ${id} paid`, finalAt, async () => (await sql<{ committed: number }>`
      SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 * 1000 AS committed
      FROM events WHERE type = 'payment.paid' AND payment_id = ${id}`.execute(context.db)).rows) - finalAt);
    if (settling) {
      settled.push(await committedAt(`payment ${id}'s settlement`, finalAt, async () => (await sql<{ committed: number }>`
        SELECT extract(epoch FROM pg_xact_commit_timestamp(m.xmin))::float8 * 1000 AS committed
        FROM chain_movements m JOIN payments p ON p.id = m.payment_id
        WHERE m.payment_id = ${id} AND m.kind = 'forward_net' AND p.txid_out IS NOT NULL`.execute(context.db)).rows) - finalAt);
    }
    if ((i + 1) % 10 === 0) progress(`${name}: ${i + 1}/${options.deposits} deposits`);
  }
  const booked = async (kind: 'forward_net' | 'forward_fee') => BigInt((await sql<{ sum: string | null }>`
    SELECT sum(value)::text AS sum FROM chain_movements WHERE kind = ${kind}`.execute(context.db)).rows[0]?.sum ?? '0');
  const books = { net: await booked('forward_net'), fee: await booked('forward_fee'), payout: await tokens.balanceOf('usdc', PAYOUT), fee_wallet: await tokens.balanceOf('usdc', FEE_WALLET) };
  return { paid, settled, books };
}

export async function runProcessorLatencyBench(options: LatencyOptions): Promise<ProcessorLatencyResult> {
  const { paid } = await timeDeposits(options, 'processor latency');
  const target = DEFAULT_POLL_MS + 500;
  const result = spread(paid);
  return { deposits: paid.length, pollMs: DEFAULT_POLL_MS, ...result, target, pass: result.p99 <= target };
}

/** The settlement's bound: a poll to find the deposit and broadcast its forward, the next block and DEPTH more, a poll to see it final, 500 ms of work. */
export async function runProcessorSettlementBench(options: LatencyOptions & { seedHex: string }): Promise<ProcessorSettlementResult> {
  const { paid, settled, books } = await timeDeposits(options, PROCESSOR_SETTLEMENT_NAME, options.seedHex);
  const target = 2 * DEFAULT_POLL_MS + (DEPTH + 1) * BLOCK_MS + 500;
  const result = spread(settled);
  const agree = books.net === books.payout && books.fee === books.fee_wallet && books.net > 0n;
  return {
    deposits: settled.length, pollMs: DEFAULT_POLL_MS, blockMs: BLOCK_MS, depth: DEPTH, ...result, target, pass: result.p99 <= target && agree,
    paid: spread(paid),
    books: { net: String(books.net), fee: String(books.fee), payoutBalance: String(books.payout), feeBalance: String(books.fee_wallet), agree },
  };
}

export function processorLatencyTable(result: ProcessorLatencyResult): string {
  return [
    '| processor: final block → payment.paid committed | deposits | poll interval ms | p50 ms | p99 ms | max ms | target p99 ms | pass |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    `| one deposit at a time, EDR on loopback | ${result.deposits} | ${result.pollMs} | ${Math.round(result.p50)} | ${Math.round(result.p99)} | ${Math.round(result.max)} | ≤ ${result.target} | ${result.pass ? 'PASS' : 'FAIL'} |`,
  ].join('\n');
}

export function processorSettlementTable(r: ProcessorSettlementResult): string {
  const ms = (value: number) => String(Math.round(value));
  const units = (value: string) => (Number(value) / 1e6).toFixed(6);
  return [
    `| processor: final block → settlement.completed recorded (forward mined, final ${r.depth} deep, its receipts' Transfer logs checked; the books' forward rows and txid_out committed) | deposits | poll / block ms | p50 ms | p99 ms | max ms | final → paid in this run p50 / p99 ms | books = wallets | target p99 ms | pass |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| one deposit at a time, EDR on loopback, a block every ${r.blockMs} ms | ${r.deposits} | ${r.pollMs} / ${r.blockMs} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.paid.p50)} / ${ms(r.paid.p99)} | ${r.books.agree ? 'yes' : 'NO'}: net ${units(r.books.net)} (payout ${units(r.books.payoutBalance)}), fee ${units(r.books.fee)} (fee wallet ${units(r.books.feeBalance)}) | ≤ ${r.target} | ${r.pass ? 'PASS' : 'FAIL'} |`,
  ].join('\n');
}
