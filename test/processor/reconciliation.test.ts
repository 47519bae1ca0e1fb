import type { Address, PrivateKeyAccount } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { BALANCE_BATCH, ChainClient } from '../../src/processor/chain/chain-client.ts';
import { Detector, transfersOf } from '../../src/processor/detection/detector.ts';
import { WatchedAddresses } from '../../src/processor/detection/watched-addresses.ts';
import type { TestChain } from '../support/chain.ts';
import type { TestTokens } from '../support/chain-tokens.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc as USDC, type PolygonTestChain } from '../support/processor-chain.ts';
import type { RpcProxy } from '../support/rpc-proxy.ts';

// The balance reconciliation against a real EDR node posing as Polygon, through the misbehaving
// RPC proxy: a deposit whose log the node left out is found from the address's balance at the
// final block and recorded once; money that left an address is accounted for; the work of a
// pass is bounded however many addresses are watched.

const DEPTH = 2;
const FAR = new Date('2100-01-01T00:00:00Z');

let t: TestApp;
let polygonChain: PolygonTestChain;
let chain: TestChain;
let tokens: TestTokens;
let proxy: RpcProxy;
let polygon: NetworkConfig;
let watched: WatchedAddresses;
let detector: Detector;

/** A watched deposit address, as the processor learns one: in memory and in processor.watched_addresses. */
async function watchNew(account?: PrivateKeyAccount): Promise<Address> {
  const address = (account ?? await chain.newAccount()).address;
  watched.add(address, FAR);
  await t.db.insertInto('processor.watched_addresses')
    .values({ address: address.toLowerCase(), payment_id: 'pay_reconciled', watch_from: t.clock.now(), watch_until: FAR }).execute();
  return address;
}
const inbound = async (to: Address) => (await transfersOf(t.db, 'polygon')).filter((row) => row.to_address === to.toLowerCase());
const findingsOf = (address: Address) => t.db.selectFrom('processor.balance_findings').selectAll()
  .where('address', '=', address.toLowerCase()).orderBy('found_at').orderBy('block_number').execute();

beforeAll(async () => {
  [t, polygonChain] = await Promise.all([startTestApp({ RATE_LIMITS: 'off' }), startPolygonChain({ depth: DEPTH })]);
  ({ chain, tokens, proxy, polygon } = polygonChain);
  watched = new WatchedAddresses();
  // Passes only when a test asks (and after the first scan), so each test reads what it caused.
  detector = new Detector({ db: t.db, network: polygon, client: new ChainClient(polygon, { timeoutMs: 500, retryDelayMs: 10, rounds: 2 }), watched, clock: t.clock },
    { reconcile: { everyScans: 1_000 }, startBlock: await chain.head() });
});

afterAll(async () => {
  await polygonChain?.stop();
  await t?.close();
});

afterEach(() => proxy.set({}));

describe('a deposit whose log the node left out', () => {
  it('near the head: found by a later pass once the node returns it, and recorded once', async () => {
    const deposit = await watchNew();
    const receipt = await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(30));
    await chain.mine(DEPTH);
    proxy.set({ dropLogsNearHead: DEPTH + 1 });
    // The detector's first scan: the log is left out, and so is it from the re-scan its pass makes.
    const first = await detector.scan();
    expect(first.recorded).toBe(0);
    expect(first.reconciliation?.findings).toEqual([expect.objectContaining({
      address: deposit.toLowerCase(), token: tokens.address.usdc.toLowerCase(), balance: USDC(30), expected: 0n, recovered: 0, outcome: 'unexplained',
    })]);
    expect(await inbound(deposit)).toEqual([]);

    // Later the node answers for that block; the same difference waits 10 minutes before it is re-scanned.
    await chain.mine(5);
    await detector.scan();
    expect((await detector.reconcile())?.findings).toEqual([expect.objectContaining({ address: deposit.toLowerCase(), outcome: 'known' })]);
    t.clock.advance(11 * MINUTE);
    const found = await detector.reconcile();
    expect(found?.findings).toEqual([expect.objectContaining({ address: deposit.toLowerCase(), recovered: 1, outcome: 'recovered' })]);
    expect(await inbound(deposit)).toEqual([expect.objectContaining({
      tx_hash: receipt.transactionHash, log_index: 0, block_number: Number(receipt.blockNumber), value: '30000000', status: 'final',
    })]);

    // Once: the next pass finds nothing, and neither scan nor pass records it again.
    await chain.mine(1);
    expect((await detector.scan()).recorded).toBe(0);
    expect((await detector.reconcile())?.findings).toEqual([]);
    expect(await inbound(deposit)).toHaveLength(1);
    expect((await findingsOf(deposit)).map((row) => row.outcome)).toEqual(['unexplained', 'recovered']);
  });

  it('from every range query (a node whose index lost it): found by the next pass, with a topic-filtered query', async () => {
    const deposit = await watchNew();
    const sent = await tokens.transfer('usdt', chain.accounts.buyer, deposit, USDC(12));
    proxy.set({ dropLogsOf: [sent.transactionHash] });
    await chain.mine(DEPTH);
    expect((await detector.scan()).recorded).toBe(0);
    const before = proxy.calls('eth_getLogs');
    const pass = await detector.reconcile();
    expect(pass?.findings).toEqual([expect.objectContaining({ address: deposit.toLowerCase(), token: tokens.address.usdt.toLowerCase(), recovered: 1, outcome: 'recovered' })]);
    // The newest blocks first: one range reaches back past the deposit.
    expect(proxy.calls('eth_getLogs') - before).toBe(1);
    expect((await inbound(deposit)).map((row) => [row.tx_hash, row.value])).toEqual([[sent.transactionHash, '12000000']]);
  });
});

describe('money that left a watched address', () => {
  let payer: PrivateKeyAccount;
  let deposit: Address;

  it('is recorded by the scan as outgoing, so the balance (in − out) raises nothing', async () => {
    payer = await chain.newAccount(10n ** 18n);
    deposit = await watchNew(payer);
    await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(30));
    await tokens.transfer('usdc', payer, chain.accounts.deployer.address, USDC(10));
    await chain.mine(DEPTH);
    expect((await detector.scan()).recorded).toBe(1);
    const out = await t.db.selectFrom('processor.outgoing_transfers').selectAll().where('from_address', '=', deposit.toLowerCase()).execute();
    expect(out.map((row) => [row.to_address, row.value, row.status])).toEqual([[chain.accounts.deployer.address.toLowerCase(), '10000000', 'final']]);
    expect(await inbound(chain.accounts.deployer.address), 'an outgoing transfer is never a deposit').toEqual([]);
    expect((await detector.reconcile())?.findings).toEqual([]);
  });

  it('does not hide a later deposit the node left out', async () => {
    const second = await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(5));
    proxy.set({ dropLogsOf: [second.transactionHash] });
    await chain.mine(DEPTH);
    await detector.scan();
    const pass = await detector.reconcile();
    expect(pass?.findings).toEqual([expect.objectContaining({ address: deposit.toLowerCase(), balance: USDC(25), expected: USDC(20), outcome: 'recovered' })]);
    expect((await inbound(deposit)).map((row) => row.value)).toEqual(['30000000', '5000000']);
  });

  it('missing from the records is found by a re-scan of what left the address', async () => {
    await t.db.deleteFrom('processor.outgoing_transfers').where('from_address', '=', deposit.toLowerCase()).execute();
    const pass = await detector.reconcile();
    expect(pass?.findings).toEqual([expect.objectContaining({ balance: USDC(25), expected: USDC(35), recovered: 1, outcome: 'recovered' })]);
    expect(await t.db.selectFrom('processor.outgoing_transfers').select('value').where('from_address', '=', deposit.toLowerCase()).execute())
      .toEqual([{ value: '10000000' }]);
  });

  it('a difference no log explains is kept unexplained, and not re-scanned at every pass', async () => {
    // As if a token had moved money without a Transfer log: the records say 1 USDC more came in.
    await t.db.updateTable('processor.transfers').set({ value: '6000000' }).where('to_address', '=', deposit.toLowerCase()).where('value', '=', '5000000').execute();
    const first = await detector.reconcile();
    expect(first?.findings).toEqual([expect.objectContaining({ balance: USDC(25), expected: USDC(26), recovered: 0, outcome: 'unexplained' })]);
    const before = proxy.calls('eth_getLogs');
    expect((await detector.reconcile())?.findings).toEqual([expect.objectContaining({ outcome: 'known' })]);
    expect(proxy.calls('eth_getLogs') - before).toBe(0);
    await t.db.updateTable('processor.transfers').set({ value: '5000000' }).where('to_address', '=', deposit.toLowerCase()).where('value', '=', '6000000').execute();
  });
});

describe('the cost of a pass', () => {
  it('reads a bounded number of addresses, round-robin, in JSON-RPC batches', async () => {
    // 250 more watched addresses that never received anything (in the database only: the scan is not under test).
    const many = Array.from({ length: 250 }, (_, i) => ({
      address: `0x${(0xabc000 + i).toString(16).padStart(40, '0')}`, payment_id: `pay_many_${i}`, watch_from: t.clock.now(), watch_until: FAR,
    }));
    await t.db.insertInto('processor.watched_addresses').values(many).execute();
    const open = Number((await t.db.selectFrom('processor.watched_addresses').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const perPass = 100;
    const bounded = new Detector({ db: t.db, network: polygon, client: new ChainClient(polygon), watched, clock: t.clock }, { reconcile: { addressesPerPass: perPass } });
    const read = new Set<string>();
    for (let pass = 0; pass < Math.ceil(open / perPass); pass += 1) {
      const [calls, requests] = [proxy.calls('eth_call'), proxy.requests()];
      const result = (await bounded.reconcile())!;
      expect(result.addresses).toHaveLength(perPass);
      for (const address of result.addresses) read.add(address);
      const balances = perPass * polygon.tokens.length;
      expect(proxy.calls('eth_call') - calls).toBe(balances);
      // Findings would re-scan; none here, so the pass is the balance batches and the header of the block they are read at.
      expect(result.findings).toEqual([]);
      expect(proxy.requests() - requests).toBe(Math.ceil(balances / BALANCE_BATCH) + 1);
    }
    // Every open address read over ⌈open ÷ perPass⌉ passes, round-robin.
    expect(read.size).toBe(open);
  });
});
