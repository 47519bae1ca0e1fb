import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processorCommands } from '../../src/cli/processor.ts';
import { ApiError } from '../../src/core/errors.ts';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import type { AppContext } from '../../src/verbs/context.ts';
import { startDetection, type Detection } from '../../src/processor/detection/detection.ts';
import { ForwardChain } from '../../src/processor/chain/forward-chain.ts';
import { planForwards } from '../../src/processor/forwarding/forward-plans.ts';
import { executeSweep, reportFinalSweeps } from '../../src/processor/forwarding/sweep.ts';
import { ProcessorKeys } from '../../src/processor/chain/keys.ts';
import type { TestChain } from '../support/chain.ts';
import { compiledTokens, testTokenAbi } from '../support/chain-contracts.ts';
import type { TestTokens } from '../support/chain-tokens.ts';
import { runCliProcess } from '../support/cli.ts';
import { startTestApp, TEST_DEPOSIT_WALLET, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc as USDC, type PolygonTestChain } from '../support/processor-chain.ts';

// `processor sweep` (issue 22, must have 6) against a real EDR node posing as Polygon: a stray
// token (a third token, not configured for the network) sent to a watched deposit address is moved
// whole to the payout wallet or the fee wallet through the gas wallet's top-up; what forwarding
// will move is refused; a dry run and every refusal change nothing.

const DEPTH = 2;
const FAR = new Date('2100-01-01T00:00:00Z');
const SEED = Buffer.alloc(32, 7);

let t: TestApp;
let polygonChain: PolygonTestChain;
let chain: TestChain;
let tokens: TestTokens;
let polygon: NetworkConfig;
let keys: ProcessorKeys;
let feeWallet: `0x${string}`;
let stray: Address;
let detection: Detection;
let context: AppContext;
let dataDir: string;
let seedFile: string;
let nextIndex = 2_000;

const sweep = processorCommands['processor sweep']!;
const strayBalance = (account: Address) => chain.client.readContract({ address: stray, abi: testTokenAbi, functionName: 'balanceOf', args: [account] });
const sweeps = () => t.db.selectFrom('processor.sweeps').selectAll().orderBy('id').execute();
const nonceRows = () => t.db.selectFrom('processor.sender_nonces').selectAll().orderBy('address').execute();

/** A watched deposit address of the test seed, with its payment's payout wallet (or none). */
async function watched(options: { payout?: boolean } = {}) {
  const index = nextIndex++;
  const address = keys.deposit(index).address.toLowerCase() as Address;
  const payout = options.payout === false ? null : (await chain.newAccount()).address.toLowerCase() as Address;
  await t.db.insertInto('processor.watched_addresses').values({
    address, payment_id: `pay_sweep${index}`, watch_from: t.clock.now(), watch_until: FAR, deposit_index: index, payout_wallet: payout, fee_bps: 150,
  }).execute();
  detection.watched.add(address, FAR);
  return { address, index, payout };
}

async function sendStray(to: Address, amount: bigint) {
  await chain.confirm(await chain.wallet(chain.accounts.deployer).writeContract({ address: stray, abi: testTokenAbi, functionName: 'mint', args: [to, amount] }));
}

/** The command as the CLI runs it, on the test app's database, configured for the test chain. */
async function run(flags: Record<string, string | boolean>) {
  return sweep.run(context, { network: 'polygon', ...flags }, [], () => undefined);
}
async function refusal(flags: Record<string, string | boolean>): Promise<ApiError> {
  const error = await run(flags).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** What a refusal or a dry run must leave as it was: balances on chain, sweeps, nonces, the head. */
async function snapshot(address: Address, token: Address = stray) {
  const balanceOf = (account: Address) => chain.client.readContract({ address: token, abi: testTokenAbi, functionName: 'balanceOf', args: [account] });
  return {
    head: await chain.head(), deposit: await balanceOf(address), gas: await chain.client.getBalance({ address: keys.gasWallet.address }),
    depositGas: await chain.client.getBalance({ address }), sweeps: await sweeps(), nonces: await nonceRows(),
  };
}

beforeAll(async () => {
  [t, polygonChain, dataDir] = await Promise.all([
    startTestApp({ RATE_LIMITS: 'off' }, { clockStart: Date.now() }), startPolygonChain({ depth: DEPTH }), mkdtemp(path.join(tmpdir(), 'processor-sweep-')),
  ]);
  ({ chain, tokens, polygon } = polygonChain);
  // Every transaction mined as it is sent: the sweep waits for its transactions to be mined.
  await chain.setAutomine(true);
  // The stray token: the test USDT contract deployed once more, configured nowhere.
  const compiled = await compiledTokens();
  const deployed = await chain.confirm(await chain.wallet(chain.accounts.deployer).deployContract({ abi: compiled.TestTetherUSD.abi, bytecode: compiled.TestTetherUSD.bytecode }));
  stray = deployed.contractAddress!.toLowerCase() as Address;
  keys = new ProcessorKeys(SEED);
  feeWallet = (await chain.newAccount()).address.toLowerCase() as `0x${string}`;
  await chain.fund(keys.gasWallet.address, 10n ** 18n);
  seedFile = path.join(dataDir, 'seed.hex');
  await writeFile(seedFile, SEED.toString('hex'), { mode: 0o600 });
  context = {
    ...t.context,
    config: { ...t.context.config, dataDir, networks: [polygon], processor: { ...t.context.config.processor, seedFile, feeWallet } },
  };
  detection = await startDetection({ db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon] }, { rpc: { timeoutMs: 1_500, retryDelayMs: 10, rounds: 2 }, log: () => undefined });
  await detection.scanAll();
  expect(keys.xpub).toBe(TEST_DEPOSIT_WALLET.publicExtendedKey);
}, 60_000);

afterAll(async () => {
  await detection?.stop();
  await polygonChain?.stop();
  await t?.close();
});

describe('a stray token at a watched deposit address', () => {
  it('a dry run says what it would do and changes nothing', async () => {
    const { address, payout } = await watched();
    await sendStray(address, USDC(12));
    const before = await snapshot(address);
    const result = await run({ address, token: stray, to: 'merchant' });
    expect(result.json).toMatchObject({
      dry_run: true, network: 'polygon', deposit_address: address, token: stray, symbol: 'USDT', decimals: 6, configured_token: false,
      balance: '12000000', held_back: '0', amount: '12000000', amount_formatted: '12', from: address, to: payout, destination: 'merchant',
    });
    const json = result.json as { gas: { limit: number; top_up_wei: string; cost_estimate_wei: string } };
    expect(json.gas.limit).toBeGreaterThan(21_000);
    expect(BigInt(json.gas.top_up_wei)).toBeGreaterThan(0n);
    expect(BigInt(json.gas.cost_estimate_wei)).toBeGreaterThan(BigInt(json.gas.top_up_wei));
    expect(result.text).toContain(`Would sweep 12 USDT`);
    expect(result.text).toContain(payout!);
    expect(result.text).toContain('Nothing was sent');
    expect(await snapshot(address)).toEqual(before);
  });

  it('--yes --to merchant moves the whole balance to the payout wallet: the gas wallet tops the address up, the address sends it all', async () => {
    const { address, payout } = await watched();
    await sendStray(address, USDC(7));
    const gasBefore = await chain.client.getBalance({ address: keys.gasWallet.address });
    const result = await run({ address, token: stray, to: 'merchant', yes: true });
    expect(result.json).toMatchObject({ dry_run: false, state: 'mined', mined: true, amount: '7000000', to: payout, destination: 'merchant' });
    const json = result.json as { tx_hash: `0x${string}`; top_up_tx_hash: `0x${string}`; block: number };
    expect(result.text).toContain(`Mined in block ${json.block}: ${json.tx_hash}`);
    expect(await strayBalance(payout!)).toBe(USDC(7));
    expect(await strayBalance(address)).toBe(0n);
    // The transfer came from the deposit address, its gas from the gas wallet's top-up.
    const transfer = await chain.client.getTransaction({ hash: json.tx_hash });
    expect(transfer.from.toLowerCase()).toBe(address);
    const topUp = await chain.client.getTransaction({ hash: json.top_up_tx_hash });
    expect(topUp.from.toLowerCase()).toBe(keys.gasWallet.address.toLowerCase());
    expect(topUp.to?.toLowerCase()).toBe(address);
    expect(await chain.client.getBalance({ address: keys.gasWallet.address })).toBeLessThan(gasBefore);
    // Written down, its nonces taken from processor.sender_nonces.
    const [row] = (await sweeps()).filter((sweepRow) => sweepRow.deposit_address === address);
    expect(row).toMatchObject({ state: 'mined', amount: '7000000', to_address: payout, transfer_hash: json.tx_hash, top_up_hash: json.top_up_tx_hash, transfer_nonce: 0 });
    expect(row!.transfer_raw).toMatch(/^0x/);
    // Verified in the receipts: the top-up's native value delivered as a plain transfer, the token's Transfer log.
    expect(row!.movements!.map((movement) => [movement.kind, movement.tx_hash, movement.from, movement.to, movement.token, movement.value])).toEqual([
      ['gas', json.top_up_tx_hash, keys.gasWallet.address.toLowerCase(), address, null, topUp.value.toString()],
      ['sweep', json.tx_hash, address, payout, stray.toLowerCase(), '7000000'],
    ]);
    const nonces = await nonceRows();
    expect(nonces.find((nonce) => nonce.address === address)).toMatchObject({ kind: 'deposit', next_nonce: 1 });
    expect(nonces.find((nonce) => nonce.address === keys.gasWallet.address.toLowerCase())?.kind).toBe('gas_wallet');
    // And then there is nothing left to sweep.
    const after = await snapshot(address);
    expect((await refusal({ address, token: stray, to: 'merchant' })).message).toMatch(/holds none of/);
    expect(await snapshot(address)).toEqual(after);
  });

  it('once its transfer is final, is reported to the service once (sweep.completed) with what its receipts moved', async () => {
    const { address, index, payout } = await watched();
    await sendStray(address, USDC(4));
    const result = await run({ address, token: stray, to: 'merchant', yes: true });
    const json = result.json as { sweep_id: number; tx_hash: string; top_up_tx_hash: string };
    const report = () => reportFinalSweeps({ db: t.db, clock: t.clock, network: polygon, chain: new ForwardChain(polygon), log: () => undefined });
    const notice = () => t.db.selectFrom('processor.notices_out').selectAll().where('id', '=', `sweep:polygon:${json.sweep_id}`).executeTakeFirst();
    // Mined, not final yet: nothing reported.
    await report();
    expect(await notice()).toBeUndefined();
    await chain.mine(DEPTH + 1);
    await report();
    const sent = await notice();
    expect(sent).toMatchObject({ kind: 'sweep.completed', state: 'pending' });
    expect(sent!.body).toMatchObject({
      type: 'sweep.completed', deposit_address: address, payment_id: `pay_sweep${index}`,
      network: 'polygon', token: stray, forwarded_to: payout, txid_out: json.tx_hash,
    });
    expect((sent!.body as { movements: unknown[] }).movements).toEqual([
      expect.objectContaining({ kind: 'gas_top_up', txid: json.top_up_tx_hash, to: address, token: null, decimals: 18 }),
      expect.objectContaining({ kind: 'sweep', txid: json.tx_hash, from: address, to: payout, token: stray, value: '4000000', decimals: 6 }),
    ]);
    const [row] = (await sweeps()).filter((sweepRow) => sweepRow.id === json.sweep_id);
    expect(row!.reported_at).not.toBeNull();
    // Reported once.
    await report();
    expect(await t.db.selectFrom('processor.notices_out').select('id').where('id', 'like', `sweep:polygon:${json.sweep_id}`).execute()).toHaveLength(1);
  });

  it('--to operator sends it to PROCESSOR_FEE_WALLET, also from an address whose payment has no payout wallet', async () => {
    const { address } = await watched({ payout: false });
    await sendStray(address, USDC(3));
    const feesBefore = await strayBalance(feeWallet);
    expect((await refusal({ address, token: stray, to: 'merchant' })).code).toBe('no_payout_wallet');
    const result = await run({ address, token: stray, to: 'operator', yes: true });
    expect(result.json).toMatchObject({ state: 'mined', mined: true, to: feeWallet, destination: 'operator' });
    expect(await strayBalance(feeWallet)).toBe(feesBefore + USDC(3));
    expect(await strayBalance(address)).toBe(0n);
  });
});

describe('a configured token\'s leftover no forward covers', () => {
  it('is swept to the operator, less what arrived after the last scanned block (left to forwarding)', async () => {
    // A payment without a payout wallet: forwarding never plans its deposits.
    const { address } = await watched({ payout: false });
    const usdt = tokens.address.usdt.toLowerCase() as Address;
    await tokens.transfer('usdt', chain.accounts.buyer, address, USDC(4));
    await chain.mine(DEPTH);
    await detection.scanAll();
    // A second deposit detection has not scanned yet.
    await tokens.transfer('usdt', chain.accounts.buyer, address, USDC(2));
    const dry = await run({ address, token: usdt, to: 'operator' });
    expect(dry.json).toMatchObject({ configured_token: true, balance: '6000000', held_back: '2000000', amount: '4000000' });
    expect(dry.text).toContain('of which 2 arrived after detection\'s last scanned block and is left to forwarding');
    const feesBefore = await tokens.balanceOf('usdt', feeWallet);
    expect((await run({ address, token: usdt, to: 'operator', yes: true })).json).toMatchObject({ state: 'mined', amount: '4000000' });
    expect(await tokens.balanceOf('usdt', feeWallet)).toBe(feesBefore + USDC(4));
    expect(await tokens.balanceOf('usdt', address)).toBe(USDC(2));
  });
});

describe('a sweep that did not see its transactions mined', () => {
  it('is stored before broadcast and resumed by the same command: the balance moves once', async () => {
    const { address, payout } = await watched();
    await sendStray(address, USDC(9));
    await chain.setAutomine(false);
    const lines: string[] = [];
    let first;
    try {
      first = await executeSweep({ db: t.db, clock: t.clock, network: polygon, chain: new ForwardChain(polygon), keys, feeWallet, log: (line) => lines.push(line) },
        { address, token: stray, to: 'merchant' }, { waitMs: 300, pollMs: 50 });
    } finally {
      await chain.setAutomine(true);
    }
    expect(first.mined).toBe(false);
    expect(first.sweep).toMatchObject({ state: 'sending', amount: '9000000' });
    expect(first.sweep.transfer_raw).toMatch(/^0x/);
    expect(await strayBalance(address)).toBe(USDC(9));
    // While it is open: a dry run shows it, another sweep of the address is refused.
    expect((await run({ address, token: stray, to: 'merchant' })).json).toMatchObject({ dry_run: true, open_sweep: { sweep_id: first.sweep.id, state: 'sending' } });
    expect((await refusal({ address, token: stray, to: 'operator', yes: true })).message).toMatch(new RegExp(`^Sweep ${first.sweep.id} of .* is still sending`));
    // The top-up waiting in the node's pool is mined; the same command goes on from the rows.
    await chain.mine(1);
    const resumed = await run({ address, token: stray, to: 'merchant', yes: true });
    expect(resumed.json).toMatchObject({ resumed: true, mined: true, state: 'mined', sweep_id: first.sweep.id, tx_hash: first.sweep.transfer_hash });
    expect(resumed.text).toContain(`Sweep ${first.sweep.id} resumed`);
    expect(await strayBalance(payout!)).toBe(USDC(9));
    expect(await strayBalance(address)).toBe(0n);
    expect((await sweeps()).filter((row) => row.deposit_address === address)).toHaveLength(1);
  });
});

describe('refusals change nothing', () => {
  it('an address the processor does not watch', async () => {
    const unknown = keys.deposit(99_999).address.toLowerCase() as Address;
    await sendStray(unknown, USDC(1));
    const before = await snapshot(unknown);
    const error = await refusal({ address: unknown, token: stray, to: 'merchant', yes: true });
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(`${unknown} is not a deposit address the processor watches.`);
    expect(await snapshot(unknown)).toEqual(before);
  });

  it('a zero balance', async () => {
    const { address } = await watched();
    const before = await snapshot(address);
    expect((await refusal({ address, token: stray, to: 'merchant', yes: true })).message).toMatch(/holds none of .* nothing to sweep/);
    expect(await snapshot(address)).toEqual(before);
  });

  it('a configured token: what arrived after the last scan, a final deposit not forwarded yet, and one whose forward is pending are forwarding\'s', async () => {
    const { address } = await watched();
    const usdt = tokens.address.usdt.toLowerCase() as Address;
    await tokens.transfer('usdt', chain.accounts.buyer, address, USDC(20));
    let before = await snapshot(address, usdt);
    // Not scanned yet: held back, so nothing to sweep.
    const unscanned = await refusal({ address, token: usdt, to: 'merchant', yes: true });
    expect(unscanned.message).toMatch(/arrived after detection's last scanned block/);
    expect(await snapshot(address, usdt)).toEqual(before);

    // Final and recorded, no forward planned yet.
    await chain.mine(DEPTH);
    await detection.scanAll();
    before = await snapshot(address, usdt);
    expect((await refusal({ address, token: usdt, to: 'operator', yes: true })).message).toMatch(/is final and not forwarded yet: forwarding moves it/);
    expect(await snapshot(address, usdt)).toEqual(before);

    // Its forward planned (pending).
    const chainClient = new ForwardChain(polygon);
    expect(await planForwards({ db: t.db, clock: t.clock, network: polygon, chain: chainClient, keys, feeWallet, log: () => undefined }, async () => undefined)).toBeGreaterThan(0);
    before = await snapshot(address, usdt);
    const pending = await refusal({ address, token: usdt, to: 'merchant', yes: true });
    expect(pending.message).toMatch(/^Forward \d+ of this token from .* is planned: forwarding moves that balance/);
    expect(await snapshot(address, usdt)).toEqual(before);
    expect(await tokens.balanceOf('usdt', address)).toBe(USDC(20));
  });

  it('without the seed or the network configured, in one sentence', async () => {
    const { address } = await watched();
    const missingSeed = { ...context, config: { ...context.config, processor: { ...context.config.processor, seedFile: path.join(dataDir, 'none.hex') } } };
    const error = await sweep.run(missingSeed, { network: 'polygon', address, token: stray, to: 'merchant' }, [], () => undefined).then(() => undefined, (caught: unknown) => caught);
    expect((error as ApiError).message).toMatch(/^The processor cannot read PROCESSOR_SEED_FILE at .*: set PROCESSOR_SEED_FILE to the deposit seed's file \(hex\)\.$/);
    const base = await sweep.run(context, { network: 'base', address, token: stray, to: 'merchant' }, [], () => undefined).then(() => undefined, (caught: unknown) => caught);
    expect((base as ApiError).message).toBe('base is not configured here: set BASE_RPC_URL as the processor has it.');
  });
});

it('runs as an operator runs it: a real CLI process, --json, and the key never in its output', async () => {
  const { address, payout } = await watched();
  await sendStray(address, USDC(5));
  const env = {
    DATA_DIR: dataDir, DEPOSIT_XPUB: TEST_DEPOSIT_WALLET.publicExtendedKey, PROCESSOR_SEED_FILE: seedFile, PROCESSOR_FEE_WALLET: feeWallet,
    POLYGON_RPC_URL: chain.url, POLYGON_CHAIN_ID: '137', POLYGON_CONFIRMATIONS: String(DEPTH),
    POLYGON_USDC: tokens.address.usdc, POLYGON_USDT: tokens.address.usdt, BASE_RPC_URL: undefined, ETHEREUM_RPC_URL: undefined,
  };
  const args = ['processor', 'sweep', '--network', 'polygon', '--address', address, '--token', stray, '--to', 'merchant'];
  const dry = await runCliProcess(t, [...args, '--json'], env);
  expect(dry.code, dry.stderr).toBe(0);
  expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, amount: '5000000', to: payout });
  expect(await strayBalance(address)).toBe(USDC(5));

  const done = await runCliProcess(t, [...args, '--yes'], env);
  expect(done.code, done.stderr).toBe(0);
  expect(done.stdout).toMatch(/^Swept 5 USDT/);
  expect(done.stdout).toMatch(/Mined in block \d+: 0x[0-9a-f]{64}/);
  expect(done.stderr).toContain('[processor] polygon: sweep');
  expect(await strayBalance(payout!)).toBe(USDC(5));
  expect(await strayBalance(address)).toBe(0n);
  expect(`${done.stdout}${done.stderr}${dry.stdout}${dry.stderr}`).not.toContain(SEED.toString('hex'));

  const refused = await runCliProcess(t, [...args, '--json'], env);
  expect(refused.code).toBe(1);
  expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'invalid_state' } });
}, 60_000);
