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
import { startChain } from '../test/support/chain.ts';
import { deployMulticall } from '../test/support/chain-multicall.ts';
import { deployTestTokens } from '../test/support/chain-tokens.ts';

// Issue 22's first benchmark: from the block that makes a Live deposit final to the service's
// payment.paid, with the processor polling at its default interval against a real EDR chain on
// loopback. Deposits are made one at a time, each at a moment unrelated to the poll's phase, so
// the spread covers a whole interval. The end is the commit of the payment.paid event (PostgreSQL's
// commit timestamp): from there the event reaches a receiver as the webhook delivery benchmark
// measures (a Live endpoint must be a public address, which a loopback receiver is not).

const DEPTH = 2;
const USDC = (dollars: number) => BigInt(dollars) * 1_000_000n;

/** A business with a payout wallet and a Live key, made as the operator's CLI makes them; answers one JSON call to the service with that key. */
export async function liveShop(context: AppContext, serviceUrl: string, name: string, send: typeof fetch) {
  const business = await createBusiness(context.db, systemClock, { name, ownerEmail: `owner@${name.toLowerCase().replaceAll(' ', '-')}.example` });
  const operator = { ...context, principal: await operatorPrincipal(context.db, business.id, true) };
  await updateBusiness.run(operator, { payout_wallet: '0x1111111111111111111111111111111111111111' });
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

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

export async function runProcessorLatencyBench(options: {
  serveDatabase(name: string): Promise<{ url: string; databaseUrl: string; context: AppContext }>;
  deposits: number;
  progress(line: string): void;
  cleanup(what: string, run: () => Promise<void>): void;
}): Promise<ProcessorLatencyResult> {
  const { progress } = options;
  const chain = await startChain({ chainId: 137, automine: true });
  options.cleanup('chain', () => chain.stop());
  const tokens = await deployTestTokens(chain);
  // The processor refuses a network whose batch contract has no code.
  const multicall = await deployMulticall(chain);
  await tokens.mint('usdc', chain.accounts.buyer.address, USDC(1_000_000));
  const service = await options.serveDatabase('processor_latency');
  const { context } = service;

  const api = await liveShop(context, service.url, 'Processor Bench', fetch);

  const polygon: NetworkConfig = {
    name: 'polygon', rpcUrls: [chain.url], chainId: 137, confirmations: DEPTH, multicall: multicall.toLowerCase() as Address,
    tokens: [{ coin: 'polygon_usdc', address: tokens.address.usdc.toLowerCase() as Address }],
  };
  const processor = await startProcessor({
    db: context.db, databaseUrl: service.databaseUrl, clock: systemClock, networks: [polygon],
    sender: { url: `${service.url}${PROCESSOR_NOTICES_PATH}`, secret: context.processorSecret }, deposits: context.deposits,
  }, { log: (line) => progress(line) });
  options.cleanup('processor', () => processor.stop());
  // Its first status, once it scanned, reaches the service before the first Live start.
  while (processor.health()[0]?.lastScanAt === null) await new Promise((resolve) => setTimeout(resolve, 20));
  await processor.reportStatus();

  const latencies: number[] = [];
  for (let i = 0; i < options.deposits; i++) {
    const session = await api('POST', '/v1/checkout_sessions', { amount: '10.00', currency: 'USD' });
    const started = await api('POST', `/v1/checkout_sessions/${session.id}/start`, { email: 'buyer@processor.example' });
    const address = String(started.deposit_address).toLowerCase();
    while (!processor.detection.watched.has(address)) await new Promise((resolve) => setTimeout(resolve, 5));
    // A moment unrelated to the poll's phase.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * DEFAULT_POLL_MS));
    await tokens.transfer('usdc', chain.accounts.buyer, address as Address, USDC(10));
    await chain.mine(DEPTH);
    const finalAt = Date.now();
    let committed: number | undefined;
    while (committed === undefined) {
      const { rows } = await sql<{ committed: number }>`
        SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 * 1000 AS committed
        FROM events WHERE type = 'payment.paid' AND payment_id = ${String(session.id)}`.execute(context.db);
      if (rows[0]) committed = rows[0].committed;
      else await new Promise((resolve) => setTimeout(resolve, 5));
      if (Date.now() - finalAt > 60_000) throw new Error(`payment of session ${session.id} not paid within a minute of its final block`);
    }
    latencies.push(committed - finalAt);
    if ((i + 1) % 10 === 0) progress(`processor latency: ${i + 1}/${options.deposits} deposits`);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const target = DEFAULT_POLL_MS + 500;
  const p99 = percentile(sorted, 99);
  return { deposits: sorted.length, pollMs: DEFAULT_POLL_MS, p50: percentile(sorted, 50), p99, max: sorted.at(-1) ?? 0, target, pass: p99 <= target };
}

export function processorLatencyTable(result: ProcessorLatencyResult): string {
  return [
    '| processor: final block → payment.paid committed | deposits | poll interval ms | p50 ms | p99 ms | max ms | target p99 ms | pass |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    `| one deposit at a time, EDR on loopback | ${result.deposits} | ${result.pollMs} | ${Math.round(result.p50)} | ${Math.round(result.p99)} | ${Math.round(result.max)} | ≤ ${result.target} | ${result.pass ? 'PASS' : 'FAIL'} |`,
  ].join('\n');
}
