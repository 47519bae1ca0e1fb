import { encodeFunctionData, type Address } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StartupError } from '../../src/core/errors.ts';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { ChainClient, RangeRefused } from '../../src/processor/chain/chain-client.ts';
import { startDetection, type Detection } from '../../src/processor/detection/detection.ts';
import { WatchedAddresses } from '../../src/processor/detection/watched-addresses.ts';
import { Detector, transfersOf } from '../../src/processor/detection/detector.ts';
import { startChain, type TestChain } from '../support/chain.ts';
import { testTokenAbi } from '../support/chain-contracts.ts';
import { deployTestTokens, type TestTokens } from '../support/chain-tokens.ts';
import { freePort, startTestApp, type TestApp } from '../support/harness.ts';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Detection against a real EDR node posing as Polygon, through the misbehaving RPC proxy: each
// deposit to a watched address recorded once, once final, whatever the node does; reorganisations
// rolled back; new Live deposit addresses learnt through NOTIFY as their start commits.

const USDC = (dollars: number) => BigInt(dollars) * 1_000_000n;
const DEPTH = 2;
const FAR = new Date('2100-01-01T00:00:00Z');

let t: TestApp;
let chain: TestChain;
let tokens: TestTokens;
let proxy: RpcProxy;
let polygon: NetworkConfig;
let detection: Detection;

const rows = async (to: Address) => (await transfersOf(t.db, 'polygon')).filter((row) => row.to_address === to.toLowerCase());
const watchNew = async () => {
  const address = (await chain.newAccount()).address;
  detection.watched.add(address, FAR);
  return address;
};
const scan = () => detection.detectors[0]!.scan();

beforeAll(async () => {
  [t, chain] = await Promise.all([startTestApp({ RATE_LIMITS: 'off' }), startChain({ chainId: 137 })]);
  [tokens, proxy] = await Promise.all([deployTestTokens(chain), startRpcProxy(chain.url, { hangLimitMs: 2_000 })]);
  await tokens.mint('usdc', chain.accounts.buyer.address, USDC(10_000));
  await tokens.mint('usdt', chain.accounts.buyer.address, USDC(10_000));
  polygon = {
    name: 'polygon', rpcUrls: [proxy.url], chainId: 137, confirmations: DEPTH,
    tokens: [
      { coin: 'polygon_usdc', address: tokens.address.usdc.toLowerCase() as `0x${string}` },
      { coin: 'polygon_usdt', address: tokens.address.usdt.toLowerCase() as `0x${string}` },
    ],
  };
  detection = await startDetection({ db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon] }, {
    rpc: { timeoutMs: 300, retryDelayMs: 10, rounds: 3 }, log: () => undefined,
  });
});

afterAll(async () => {
  await detection?.stop();
  await proxy?.stop();
  await chain?.stop();
  await t?.close();
});

afterEach(() => proxy.set({}));

describe('a deposit to a watched address', () => {
  it('is recorded once it is final, and once however often the scan runs', async () => {
    const deposit = await watchNew();
    const receipt = await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(30));
    await scan();
    expect(await rows(deposit), 'not final yet').toEqual([]);
    await chain.mine(DEPTH);
    expect((await scan()).recorded).toBe(1);
    expect((await scan()).recorded).toBe(0);
    const recorded = await rows(deposit);
    expect(recorded).toEqual([expect.objectContaining({
      tx_hash: receipt.transactionHash, log_index: 0, block_number: Number(receipt.blockNumber), block_hash: receipt.blockHash,
      token: tokens.address.usdc.toLowerCase(), from_address: chain.accounts.buyer.address.toLowerCase(), value: '30000000', status: 'final',
    })]);
  });

  it('counts the other configured token; ignores an unwatched recipient and a zero-value transfer', async () => {
    const watched = await watchNew();
    const spoofed = await watchNew();
    const stranger = (await chain.newAccount()).address;
    await tokens.transfer('usdt', chain.accounts.buyer, watched, USDC(12));
    await tokens.transfer('usdc', chain.accounts.buyer, stranger, USDC(12));
    await tokens.transfer('usdc', chain.accounts.buyer, spoofed, 0n);
    await chain.mine(DEPTH);
    await scan();
    expect((await rows(watched)).map((row) => [row.token, row.value])).toEqual([[tokens.address.usdt.toLowerCase(), '12000000']]);
    expect(await rows(stranger)).toEqual([]);
    expect(await rows(spoofed)).toEqual([]);
  });

  it('is not matched once its watch ended before the blocks scanned', async () => {
    const ended = (await chain.newAccount()).address;
    detection.watched.add(ended, new Date('2020-01-01T00:00:00Z'));
    await tokens.transfer('usdc', chain.accounts.buyer, ended, USDC(3));
    await chain.mine(DEPTH);
    await scan();
    expect(await rows(ended)).toEqual([]);
    expect(detection.watched.has(ended)).toBe(false);
  });

  it('is recorded once when two scans run at once (a second processor started by mistake)', async () => {
    const deposit = await watchNew();
    await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(5));
    await chain.mine(DEPTH);
    const second = new Detector({ db: t.db, network: polygon, client: new ChainClient(polygon), watched: detection.watched, clock: t.clock });
    const outcomes = await Promise.allSettled([scan(), second.scan(), scan()]);
    expect(outcomes.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
    await scan();
    expect((await rows(deposit)).map((row) => row.value)).toEqual(['5000000']);
  });
});

describe('the cost of watching', () => {
  it('a scan makes the same RPC calls watching 100,000 addresses as watching 10', async () => {
    const deposit = await watchNew();
    const from = await chain.head();
    await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(1));
    await chain.mine(DEPTH + 5);
    // The same blocks scanned by two fresh detectors (as two networks, each with its own cursor).
    const scanWatching = async (name: 'base' | 'ethereum', count: number) => {
      const watched = new WatchedAddresses();
      for (let i = 1; i < count; i += 1) watched.add(`0x${i.toString(16).padStart(40, '0')}`, FAR);
      watched.add(deposit, FAR);
      const network = { ...polygon, name };
      const detector = new Detector({ db: t.db, network, client: new ChainClient(network), watched, clock: t.clock }, { startBlock: from });
      const before = proxy.calls();
      const { recorded } = await detector.scan();
      return { calls: proxy.calls() - before, recorded };
    };
    const few = await scanWatching('base', 10);
    expect(few.recorded).toBe(1);
    expect(await scanWatching('ethereum', 100_000)).toEqual(few);
  });
});

describe('reorganisations', () => {
  it('one within the confirmation depth removes the deposit before it is ever recorded', async () => {
    const deposit = await watchNew();
    await scan();
    const point = await chain.forkPoint();
    await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(7));
    await scan();
    await chain.reorganise(point, { blocks: 2 });
    await chain.mine(DEPTH);
    const { reorganisations } = await scan();
    expect(reorganisations).toBe(0);
    expect(await rows(deposit)).toEqual([]);
  });

  it('one deeper than the depth marks the recorded deposit removed', async () => {
    const deposit = await watchNew();
    const point = await chain.forkPoint();
    await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(8));
    await chain.mine(DEPTH);
    expect((await scan()).recorded).toBe(1);
    await chain.reorganise(point, { blocks: DEPTH + 3 });
    const { reorganisations, recorded } = await scan();
    expect({ reorganisations, recorded }).toEqual({ reorganisations: 1, recorded: 0 });
    expect((await rows(deposit)).map((row) => row.status)).toEqual(['removed']);
    expect((await scan()).reorganisations).toBe(0);
  });

  it('one that moves the deposit to another block leaves it recorded once, at its new block', async () => {
    const deposit = await watchNew();
    const buyer = chain.wallet(chain.accounts.buyer);
    const signed = await buyer.signTransaction(await buyer.prepareTransactionRequest({
      to: tokens.address.usdc, data: encodeFunctionData({ abi: testTokenAbi, functionName: 'transfer', args: [deposit, USDC(9)] }),
    }));
    const point = await chain.forkPoint();
    const first = await chain.confirm(await chain.client.sendRawTransaction({ serializedTransaction: signed }));
    await chain.mine(DEPTH);
    expect((await scan()).recorded).toBe(1);
    await chain.reorganise(point, {
      blocks: DEPTH + 4,
      replace: async () => {
        await chain.mine(1);
        await chain.client.sendRawTransaction({ serializedTransaction: signed });
      },
    });
    const moved = await chain.client.getTransactionReceipt({ hash: first.transactionHash });
    expect(moved.blockNumber).toBe(first.blockNumber + 1n);
    expect((await scan()).reorganisations).toBe(1);
    expect((await rows(deposit)).map((row) => [row.status, row.block_number, row.block_hash])).toEqual([['final', Number(moved.blockNumber), moved.blockHash]]);
  });
});

describe('a misbehaving RPC node', () => {
  it('refusing wide ranges and leaving out recent logs: the range shrinks, the deposit is found once final', async () => {
    const deposit = await watchNew();
    await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(11));
    await chain.mine(40);
    const before = proxy.calls('eth_getLogs');
    proxy.set({ maxLogRange: 10, dropLogsNearHead: DEPTH });
    await scan();
    // Halved from 2,000 down to 7, doubled once after three accepted ranges (and halved again if refused).
    expect(detection.detectors[0]!.range).toBeLessThanOrEqual(14n);
    expect(proxy.calls('eth_getLogs') - before).toBeGreaterThan(4);
    expect((await rows(deposit)).map((row) => row.value)).toEqual(['11000000']);
    // The range grows back after successes.
    proxy.set({ dropLogsNearHead: DEPTH });
    const shrunk = detection.detectors[0]!.range;
    for (let i = 0; i < 4; i += 1) {
      await chain.mine(1);
      await scan();
    }
    expect(detection.detectors[0]!.range).toBeGreaterThan(shrunk);
  });

  it('answering 429 and hanging: retried, and the deposit is found', async () => {
    const deposit = await watchNew();
    await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(13));
    await chain.mine(DEPTH);
    proxy.set({ tooManyRequests: 2, hang: 1, only: ['eth_getLogs'] });
    await scan();
    expect((await rows(deposit)).map((row) => row.value)).toEqual(['13000000']);
  });

  it.each([
    ['Infura', { code: -32005, message: 'query returned more than 10000 results' }],
    ['Alchemy', { code: -32602, message: 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range' }],
    ['QuickNode', { code: -32614, message: 'eth_getLogs is limited to a 10,000 range' }],
    ['a public Polygon node', { code: -32000, message: 'block range is too wide' }],
  ])('tells %s\'s range refusal at once, without retrying it', async (_, rangeError) => {
    const client = new ChainClient(polygon, { retryDelayMs: 10, rounds: 3 });
    const head = await chain.head();
    proxy.set({ maxLogRange: 5, rangeError });
    const before = proxy.calls('eth_getLogs');
    await expect(client.transferLogs([tokens.address.usdc], head - 10n, head)).rejects.toBeInstanceOf(RangeRefused);
    expect(proxy.calls('eth_getLogs') - before).toBe(1);
  });

  it('fails over to the next URL when one is down', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const client = new ChainClient({ ...polygon, rpcUrls: [down, proxy.url] }, { timeoutMs: 300, retryDelayMs: 10, rounds: 1 });
    expect(await client.chainId()).toBe(137);
    await expect(new ChainClient({ ...polygon, rpcUrls: [down] }, { retryDelayMs: 10, rounds: 2 }).chainId())
      .rejects.toThrow('polygon: eth_chainId failed on every RPC URL');
  });
});

describe('the watch list', () => {
  it('learns a Live start\'s deposit address as the start commits, and again after a restart', async () => {
    const business = await t.business();
    const live = (await business.key({ mode: 'live' })).secret;
    const session = await t.request('POST', '/v1/checkout_sessions', { key: live, body: { amount: '30.00', currency: 'USD' } });
    await reportProcessorStatus(t);
    const start = await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key: live, body: { email: 'ann@buyer.example' } });
    const address: string = start.body.deposit_address;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await expect.poll(() => detection.watched.has(address), { timeout: 2_000, interval: 20 }).toBe(true);
    await expect.poll(() => t.db.selectFrom('processor.watched_addresses').selectAll().where('address', '=', address.toLowerCase()).executeTakeFirst(), { timeout: 2_000, interval: 20 })
      .toMatchObject({ payment_id: session.body.id });

    // A restarted processor catches up once from the payments table, the row above aside.
    await t.db.deleteFrom('processor.watched_addresses').execute();
    const restarted = await startDetection({ db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [] }, {});
    try {
      expect(restarted.watched.has(address)).toBe(true);
    } finally {
      await restarted.stop();
    }
  });
});

it('refuses to start against a node of another chain', async () => {
  const started = startDetection({ db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [{ ...polygon, name: 'base', chainId: 8453 }] }, {});
  await expect(started).rejects.toBeInstanceOf(StartupError);
  await expect(started).rejects.toThrow('base: the RPC node answers chain id 137, but BASE_CHAIN_ID is 8453. Check BASE_RPC_URL.');
});

it('refuses to continue a scan kept for another chain id', async () => {
  await t.db.updateTable('processor.cursors').set({ chain_id: 1 }).where('network', '=', 'polygon').execute();
  try {
    await expect(startDetection({ db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon] }, {}))
      .rejects.toThrow('polygon: the scan so far was of chain id 1, not 137; its cursor cannot continue on another chain.');
  } finally {
    await t.db.updateTable('processor.cursors').set({ chain_id: 137 }).where('network', '=', 'polygon').execute();
  }
});
