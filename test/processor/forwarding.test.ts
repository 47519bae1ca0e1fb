import { Registry } from 'prom-client';
import type { Address, Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { authorizationNonce } from '../../src/processor/forwarding/authorizations.ts';
import { startDetection, type Detection } from '../../src/processor/detection/detection.ts';
import { StepInterrupted, type ForwardStep } from '../../src/processor/forwarding/forwarder.ts';
import { forwardsSummary, gasWalletStatus, retryFailedForwards, startForwarding, type Forwarding } from '../../src/processor/forwarding/forwarding.ts';
import { registerForwardingMetrics } from '../../src/processor/forwarding/forwarding-metrics.ts';
import { forwardingSections } from '../../src/processor/forwarding/forwarding-status.ts';
import { ProcessorKeys } from '../../src/processor/chain/keys.ts';
import { startProcessor } from '../../src/processor/processor.ts';
import type { TestChain } from '../support/chain.ts';
import { testTokenAbi } from '../support/chain-contracts.ts';
import { withRealUsdc } from '../support/chain-fiat-token.ts';
import type { TestTokens, TokenSymbol } from '../support/chain-tokens.ts';
import { IneffectiveTransaction, verifiedMovements, verifyTopUp, verifyTransfers } from '../../src/processor/forwarding/movements.ts';
import { startPolygonChain, usdc, type PolygonTestChain } from '../support/processor-chain.ts';
import { startTestApp, TEST_DEPOSIT_WALLET, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import type { RpcProxy } from '../support/rpc-proxy.ts';

// Forwarding against a real EDR node posing as Polygon, with the real test tokens, Circle's own
// FiatTokenV2_2 (the EIP-3009 forward and a refused payout wallet run against both) and our batch
// contract: each final deposit reaches the payout wallet (net) and the fee wallet (fee) once,
// whatever dies on the way, whatever the chain does, and what cannot happen is shown and retried.

const USDC = usdc;
const DEPTH = 2;
const FAR = new Date('2100-01-01T00:00:00Z');
const REPLACE_AFTER_MS = 60_000;
const RETRY_AFTER_MS = 30_000;
// Time limits roomy enough for a loaded machine: a node that does not answer only delays a forward.
const rpc = { timeoutMs: 1_500, retryDelayMs: 10, rounds: 2 };

let t: TestApp;
let chain: TestChain;
let tokens: TestTokens;
/** The test tokens, and the same with Circle's FiatTokenV2_2 as USDC (configured as a second polygon_usdc). */
let testTokens: TestTokens;
let realTokens: TestTokens;
const usdcVariants = [['the test token', () => testTokens], ['Circle\'s FiatTokenV2_2', () => realTokens]] as const;
/** Runs a describe block's tests with `tokens` the variant's. */
const usingTokens = (variant: () => TestTokens) => {
  beforeAll(() => { tokens = variant(); });
  afterAll(() => { tokens = testTokens; });
};
let proxy: RpcProxy;
let stopChain: (() => Promise<void>) | undefined;
let polygon: NetworkConfig;
let detection: Detection;
let forwarding: Forwarding;
let keys: ProcessorKeys;
let feeWallet: `0x${string}`;
const started: Forwarding[] = [];
const logs: string[] = [];
let nextIndex = 1_000;

const forwarder = async (options: { onStep?: (step: ForwardStep) => void } = {}) => {
  const made = await startForwarding({ db: t.db, clock: t.clock, networks: [polygon], keys, feeWallet }, {
    rpc, replaceAfterMs: REPLACE_AFTER_MS, retryAfterMs: RETRY_AFTER_MS, log: (line) => logs.push(line), ...options,
  });
  started.push(made);
  return made;
};
/** A forwarder that dies (its pass throws) right after the forward reaches `at`. */
const dyingAt = (at: ForwardStep) => forwarder({ onStep: (step) => { if (step === at) throw new Error(`killed after ${at}`); } });

/** A watched deposit address of the test seed, with what a start fixes: payout wallet and fee. */
async function watched(options: { payout?: Address; feeBps?: number } = {}) {
  const index = nextIndex++;
  const address = keys.deposit(index).address.toLowerCase() as Address;
  const payout = (options.payout ?? (await chain.newAccount()).address).toLowerCase() as Address;
  await t.db.insertInto('processor.watched_addresses').values({
    address, payment_id: `pay_forward${index}`, watch_from: t.clock.now(), watch_until: FAR, deposit_index: index, payout_wallet: payout, fee_bps: options.feeBps ?? 150,
  }).execute();
  detection.watched.add(address, FAR);
  return { address, index, payout };
}

/** The buyer pays, the deposit becomes final, detection records it. */
async function deposit(token: TokenSymbol, to: Address, amount: bigint) {
  const receipt = await tokens.transfer(token, chain.accounts.buyer, to, amount);
  await chain.mine(DEPTH);
  await detection.scanAll();
  return receipt;
}

/** Passes, a block mined after each, until no forward is on its way (failed ones wait for their retry). */
async function forwardToFinal(using = forwarding) {
  for (let i = 0; i < 12; i += 1) {
    await using.forwardAll();
    if ((await forwardsSummary(t.db, 'polygon')).pending === 0) return;
    await chain.mine(1);
  }
  throw new Error(`forwards still pending: ${JSON.stringify(await forwardsSummary(t.db, 'polygon'))}`);
}

const forwardOf = (txHash: Hex) => t.db.selectFrom('processor.forwards').selectAll().where('transfer_tx_hash', '=', txHash.toLowerCase()).executeTakeFirstOrThrow();
const transactionsOf = (forwardId: number) => t.db.selectFrom('processor.forward_transactions').selectAll().where('forward_id', '=', forwardId).orderBy('id').execute();
const split = (value: bigint, feeBps = 150n) => ({ net: value - value * feeBps / 10_000n, fee: value * feeBps / 10_000n });
const sentFrom = (token: TokenSymbol, from: Address, fromBlock: bigint) => chain.client.getContractEvents({
  address: tokens.address[token], abi: testTokenAbi, eventName: 'Transfer', args: { from }, fromBlock,
});
const nonces = (forward: { network: string; transfer_tx_hash: string; transfer_log_index: number }) =>
  [authorizationNonce(forward, 'net'), authorizationNonce(forward, 'fee')];

beforeAll(async () => {
  // Block times are real time: the app's clock starts there too.
  let polygonChain: PolygonTestChain;
  [t, polygonChain] = await Promise.all([startTestApp({ RATE_LIMITS: 'off' }, { clockStart: Date.now() }), startPolygonChain({ depth: DEPTH, realUsdc: true })]);
  ({ chain, tokens, proxy } = polygonChain);
  testTokens = tokens;
  realTokens = withRealUsdc(tokens, polygonChain.fiat!);
  stopChain = polygonChain.stop;
  keys = new ProcessorKeys(Buffer.alloc(32, 7));
  feeWallet = (await chain.newAccount()).address.toLowerCase() as `0x${string}`;
  await chain.fund(keys.gasWallet.address, 10n ** 18n);
  polygon = { ...polygonChain.polygon, tokens: [...polygonChain.polygon.tokens, { coin: 'polygon_usdc', address: polygonChain.fiat!.address.toLowerCase() as `0x${string}` }] };
  detection = await startDetection({ db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon] }, { rpc, log: () => undefined });
  // The first scan starts the cursor at the final block: every deposit after it is found.
  await detection.scanAll();
  forwarding = await forwarder();
});

afterAll(async () => {
  for (const made of started) await made.stop();
  await detection?.stop();
  await stopChain?.();
  await t?.close();
});

afterEach(() => proxy.set({}));

it('holds the keys the service derives deposit addresses from, and a gas wallet its xpub cannot derive', () => {
  expect(keys.xpub).toBe(TEST_DEPOSIT_WALLET.publicExtendedKey);
  expect(keys.deposit(5).address.toLowerCase()).toBe(t.context.deposits.address(5).toLowerCase());
  const firstAddresses = Array.from({ length: 100 }, (_, index) => t.context.deposits.address(index).toLowerCase());
  expect(firstAddresses).not.toContain(keys.gasWallet.address.toLowerCase());
  expect(JSON.stringify(keys)).not.toMatch(/xprv|privateKey/);
});

describe.each(usdcVariants)('a USDC deposit (EIP-3009), %s', (_name, variant) => {
  usingTokens(variant);
  it('is forwarded once final: the net to the payout wallet and the fee to the fee wallet in one gas wallet transaction; the deposit address never holds gas', async () => {
    const { address, payout } = await watched();
    const feesBefore = await tokens.balanceOf('usdc', feeWallet);
    const receipt = await deposit('usdc', address, USDC(30));
    await forwarding.forwardAll();
    expect(await tokens.balanceOf('usdc', payout), 'not before its transaction is mined').toBe(0n);
    await forwardToFinal();

    const { net, fee } = split(USDC(30));
    expect(net).toBe(29_550_000n);
    expect(await forwardOf(receipt.transactionHash), logs.join('\n')).toMatchObject({ state: 'final' });
    expect(await tokens.balanceOf('usdc', payout)).toBe(net);
    expect(await tokens.balanceOf('usdc', feeWallet) - feesBefore).toBe(fee);
    expect(await tokens.balanceOf('usdc', address)).toBe(0n);
    // What the settlement can report: each share as the receipt showed it.
    const batchReceipt = await chain.client.getTransactionReceipt({ hash: (await forwardOf(receipt.transactionHash)).txid_out as Hex });
    const token = tokens.address.usdc.toLowerCase();
    expect((await verifiedMovements(t.db, (await forwardOf(receipt.transactionHash)).id)).map(({ blockHash: _, logIndex, ...movement }) => ({ ...movement, logged: logIndex !== null }))).toEqual([
      { kind: 'net', txHash: batchReceipt.transactionHash, blockNumber: batchReceipt.blockNumber, from: address, to: payout, token, value: net, logged: true },
      { kind: 'fee', txHash: batchReceipt.transactionHash, blockNumber: batchReceipt.blockNumber, from: address, to: feeWallet, token, value: fee, logged: true },
    ]);
    for (let block = receipt.blockNumber; block <= await chain.head(); block += 1n) {
      expect(await chain.client.getBalance({ address, blockNumber: block })).toBe(0n);
    }
    const forward = await forwardOf(receipt.transactionHash);
    expect(forward).toMatchObject({ state: 'final', method: 'authorization', net: net.toString(), fee: fee.toString(), payout_wallet: payout, fee_wallet: feeWallet });
    const [batch, ...more] = await transactionsOf(forward.id);
    expect(more).toEqual([]);
    expect(batch).toMatchObject({ purpose: 'batch', shares: ['net', 'fee'], state: 'final', sender: keys.gasWallet.address.toLowerCase(), tx_hash: forward.txid_out });
    const sent = await chain.client.getTransactionReceipt({ hash: forward.txid_out as Hex });
    expect(sent.from).toBe(keys.gasWallet.address.toLowerCase());
    expect((await sentFrom('usdc', address, receipt.blockNumber)).map((log) => [log.transactionHash, log.args.to?.toLowerCase(), log.args.value]))
      .toEqual([[forward.txid_out, payout, net], [forward.txid_out, feeWallet, fee]]);
    for (const nonce of nonces(forward)) expect(await tokens.authorizationState(address, nonce)).toBe(true);
    const notice = await t.db.selectFrom('processor.notices_out').selectAll().where('id', '=', `settlement:polygon:${forward.transfer_tx_hash}:0`).executeTakeFirstOrThrow();
    expect(notice.body).toMatchObject({ type: 'settlement.completed', deposit_address: address, payment_id: forward.payment_id, txid_out: forward.txid_out, merchant_received: '29.550000' });

    // Run again once done: nothing is signed or sent.
    const gasNonce = await chain.client.getTransactionCount({ address: keys.gasWallet.address });
    await forwarding.forwardAll();
    await chain.mine(DEPTH);
    await forwarding.forwardAll();
    expect(await chain.client.getTransactionCount({ address: keys.gasWallet.address })).toBe(gasNonce);
    expect(await transactionsOf(forward.id)).toHaveLength(1);
    expect(await tokens.balanceOf('usdc', payout)).toBe(net);
  });

  it('two deposits to one address are two forwards', async () => {
    const { address, payout } = await watched({ feeBps: 100 });
    const first = await deposit('usdc', address, USDC(10));
    const second = await deposit('usdc', address, USDC(5));
    await forwardToFinal();
    const forwards = await Promise.all([forwardOf(first.transactionHash), forwardOf(second.transactionHash)]);
    expect(forwards.map((forward) => [forward.state, forward.net])).toEqual([['final', '9900000'], ['final', '4950000']]);
    expect(forwards[0]!.txid_out).not.toBe(forwards[1]!.txid_out);
    expect(await tokens.balanceOf('usdc', payout)).toBe(USDC(15) - USDC(15) / 100n);
    expect(await tokens.balanceOf('usdc', address)).toBe(0n);
  });
});

it('two processors passing at once (one started by mistake) sign one transaction for a forward', async () => {
  const { address, payout } = await watched();
  const receipt = await deposit('usdc', address, USDC(9));
  const second = await forwarder();
  await Promise.all([forwarding.forwardAll(), second.forwardAll(), forwarding.forwardAll()]);
  await forwardToFinal();
  const forward = await forwardOf(receipt.transactionHash);
  expect((await transactionsOf(forward.id)).map((tx) => tx.state), `${JSON.stringify(forward)}\n${logs.join('\n')}`).toEqual(['final']);
  expect(await tokens.balanceOf('usdc', payout)).toBe(split(USDC(9)).net);
});

describe('a USDT deposit (no EIP-3009)', () => {
  it('the gas wallet sends the deposit address exactly the gas of its two transfers, which it then sends', async () => {
    const { address, payout } = await watched();
    const feesBefore = await tokens.balanceOf('usdt', feeWallet);
    const receipt = await deposit('usdt', address, USDC(20));
    await forwardToFinal();
    const { net, fee } = split(USDC(20));
    expect(await tokens.balanceOf('usdt', payout)).toBe(net);
    expect(await tokens.balanceOf('usdt', feeWallet) - feesBefore).toBe(fee);
    expect(await tokens.balanceOf('usdt', address)).toBe(0n);

    const forward = await forwardOf(receipt.transactionHash);
    expect(forward).toMatchObject({ state: 'final', method: 'top_up' });
    const [topUp, ...shares] = await transactionsOf(forward.id);
    expect(topUp).toMatchObject({ purpose: 'top_up', sender: keys.gasWallet.address.toLowerCase(), to_address: address, state: 'final' });
    expect(shares.map((tx) => [tx.purpose, tx.shares, tx.sender, tx.nonce, tx.state])).toEqual([
      ['share', ['net'], address, 0, 'final'], ['share', ['fee'], address, 1, 'final'],
    ]);
    expect(forward.txid_out).toBe(shares[0]!.tx_hash);
    // The top-up is each transfer's gas limit at its price; what stays is the gas the limits held
    // back and the transfers did not use (the refund of clearing the deposit's balance, documented).
    expect(BigInt(topUp!.value)).toBe(shares.reduce((sum, tx) => sum + BigInt(tx.gas) * BigInt(tx.max_fee_per_gas), 0n));
    const used = await Promise.all(shares.map((tx) => chain.client.getTransactionReceipt({ hash: tx.tx_hash as Hex })));
    const unused = shares.reduce((sum, tx, i) => sum + (BigInt(tx.gas) - used[i]!.gasUsed) * BigInt(tx.max_fee_per_gas), 0n);
    expect(await chain.client.getBalance({ address })).toBe(unused);
    // Each verified: the top-up's native value delivered (a plain transfer), then each share's Transfer log.
    expect((await verifiedMovements(t.db, forward.id)).map((movement) => [movement.kind, movement.txHash, movement.from, movement.to, movement.token, movement.value])).toEqual([
      ['gas', topUp!.tx_hash, keys.gasWallet.address.toLowerCase(), address, null, BigInt(topUp!.value)],
      ['net', shares[0]!.tx_hash, address, payout, tokens.address.usdt.toLowerCase(), net],
      ['fee', shares[1]!.tx_hash, address, feeWallet, tokens.address.usdt.toLowerCase(), fee],
    ]);
    // The same receipts do not pass for what they did not do.
    const topUpReceipt = await chain.client.getTransactionReceipt({ hash: topUp!.tx_hash as Hex });
    const topUpSent = await chain.client.getTransaction({ hash: topUp!.tx_hash as Hex });
    expect(() => verifyTopUp(topUpReceipt, topUpSent, { to: address, value: BigInt(topUp!.value) + 1n })).toThrow(IneffectiveTransaction);
    expect(() => verifyTopUp(topUpReceipt, topUpSent, { to: payout, value: BigInt(topUp!.value) })).toThrow(IneffectiveTransaction);
    const usdt = tokens.address.usdt;
    expect(() => verifyTransfers(used[0]!, [{ kind: 'net', token: usdt, from: address, to: payout, value: net + 1n }])).toThrow(/moved nothing of the net/);
    expect(() => verifyTransfers(used[0]!, [{ kind: 'net', token: tokens.address.usdc, from: address, to: payout, value: net }])).toThrow(IneffectiveTransaction);
    expect(() => verifyTransfers(used[0]!, [{ kind: 'net', token: usdt, from: address, to: payout, value: net }, { kind: 'fee', token: usdt, from: address, to: payout, value: net }]), 'a log counts once')
      .toThrow(/moved nothing of the fee/);
  });
});

describe('a processor that dies', () => {
  it.each(['planned', 'signed', 'broadcast', 'mined'] as const)('after the forward is %s: a fresh one finishes it, and the money moves once', async (at) => {
    const { address, payout } = await watched();
    const receipt = await deposit('usdc', address, USDC(10));
    const dying = await dyingAt(at);
    let died = false;
    for (let i = 0; i < 4 && !died; i += 1) {
      died = await dying.forwardAll().then(() => false, (error: unknown) => error instanceof StepInterrupted);
      if (!died) await chain.mine(1);
    }
    expect(died).toBe(true);
    await forwardToFinal(await forwarder());

    const forward = await forwardOf(receipt.transactionHash);
    expect(forward.state).toBe('final');
    expect(await tokens.balanceOf('usdc', payout)).toBe(split(USDC(10)).net);
    expect(await sentFrom('usdc', address, receipt.blockNumber)).toHaveLength(2);
    for (const nonce of nonces(forward)) expect(await tokens.authorizationState(address, nonce)).toBe(true);
    expect((await transactionsOf(forward.id)).map((tx) => tx.state)).toEqual(['final']);
  });

  it('with its transaction stored but never received by the node (swallowed by the RPC proxy): a fresh one sends the stored transaction', async () => {
    const { address, payout } = await watched();
    const receipt = await deposit('usdc', address, USDC(11));
    proxy.set({ hang: Infinity, only: ['eth_sendRawTransaction'] });
    await forwarding.forwardAll();
    const forward = await forwardOf(receipt.transactionHash);
    const [stored] = await transactionsOf(forward.id);
    expect(stored).toMatchObject({ state: 'signed', broadcast_at: null });
    await chain.mine(1);
    await expect(chain.client.getTransactionReceipt({ hash: stored!.tx_hash as Hex })).rejects.toThrow(/could not be found/);
    proxy.set({});
    await forwardToFinal(await forwarder());
    expect(await transactionsOf(forward.id)).toEqual([expect.objectContaining({ id: stored!.id, tx_hash: stored!.tx_hash, raw: stored!.raw, state: 'final' })]);
    expect(await tokens.balanceOf('usdc', payout)).toBe(split(USDC(11)).net);
  });

  it('with its transaction received by the node but not recorded as broadcast: a fresh one finds it, and sends nothing new', async () => {
    const { address, payout } = await watched();
    const receipt = await deposit('usdc', address, USDC(12));
    proxy.set({ hang: Infinity, only: ['eth_sendRawTransaction'] });
    await forwarding.forwardAll();
    proxy.set({});
    const forward = await forwardOf(receipt.transactionHash);
    const [stored] = await transactionsOf(forward.id);
    // The node had it after all (the answer was what got lost), and mined it.
    await chain.confirm(await chain.client.sendRawTransaction({ serializedTransaction: stored!.raw as Hex }));
    await forwardToFinal(await forwarder());
    expect((await transactionsOf(forward.id)).map((tx) => [tx.id, tx.state])).toEqual([[stored!.id, 'final']]);
    expect(await tokens.balanceOf('usdc', payout)).toBe(split(USDC(12)).net);
  });
});

it('replaces a transaction not mined in time at a higher fee, with the same nonce and calls; one of them is mined, once', async () => {
  const { address, payout } = await watched();
  const receipt = await deposit('usdc', address, USDC(13));
  await forwarding.forwardAll();
  const forward = await forwardOf(receipt.transactionHash);
  const [first] = await transactionsOf(forward.id);
  expect(first!.state).toBe('broadcast');
  // No block is mined: the transaction waits in the node's pool.
  t.clock.advance(REPLACE_AFTER_MS);
  await forwarding.forwardAll();
  const [replaced] = await transactionsOf(forward.id);
  expect(replaced).toMatchObject({ id: first!.id, nonce: first!.nonce, data: first!.data, to_address: first!.to_address, replaced_hashes: [first!.tx_hash], state: 'broadcast' });
  expect(replaced!.tx_hash).not.toBe(first!.tx_hash);
  expect(BigInt(replaced!.max_fee_per_gas)).toBeGreaterThan(BigInt(first!.max_fee_per_gas));
  expect(BigInt(replaced!.max_priority_fee_per_gas!)).toBeGreaterThan(BigInt(first!.max_priority_fee_per_gas!));
  expect(logs.some((line) => line.includes(`replaced by ${replaced!.tx_hash}`))).toBe(true);

  await forwardToFinal();
  const [done] = await transactionsOf(forward.id);
  expect(done).toMatchObject({ state: 'final', tx_hash: replaced!.tx_hash });
  await expect(chain.client.getTransactionReceipt({ hash: first!.tx_hash as Hex })).rejects.toThrow(/could not be found/);
  expect(await tokens.balanceOf('usdc', payout)).toBe(split(USDC(13)).net);
  expect(await sentFrom('usdc', address, receipt.blockNumber)).toHaveLength(2);
});

it('never forwards a deposit a reorganisation removed before it was signed', async () => {
  const { address, payout } = await watched();
  const point = await chain.forkPoint();
  const { transactionHash } = await tokens.transfer('usdc', chain.accounts.buyer, address, USDC(7));
  await chain.mine(DEPTH);
  await detection.scanAll();
  await expect((await dyingAt('planned')).forwardAll()).rejects.toBeInstanceOf(StepInterrupted);
  await chain.reorganise(point, { blocks: DEPTH + 3 });
  await detection.scanAll();
  await forwardToFinal();
  const forward = await forwardOf(transactionHash);
  expect(forward).toMatchObject({ state: 'canceled' });
  expect(await transactionsOf(forward.id)).toEqual([]);
  expect(await tokens.balanceOf('usdc', payout)).toBe(0n);
  for (const nonce of nonces(forward)) expect(await tokens.authorizationState(address, nonce)).toBe(false);
});

describe.each(usdcVariants)('a forward to a payout wallet the token refuses, %s', (_name, variant) => {
  usingTokens(variant);
  it('to a payout wallet the token refuses: failed with the token\'s reason, shown, and done once the wallet is allowed again', async () => {
    const refused = (await chain.newAccount()).address;
    await tokens.refuse('usdc', refused);
    const { address } = await watched({ payout: refused });
    const receipt = await deposit('usdc', address, USDC(14));
    await forwarding.forwardAll();
    const forward = await forwardOf(receipt.transactionHash);
    expect(forward).toMatchObject({ state: 'failed', attempts: 1 });
    expect(forward.failure).toContain('Blacklistable: account is blacklisted');
    const summary = await forwardsSummary(t.db, 'polygon');
    expect(summary.failures).toContainEqual(expect.objectContaining({ id: forward.id, depositAddress: address, reason: forward.failure }));
    expect(logs.some((line) => line.includes(`forward ${forward.id} of ${address} failed`))).toBe(true);
    expect(await transactionsOf(forward.id), 'nothing signed for a forward the token refuses').toEqual([]);

    await chain.confirm(await chain.wallet(chain.accounts.deployer).writeContract({ address: tokens.address.usdc, abi: testTokenAbi, functionName: 'unBlacklist', args: [refused] }));
    await forwarding.forwardAll();
    expect((await forwardOf(receipt.transactionHash)).state, 'not before its back-off').toBe('failed');
    t.clock.advance(RETRY_AFTER_MS);
    await forwardToFinal();
    expect((await forwardOf(receipt.transactionHash)).state).toBe('final');
    expect(await tokens.balanceOf('usdc', refused)).toBe(split(USDC(14)).net);
  });
});

describe('a forward that cannot happen', () => {
  it('through a batch address with no code: the transaction "succeeds" and moves nothing, so the forward fails with the reason, no settlement is claimed and the money stays; once Multicall3 is there, it moves once', async () => {
    const empty = (await chain.newAccount()).address.toLowerCase() as `0x${string}`;
    const broken = await startForwarding({ db: t.db, clock: t.clock, networks: [{ ...polygon, multicall: empty }], keys, feeWallet }, {
      rpc, replaceAfterMs: REPLACE_AFTER_MS, retryAfterMs: RETRY_AFTER_MS, log: (line) => logs.push(line),
    });
    started.push(broken);
    const { address, payout } = await watched();
    const receipt = await deposit('usdc', address, USDC(18));
    for (let i = 0; i < 3; i += 1) {
      await broken.forwardAll();
      await chain.mine(1);
    }
    const forward = await forwardOf(receipt.transactionHash);
    const [ineffective] = await transactionsOf(forward.id);
    expect(ineffective).toMatchObject({ state: 'ineffective', purpose: 'batch', to_address: empty });
    expect((await chain.client.getTransactionReceipt({ hash: ineffective!.tx_hash as Hex })).status, 'a call to an address without code succeeds').toBe('success');
    const { net, fee } = split(USDC(18));
    expect(forward).toMatchObject({ state: 'failed', txid_out: null, movements: null });
    expect(forward.failure).toBe(`${ineffective!.tx_hash} was mined as a success but moved nothing of the net: its receipt has no Transfer of ${net} from ${address} to ${payout} by the token ${tokens.address.usdc.toLowerCase()}; `
      + `the batch contract it called, ${empty}, did nothing (no code there? check POLYGON_MULTICALL). Nothing is claimed settled; the money stays at ${address} for the retry`);
    const settlement = `settlement:polygon:${forward.transfer_tx_hash}:${forward.transfer_log_index}`;
    expect(await t.db.selectFrom('processor.notices_out').select('id').where('id', '=', settlement).execute()).toEqual([]);
    expect(await tokens.balanceOf('usdc', address)).toBe(USDC(18));
    expect(await tokens.balanceOf('usdc', payout)).toBe(0n);
    expect(await verifiedMovements(t.db, forward.id)).toEqual([]);

    // Fixed: Multicall3's code at that address (as deploying it there would).
    await chain.node.setCode({ address: empty, bytecode: (await chain.client.getCode({ address: polygon.multicall as Address }))! });
    t.clock.advance(RETRY_AFTER_MS);
    await forwardToFinal(broken);
    const done = await forwardOf(receipt.transactionHash);
    expect(done.state).toBe('final');
    expect((await transactionsOf(forward.id)).map((tx) => tx.state)).toEqual(['ineffective', 'final']);
    expect(await tokens.balanceOf('usdc', payout)).toBe(net);
    expect(await tokens.balanceOf('usdc', address)).toBe(0n);
    expect(await sentFrom('usdc', address, receipt.blockNumber)).toHaveLength(2);
    expect(await t.db.selectFrom('processor.notices_out').select('id').where('id', '=', settlement).execute()).toHaveLength(1);
    expect((await verifiedMovements(t.db, forward.id)).map((movement) => [movement.kind, movement.txHash, movement.value])).toEqual([['net', done.txid_out, net], ['fee', done.txid_out, fee]]);
  });

  it('whose stored transaction reverts on chain (the payout wallet refused after it was signed): failed with the token\'s reason, then forwarded by a new transaction', async () => {
    const payout = (await chain.newAccount()).address;
    const { address } = await watched({ payout });
    const receipt = await deposit('usdc', address, USDC(16));
    // Signed and stored, but the node never gets it; meanwhile the token starts refusing the payout wallet.
    proxy.set({ hang: Infinity, only: ['eth_sendRawTransaction'] });
    await forwarding.forwardAll();
    proxy.set({});
    await tokens.refuse('usdc', payout);
    await forwardToFinal();
    const forward = await forwardOf(receipt.transactionHash);
    const [reverted] = await transactionsOf(forward.id);
    expect(reverted!.state).toBe('reverted');
    expect(forward).toMatchObject({ state: 'failed', failure: `${reverted!.tx_hash} reverted: the token refuses the net share to ${payout.toLowerCase()}: Blacklistable: account is blacklisted` });
    for (const nonce of nonces(forward)) expect(await tokens.authorizationState(address, nonce)).toBe(false);

    await chain.confirm(await chain.wallet(chain.accounts.deployer).writeContract({ address: tokens.address.usdc, abi: testTokenAbi, functionName: 'unBlacklist', args: [payout] }));
    expect(await retryFailedForwards(t.db, t.clock, 'polygon')).toBeGreaterThanOrEqual(1);
    await forwardToFinal();
    const transactions = await transactionsOf(forward.id);
    expect(transactions.map((tx) => tx.state)).toEqual(['reverted', 'final']);
    expect(transactions[1]!.nonce).toBeGreaterThan(transactions[0]!.nonce);
    expect(await forwardOf(receipt.transactionHash)).toMatchObject({ state: 'final', txid_out: transactions[1]!.tx_hash });
    expect(await tokens.balanceOf('usdc', payout)).toBe(split(USDC(16)).net);
  });

  it('with the gas wallet empty: failed and shown as low gas; funded, it forwards', async () => {
    const gasWallet = keys.gasWallet.address;
    await chain.fund(gasWallet, 0n);
    const { address, payout } = await watched();
    const receipt = await deposit('usdc', address, USDC(15));
    await forwarding.forwardAll();
    const forward = await forwardOf(receipt.transactionHash);
    expect(forward.state).toBe('failed');
    expect(forward.failure).toMatch(new RegExp(`the gas wallet ${gasWallet.toLowerCase()} holds 0 of polygon's native coin .*: fund it`));
    // What the pass saw, written down for `processor status` (which holds no key and asks no node).
    expect(await gasWalletStatus(t.db, 'polygon')).toMatchObject({ address: gasWallet.toLowerCase(), balance: '0', balanceCoin: '0', low: true });
    expect(logs.some((line) => line.includes(`the gas wallet ${gasWallet.toLowerCase()} is low: 0 wei`))).toBe(true);
    // processor status (database only): the failed forward with its reason, the deposit still to forward, the low gas wallet.
    const shown = await Promise.all(forwardingSections.map((section) => section.read(t.db, 'polygon', polygon.tokens, t.clock.now())));
    const text = shown.flatMap((section) => section.text).join('\n');
    expect(text).toContain(`failed: ${forward.payment_id} (${address}): ${forward.failure}`);
    expect(text).toMatch(/deposits awaiting forward: [1-9]/);
    expect(text).toContain(`gas wallet: ${gasWallet.toLowerCase()}, 0 — LOW: fund it`);
    const registry = new Registry();
    registerForwardingMetrics(registry, t.db, ['polygon']);
    const scraped = await registry.metrics();
    expect(scraped).toContain('processor_gas_wallet_low{network="polygon"} 1');
    expect(scraped).toContain('processor_gas_wallet_balance{network="polygon"} 0');
    expect(scraped).toMatch(/processor_forwards_failed\{network="polygon"\} [1-9]/);
    expect(shown[1]!.json).toMatchObject({ failed: expect.any(Number), failures: expect.arrayContaining([expect.objectContaining({ id: forward.id, reason: forward.failure })]) });

    await chain.fund(gasWallet, 10n ** 18n);
    await forwarding.forwardAll();
    expect(await gasWalletStatus(t.db, 'polygon')).toMatchObject({ balance: (10n ** 18n).toString(), low: false });
    t.clock.advance(RETRY_AFTER_MS);
    await forwardToFinal();
    expect((await forwardOf(receipt.transactionHash)).state).toBe('final');
    expect(await tokens.balanceOf('usdc', payout)).toBe(split(USDC(15)).net);
  });
});

it('the whole Live path in the processor: a start, a deposit, paid, forwarded, and the settlement recorded on the payment', async () => {
  const payout = (await chain.newAccount()).address.toLowerCase();
  const business = await t.business({ payoutWallet: payout, feeBps: 150 });
  const key = (await business.key({ mode: 'live' })).secret;
  const processor = await startProcessor({
    db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon],
    sender: { url: `${t.url}/processor/notices`, secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
    steps: [forwarding.forwardNetwork],
  }, { manual: true, rpc, log: (line) => logs.push(line) });
  try {
    // A Live start offers a network only once a healthy processor reported it.
    await processor.poll();
    await processor.reportStatus();
    const session = (await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '40.00', currency: 'USD' } })).body;
    const address = (await t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key, body: { email: 'ann@buyer.example' } })).body.deposit_address.toLowerCase();
    await expect.poll(() => processor.detection.watched.has(address), { timeout: 2_000, interval: 20 }).toBe(true);
    await tokens.transfer('usdc', chain.accounts.buyer, address, USDC(40));
    for (let i = 0; i < 10; i += 1) {
      await chain.mine(1);
      await processor.poll();
      const payment = await t.db.selectFrom('payments').select(['status', 'txid_out']).where('id', '=', session.id).executeTakeFirstOrThrow();
      if (payment.txid_out !== null) break;
    }
    const payment = (await t.request('GET', `/v1/payments/${session.id}`, { key })).body;
    expect(payment).toMatchObject({ status: 'paid' });
    const settled = await t.db.selectFrom('payments').select(['txid_out', 'merchant_received']).where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(settled.merchant_received).toBe('39.400000');
    expect(await tokens.balanceOf('usdc', payout as Address)).toBe(USDC(40) - USDC(40) * 150n / 10_000n);
    expect(settled.txid_out).toMatch(/^0x[0-9a-f]{64}$/);
  } finally {
    await processor.stop();
  }
});
