import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildMetricsApp } from '../../src/app.ts';
import { MINUTE } from '../../src/core/clock.ts';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { readinessOf } from '../../src/health.ts';
import { ChainClient } from '../../src/processor/chain/chain-client.ts';
import { Detector } from '../../src/processor/detection/detector.ts';
import { registerProcessorMetrics } from '../../src/processor/operating/metrics.ts';
import { publicText } from '../../src/core/public-text.ts';
import { scanChecks } from '../../src/processor/operating/status.ts';
import { WatchedAddresses } from '../../src/processor/detection/watched-addresses.ts';
import type { TestChain } from '../support/chain.ts';
import type { TestTokens } from '../support/chain-tokens.ts';
import { runCli } from '../support/cli.ts';
import { freePort, startTestApp, TEST_SECRETS, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc as USDC, type PolygonTestChain } from '../support/processor-chain.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';
import { servedCoins } from '../../src/resources/networks/served.ts';
import { startProcessor } from '../../src/processor/processor.ts';
import { TEST_PROCESSOR_SECRET } from '../support/harness.ts';
import type { RpcProxy } from '../support/rpc-proxy.ts';

// Operating the processor (issue 22, must have 6): `processor status` from the database alone,
// the processor's Prometheus series and /readyz on the METRICS_PORT listener, after real scans of
// a real chain (EDR posing as Polygon) and a scan that fails.

const DEPTH = 2;
const FAR = new Date('2100-01-01T00:00:00Z');

let t: TestApp;
let polygonChain: PolygonTestChain;
let chain: TestChain;
let tokens: TestTokens;
let proxy: RpcProxy;
let polygon: NetworkConfig;
let detector: Detector;
let side: FastifyInstance;
let metricsUrl: string;
let dataDir: string;

/** The value of one series as exposed (name with its labels); undefined when absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
const scrape = async () => (await fetch(`${metricsUrl}/metrics`)).text();

/** The CLI as an operator runs it, configured for Polygon with an RPC URL nobody answers: it must not need one. */
const status = async (...args: string[]) => runCli(t, ['processor', 'status', ...args], {
  DATA_DIR: dataDir, POLYGON_RPC_URL: `http://127.0.0.1:${await freePort()}`, POLYGON_CHAIN_ID: '137', POLYGON_CONFIRMATIONS: String(DEPTH),
  POLYGON_USDC: tokens.address.usdc, POLYGON_USDT: tokens.address.usdt, BASE_RPC_URL: undefined, ETHEREUM_RPC_URL: undefined,
});

beforeAll(async () => {
  // Real time: the CLI, a process of its own, reads the system clock.
  [t, polygonChain, dataDir] = await Promise.all([startTestApp({ RATE_LIMITS: 'off' }, { clockStart: Date.now() }), startPolygonChain({ depth: DEPTH }), mkdtemp(path.join(tmpdir(), 'processor-status-'))]);
  ({ chain, tokens, proxy, polygon } = polygonChain);
  const watched = new WatchedAddresses();
  detector = new Detector({ db: t.db, network: polygon, client: new ChainClient(polygon, { timeoutMs: 300, retryDelayMs: 10, rounds: 2 }), watched, clock: t.clock },
    { startBlock: await chain.head() });
  const deposit = (await chain.newAccount()).address;
  watched.add(deposit, FAR);
  await t.db.insertInto('processor.watched_addresses').values({ address: deposit.toLowerCase(), payment_id: 'pay_status', watch_from: t.clock.now(), watch_until: FAR }).execute();
  await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(30));
  await chain.mine(DEPTH);

  registerProcessorMetrics(t.context.metrics.registry, t.db, t.clock, ['polygon']);
  side = await buildMetricsApp(t.context, readinessOf(t.db, undefined, scanChecks(t.db, () => t.clock.now(), ['polygon'], 2_000)));
  await side.listen({ port: 0, host: '127.0.0.1' });
  metricsUrl = `http://127.0.0.1:${(side.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await side?.close();
  await polygonChain?.stop();
  await t?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

afterEach(() => proxy.set({}));

describe('before the first scan', () => {
  it('/readyz is not ready: the network was never scanned', async () => {
    const ready = await fetch(`${metricsUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', migrations: 'ok', scan_polygon: 'never' } });
  });

  it('processor status says why, when the processor refused the network\'s configuration', async () => {
    const refusal = `POLYGON_USDC ${tokens.address.usdc.toLowerCase()} has decimals() 18; the service prices polygon_usdc in 6 decimals.`;
    await reportProcessorStatus(t, { networks: [{ network: 'polygon', healthy: false, problem: refusal, head_block: null, final_block: null, cursor_block: null }] });
    const { code, stdout } = await status('--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).networks[0]).toMatchObject({ health: 'never', problem: `Never scanned. The processor says: ${refusal}`, served_to_buyers: false });
  });
});

describe('after a scan', () => {
  let head: bigint;
  beforeAll(async () => {
    const result = await detector.scan();
    expect(result.recorded).toBe(1);
    head = await chain.head();
    // What the processor tells the service after such a scan: Live starts offer Polygon.
    await reportProcessorStatus(t, { networks: [{ network: 'polygon', head_block: String(head), final_block: String(head - BigInt(DEPTH)), cursor_block: String(head - BigInt(DEPTH) + 1n) }] });
  });

  it('processor status --json: head, final, cursor and lag, the watch list, deposits awaiting forward, the last scan', async () => {
    const { code, stdout } = await status('--json');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const { networks } = JSON.parse(lines[0]!);
    expect(networks).toEqual([{
      network: 'polygon', configured: true, chain_id: 137, health: 'ok', problem: null,
      served_to_buyers: true, last_report: { healthy: true, problem: null, at: expect.any(String), age_seconds: expect.any(Number) },
      head_block: Number(head), final_block: Number(head) - DEPTH, cursor: Number(head) - DEPTH + 1, lag_blocks: 0,
      watched_addresses: 1,
      last_scan_at: expect.any(String), last_scan_age_seconds: expect.any(Number),
      last_error: null, scan_errors: 0, transfers_recorded: 1,
      reconciliation: { last_at: expect.any(String), last_block: Number(head) - DEPTH, recovered: 0, unexplained: 0 },
      // The processor that scanned here was detection alone (test/processor/processor.test.ts shows deposits waiting).
      deposits_waiting_for_finality: { count: 0, by_token: [] },
      deposits_awaiting_forward: {
        count: 1, by_token: [{ token: tokens.address.usdc.toLowerCase(), coin: 'polygon_usdc', count: 1, amount: '30.000000' }],
      },
      // No forwarding ran here (test/processor/forwarding.test.ts shows them with forwards and a gas wallet).
      forwards: { pending: 0, failed: 0, failures: [] },
      gas_wallet: { address: null, balance_wei: null, balance: null, low: false, low_below_wei: null, checked_at: null },
      forwarding: { healthy: true, trouble: null, problem: null, failed: 0, late: 0, late_after_minutes: 10, delayed: [] },
      // No buyer paid over x402 here (test/x402/live.test.ts shows refusals).
      x402: { waiting: [], submitting: [], refused_last_day: [] },
    }]);
    expect(networks[0].last_scan_age_seconds).toBeLessThan(60);
  });

  it('processor status: the same, for a person', async () => {
    const { code, stdout } = await status();
    expect(code).toBe(0);
    const final = Number(head) - DEPTH;
    expect(stdout).toContain('polygon (chain id 137): healthy\n');
    expect(stdout).toMatch(/\n {2}offered to Live buyers: yes; last status report: healthy, \S+ \(\d+ s ago\)\n/);
    expect(stdout).toContain('  forwarding: ok');
    expect(stdout).toContain('  x402: 0 waiting for the processor, 0 on their way, 0 refused or failed in the last day\n');
    expect(stdout).toContain(`  head ${head}, final ${final}, cursor ${final + 1}, lag 0 blocks\n`);
    expect(stdout).toContain('  watched addresses: 1\n');
    expect(stdout).toContain('  last error: none\n');
    expect(stdout).toContain(`  reconciliation: last at block ${final}, `);
    expect(stdout).toContain('  deposits waiting for finality: 0');
    expect(stdout).toContain('  deposits awaiting forward: 1 (30.000000 polygon_usdc)');
  });

  it('/metrics: head, final, lag, watched addresses, transfers recorded, last scan age; /readyz ready', async () => {
    const text = await scrape();
    expect(valueOf(text, 'processor_head_block{network="polygon"}')).toBe(Number(head));
    expect(valueOf(text, 'processor_final_block{network="polygon"}')).toBe(Number(head) - DEPTH);
    expect(valueOf(text, 'processor_cursor_lag_blocks{network="polygon"}')).toBe(0);
    expect(valueOf(text, 'processor_watched_addresses')).toBe(1);
    expect(valueOf(text, 'processor_transfers_recorded_total{network="polygon"}')).toBe(1);
    expect(valueOf(text, 'processor_scan_errors_total{network="polygon"}')).toBe(0);
    expect(valueOf(text, 'processor_reconciliation_findings_total{network="polygon",outcome="recovered"}')).toBe(0);
    expect(valueOf(text, 'processor_last_successful_scan_age_seconds{network="polygon"}')).toBeLessThan(60);
    expect(text).toContain('# TYPE processor_transfers_recorded_total counter');
    // Probes within a second share one check (health.ts): the one before the scan may still answer.
    await expect.poll(async () => (await fetch(`${metricsUrl}/readyz`)).json())
      .toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok', scan_polygon: 'ok' } });
  });
});

describe('when scans fail', () => {
  it('the status shows the last error and the lag grows; the metrics count the error', async () => {
    await chain.mine(5);
    // The head is read, then every log query is refused: the cursor stays while the final block moves on.
    proxy.set({ tooManyRequests: Infinity, only: ['eth_getLogs'] });
    await expect(detector.scan()).rejects.toThrow('eth_getLogs failed on every RPC URL');
    const { stdout } = await status('--json');
    const [polygonStatus] = JSON.parse(stdout).networks;
    expect(polygonStatus.lag_blocks).toBe(5);
    expect(polygonStatus.scan_errors).toBe(1);
    // Each URL by its origin, and why: the proxy's 429 in words.
    expect(polygonStatus.last_error).toEqual({ message: `scan: polygon: eth_getLogs failed on every RPC URL (${proxy.url}: HTTP status 429)`, at: expect.any(String) });
    expect((await status()).stdout).toMatch(/ {2}last error: \S+ \(\d+ s ago\): scan: polygon: eth_getLogs failed/);
    const text = await scrape();
    expect(valueOf(text, 'processor_scan_errors_total{network="polygon"}')).toBe(1);
    expect(valueOf(text, 'processor_cursor_lag_blocks{network="polygon"}')).toBe(5);
  });

  it('/readyz turns unavailable once no scan reached the final block for 2 minutes, and ready again after one does', async () => {
    t.clock.advance(2 * MINUTE + 1_000);
    const checks = readinessOf(t.db, undefined, scanChecks(t.db, () => t.clock.now(), ['polygon', 'base'], 2_000));
    expect(await checks()).toEqual({ ready: false, checks: { database: 'ok', migrations: 'ok', scan_polygon: 'stale', scan_base: 'never' } });
    await detector.scan();
    const polygonOnly = readinessOf(t.db, undefined, scanChecks(t.db, () => t.clock.now(), ['polygon'], 2_000));
    expect(await polygonOnly()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', scan_polygon: 'ok' } });
  });

  it('keeps an RPC URL\'s path (where providers put the API key) out of the error it stores', () => {
    expect(publicText(new Error('request to https://polygon-mainnet.infura.io/v3/0123456789abcdef failed\nmore')))
      .toBe('request to https://polygon-mainnet.infura.io failed');
  });
});

describe('healthy only as buyers see it (the service\'s freshness rule)', () => {
  let processor: Awaited<ReturnType<typeof startProcessor>>;
  const statusJson = async (env: Record<string, string> = {}) => {
    const { stdout } = await runCli(t, ['processor', 'status', '--json'], { DATA_DIR: dataDir, BASE_RPC_URL: undefined, ETHEREUM_RPC_URL: undefined, POLYGON_RPC_URL: undefined, ...env });
    return JSON.parse(stdout).networks.find((network: { network: string }) => network.network === 'polygon');
  };
  beforeAll(async () => {
    processor = await startProcessor({
      db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon],
      sender: { url: `${t.url}/processor/notices`, secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
    }, { manual: true, rpc: { timeoutMs: 300, retryDelayMs: 10, rounds: 2 }, log: () => undefined });
  });
  afterAll(async () => processor?.stop());

  it('the RPC down: the processor reports it unhealthy at once, the service refuses starts, and processor status says so while its last scan is still recent', async () => {
    await processor.poll();
    await processor.reportStatus();
    expect(await servedCoins(t.db, t.clock.now(), t.config.processorStatusFreshSeconds)).toEqual(['polygon_usdc']);
    proxy.set({ tooManyRequests: Infinity });
    await processor.poll();
    await processor.reportStatus();
    expect(await servedCoins(t.db, t.clock.now(), t.config.processorStatusFreshSeconds)).toEqual([]);
    const shown = await statusJson();
    expect(shown).toMatchObject({ health: 'not_served', served_to_buyers: false, last_report: { healthy: false } });
    expect(shown.problem).toMatch(/^The processor reported it unhealthy: polygon: eth_blockNumber failed on every RPC URL \(.+\)\. Live starts do not offer it\.$/);
    // The last successful scan is younger than the scan rule's 2 minutes: that alone said "healthy".
    expect(shown.last_scan_age_seconds).toBeLessThan(120);
    const { stdout } = await runCli(t, ['processor', 'status'], { DATA_DIR: dataDir, POLYGON_RPC_URL: undefined, BASE_RPC_URL: undefined, ETHEREUM_RPC_URL: undefined });
    expect(stdout).toContain('polygon (chain id 137): NOT HEALTHY: The processor reported it unhealthy: ');
    expect(stdout).toContain('  offered to Live buyers: no; last status report: unhealthy (');
  });

  it('no status for longer than PROCESSOR_STATUS_FRESH_SECONDS (the processor stopped reporting): not healthy, as the service refuses starts', async () => {
    await processor.poll();
    await processor.reportStatus();
    // Seen from the system clock the CLI reads: scanned just now, last reported 20 s ago.
    await t.db.updateTable('processor.network_scans').set({ scanned_at: new Date() }).where('network', '=', 'polygon').execute();
    await t.db.updateTable('processor_networks').set({ healthy: true, problem: null, reported_at: new Date(Date.now() - 20_000) }).where('network', '=', 'polygon').execute();
    expect(await servedCoins(t.db, new Date(), 15)).toEqual([]);
    const shown = await statusJson({ PROCESSOR_STATUS_FRESH_SECONDS: '15' });
    expect(shown).toMatchObject({ health: 'not_served', served_to_buyers: false, problem: 'Its last status report is older than PROCESSOR_STATUS_FRESH_SECONDS (15 s): Live starts do not offer it.' });
    expect(await statusJson({ PROCESSOR_STATUS_FRESH_SECONDS: '60' })).toMatchObject({ health: 'ok', served_to_buyers: true, problem: null });
  });

  it('a cursor ahead of the chain\'s head (the chain restarted): said by processor status, and reported unhealthy by the processor', async () => {
    const { next_block: kept } = await t.db.selectFrom('processor.cursors').select('next_block').where('network', '=', 'polygon').executeTakeFirstOrThrow();
    const head = Number(await chain.head());
    try {
      await t.db.updateTable('processor.cursors').set({ next_block: head + 800 }).where('network', '=', 'polygon').execute();
      await processor.poll();
      await processor.reportStatus();
      expect(await servedCoins(t.db, t.clock.now(), t.config.processorStatusFreshSeconds)).toEqual([]);
      const shown = await statusJson();
      expect(shown).toMatchObject({ health: 'cursor_ahead', cursor: head + 800, head_block: head, lag_blocks: 0 });
      expect(shown.problem).toBe(`The chain's head (block ${head}) is behind the blocks already scanned (up to ${head + 799}): was the chain restarted or replaced? Deposits are not seen until it passes block ${head + 799}.`);
      const stored = await t.db.selectFrom('processor_networks').select(['healthy', 'problem']).where('network', '=', 'polygon').executeTakeFirstOrThrow();
      expect(stored).toEqual({ healthy: false, problem: shown.problem });
    } finally {
      await t.db.updateTable('processor.cursors').set({ next_block: kept }).where('network', '=', 'polygon').execute();
    }
  });
});

it('a --role processor process serves its series on METRICS_PORT, and is ready once each network it watches was scanned and its gas wallet can pay', async () => {
  // The tests above scanned on the test's clock; as far as this process knows, the last scan was long ago.
  await t.db.updateTable('processor.network_scans').set({ scanned_at: new Date(Date.now() - 60 * MINUTE) }).execute();
  await chain.mine(3);
  const head = Number(await chain.head());
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ['src/main.ts', '--role', 'processor'], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent',
      SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), PORT: String(port), METRICS_PORT: String(metricsPort),
      POLYGON_RPC_URL: proxy.url, POLYGON_CHAIN_ID: '137', POLYGON_CONFIRMATIONS: String(DEPTH),
      POLYGON_USDC: tokens.address.usdc, POLYGON_USDT: tokens.address.usdt, POLYGON_MULTICALL: polygonChain.multicall, PROCESSOR_POLL_MS: '200',
      // The processor forwards only once it knows where the fee goes.
      PROCESSOR_FEE_WALLET: '0x1111111111111111111111111111111111111111',
    },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const base = `http://127.0.0.1:${metricsPort}`;
    // Its gas wallet (of the seed it generated) holds nothing: scanned, but its forwards cannot happen.
    await vi.waitFor(async () => expect(await (await fetch(`${base}/readyz`)).json())
      .toEqual({ status: 'unavailable', checks: { database: 'ok', migrations: 'ok', scan_polygon: 'ok', forwarding_polygon: 'gas_wallet' } }), { timeout: 30_000, interval: 200 });
    const { address: gasWallet } = await t.db.selectFrom('processor.gas_wallets').select('address').where('network', '=', 'polygon').executeTakeFirstOrThrow();
    await chain.fund(gasWallet as `0x${string}`, 10n ** 18n);
    await vi.waitFor(async () => expect(await (await fetch(`${base}/readyz`)).json())
      .toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok', scan_polygon: 'ok', forwarding_polygon: 'ok' } }), { timeout: 30_000, interval: 200 });
    // Its own scan made it ready: it saw the head mined just now.
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(valueOf(text, 'processor_head_block{network="polygon"}')).toBe(head);
    expect(valueOf(text, 'processor_cursor_lag_blocks{network="polygon"}')).toBe(0);
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 60_000);

