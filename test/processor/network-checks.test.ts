import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { ForwardChain } from '../../src/processor/chain/forward-chain.ts';
import { CHECK_EVERY_MS, checkNetwork } from '../../src/processor/chain/network-checks.ts';
import { coinAmount } from '../../src/processor/notices/outbox.ts';
import { startProcessor } from '../../src/processor/processor.ts';
import { servedCoins } from '../../src/resources/networks/served.ts';
import { deployFiatToken, type FiatToken } from '../support/chain-fiat-token.ts';
import { startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc, type PolygonTestChain } from '../support/processor-chain.ts';

// Each network's configuration checked against its chain (issue 30, must have 2), on a real EDR
// chain posing as Polygon with the test tokens, our Multicall3 and Circle's FiatTokenV2_2: a token
// without code, with 18 decimals or another EIP-712 domain, a batch address without code, another
// chain id: each refused in one sentence, at start and when a later check fails, reported
// unhealthy to the service (which stops offering the network), and healthy again once it passes.

const DEPTH = 2;
const FAR = new Date('2100-01-01T00:00:00Z');
const rpc = { timeoutMs: 1_500, retryDelayMs: 10, rounds: 2 };

let t: TestApp;
let polygonChain: PolygonTestChain;
let polygon: NetworkConfig;
let fiat: FiatToken;
let eighteen: FiatToken;
let renamed: FiatToken;
const logs: string[] = [];

const lower = (address: string) => address.toLowerCase() as `0x${string}`;
const withUsdc = (address: string): NetworkConfig => ({ ...polygon, tokens: [{ coin: 'polygon_usdc', address: lower(address) }, polygon.tokens[1]!] });
const verdictOf = (network: NetworkConfig) => checkNetwork(new ForwardChain(network, rpc));
const problemOf = async (network: NetworkConfig) => {
  const verdict = await verdictOf(network);
  return verdict.state === 'ok' ? null : verdict.problem;
};

beforeAll(async () => {
  [t, polygonChain] = await Promise.all([startTestApp({ RATE_LIMITS: 'off' }, { clockStart: Date.now() }), startPolygonChain({ depth: DEPTH, realUsdc: true })]);
  polygon = polygonChain.polygon;
  fiat = polygonChain.fiat!;
  eighteen = await deployFiatToken(polygonChain.chain, { decimals: 18 });
  renamed = await deployFiatToken(polygonChain.chain, { name: 'USD Coin (bridged)' });
});

afterAll(async () => {
  await polygonChain?.stop();
  await t?.close();
});

describe('the checks, one verdict per network', () => {
  it('pass for the test tokens (ERC-5267 eip712Domain) and for Circle\'s FiatTokenV2_2 (DOMAIN_SEPARATOR), each token with the decimals its contract answers', async () => {
    for (const network of [polygon, withUsdc(fiat.address)]) {
      const verdict = await verdictOf(network);
      expect(verdict).toMatchObject({ state: 'ok' });
      expect(verdict.network.tokens.map((token) => token.decimals)).toEqual([6, 6]);
    }
  });

  it('refuse, in one sentence naming the variable, the address and what was found', async () => {
    const nothing = lower((await polygonChain.chain.newAccount()).address);
    const e = lower(eighteen.address);
    const r = lower(renamed.address);
    expect(await problemOf(withUsdc(eighteen.address))).toBe(`POLYGON_USDC ${e} has decimals() 18; the service prices polygon_usdc in 6 decimals.`);
    expect(await problemOf({ ...polygon, tokens: [polygon.tokens[0]!, { coin: 'polygon_usdt', address: nothing }] }))
      .toBe(`POLYGON_USDT ${nothing} has no contract code on polygon (chain id 137).`);
    expect(await problemOf({ ...polygon, multicall: nothing }))
      .toBe(`POLYGON_MULTICALL ${nothing} has no contract code on polygon, and forwards are batched through it (Multicall3's aggregate3).`);
    expect(await problemOf(withUsdc(renamed.address))).toBe(
      `POLYGON_USDC ${r} has a DOMAIN_SEPARATOR() other than that of the EIP-712 domain the processor signs for ("USD Coin", version "2", chain id 137, verifying contract ${r}).`,
    );
    expect(await problemOf({ ...polygon, chainId: 80_002 })).toBe('POLYGON_CHAIN_ID is 80002, but the node at POLYGON_RPC_URL answers chain id 137.');
  });

  it('say a node that does not answer apart from a configuration fault', async () => {
    polygonChain.proxy.set({ tooManyRequests: Infinity });
    try {
      expect(await verdictOf(polygon)).toMatchObject({ state: 'unchecked', problem: expect.stringMatching(/^polygon: its configuration could not be checked/) });
    } finally {
      polygonChain.proxy.set({});
    }
  });
});

it('credits a deposit in the decimals the token answered, and refuses what six decimals cannot write', () => {
  expect(coinAmount(12_345_678n, 6)).toBe('12.345678');
  expect(coinAmount(1_500_000_000_000_000_000n, 18)).toBe('1.500000');
  expect(() => coinAmount(1n, 18)).toThrow(/more than six/);
});

describe('a processor', () => {
  const start = (networks: NetworkConfig[], options: { manual?: boolean; pollMs?: number; rpc?: typeof rpc } = {}) => startProcessor({
    db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks,
    sender: { url: `${t.url}/processor/notices`, secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
  }, { manual: true, rpc, log: (line) => logs.push(line), ...options });
  const reported = () => t.db.selectFrom('processor_networks').select(['network', 'healthy', 'problem']).where('network', '=', 'polygon').executeTakeFirst();
  const served = () => servedCoins(t.db, t.clock.now(), t.config.processorStatusFreshSeconds);
  const watch = async (processor: Awaited<ReturnType<typeof start>>) => {
    const address = lower((await polygonChain.chain.newAccount()).address);
    const payout = lower((await polygonChain.chain.newAccount()).address);
    await t.db.insertInto('processor.watched_addresses').values({
      address, payment_id: `pay_checks${address.slice(2, 10)}`, watch_from: t.clock.now(), watch_until: FAR, payout_wallet: payout, fee_bps: 150,
    }).execute();
    processor.detection.watched.add(address, FAR);
    return address;
  };
  const depositNotices = (address: string) => t.db.selectFrom('processor.notices_out').select('body').where('kind', '=', 'deposit.confirmed')
    .where(({ ref }) => ref('body', '->>').key('deposit_address' as never), '=', address).execute();

  it('configured with an 18-decimal token as POLYGON_USDC: refuses the network at start in one sentence, credits nothing, and reports it unhealthy', async () => {
    const processor = await start([withUsdc(eighteen.address)]);
    try {
      const sentence = `POLYGON_USDC ${lower(eighteen.address)} has decimals() 18; the service prices polygon_usdc in 6 decimals.`;
      expect(processor.health()[0]).toMatchObject({ network: 'polygon', configProblem: sentence });
      expect(logs).toContain(`[processor] polygon refused: ${sentence}`);
      const address = await watch(processor);
      await eighteen.mint(address as Address, 10n ** 18n);
      await polygonChain.chain.mine(DEPTH + 1);
      await processor.poll();
      await processor.reportStatus();
      // Credited as six decimals, one token of 18 would have been a million million dollars.
      expect(await depositNotices(address)).toEqual([]);
      expect(await reported()).toEqual({ network: 'polygon', healthy: false, problem: sentence });
      expect((await served()).some((coin) => coin.startsWith('polygon'))).toBe(false);
    } finally {
      await processor.stop();
    }
  });

  it('whose check fails later (a token\'s code gone): reports the network unhealthy with the sentence, then healthy once the check passes again; a FiatTokenV2_2 deposit is credited in its six decimals', async () => {
    const network = withUsdc(fiat.address);
    const processor = await start([network]);
    const usdt = network.tokens[1]!.address;
    const code = await polygonChain.chain.client.getCode({ address: usdt });
    try {
      await processor.poll();
      await processor.reportStatus();
      expect(await reported()).toMatchObject({ healthy: true, problem: null });
      const address = await watch(processor);
      await fiat.transfer(polygonChain.chain.accounts.buyer, address as Address, usdc(12) + 345_678n);
      await polygonChain.chain.mine(DEPTH);
      await processor.poll();
      expect((await depositNotices(address)).map(({ body }) => (body as { amount: string }).amount)).toEqual(['12.345678']);

      await polygonChain.chain.node.setCode({ address: usdt, bytecode: '0x' });
      t.clock.advance(CHECK_EVERY_MS - 1_000);
      await processor.poll();
      await processor.reportStatus();
      expect(await reported(), 'not before the check is due').toMatchObject({ healthy: true });
      t.clock.advance(1_000);
      await processor.poll();
      await processor.reportStatus();
      const sentence = `POLYGON_USDT ${usdt} has no contract code on polygon (chain id 137).`;
      expect(await reported()).toEqual({ network: 'polygon', healthy: false, problem: sentence });
      expect((await served()).some((coin) => coin.startsWith('polygon'))).toBe(false);

      await polygonChain.chain.node.setCode({ address: usdt, bytecode: code! });
      t.clock.advance(CHECK_EVERY_MS);
      await processor.poll();
      await processor.reportStatus();
      expect(await reported()).toMatchObject({ healthy: true, problem: null });
      expect(await served()).toContain('polygon_usdc');
    } finally {
      await polygonChain.chain.node.setCode({ address: usdt, bytecode: code! });
      await processor.stop();
    }
  });

  it('with one network\'s node hanging: the other network\'s deposit is found and told at its own pace', async () => {
    // A node that takes requests and never answers, for Base.
    const hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const base: NetworkConfig = { ...withUsdc(fiat.address), name: 'base', rpcUrls: [`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v2/key`] };
    const slow = { timeoutMs: 2_000, retryDelayMs: 10, rounds: 1 };
    const processor = await start([withUsdc(fiat.address), base], { manual: false, pollMs: 100, rpc: slow });
    try {
      const address = await watch(processor);
      await fiat.transfer(polygonChain.chain.accounts.buyer, address as Address, usdc(3));
      await polygonChain.chain.mine(DEPTH);
      const minedAt = Date.now();
      // Each of Base's passes waits 6 s for its node (the check's two tries, the scan's one); Polygon's go on every 100 ms meanwhile.
      await expect.poll(async () => (await depositNotices(address)).length, { timeout: 2_500, interval: 50 }).toBe(1);
      expect(Date.now() - minedAt).toBeLessThan(2_500);
      expect(processor.health().find((state) => state.network === 'polygon')).toMatchObject({ lastError: null });
    } finally {
      await processor.stop();
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  }, 30_000);
});
