import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authorizationNonce } from '../../src/processor/forwarding/authorizations.ts';
import { ProcessorKeys } from '../../src/processor/chain/keys.ts';
import { startChain, type TestChain } from '../support/chain.ts';
import { testTokenAbi } from '../support/chain-contracts.ts';
import { deployMulticall } from '../support/chain-multicall.ts';
import { deployTestTokens, type TestTokens } from '../support/chain-tokens.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { killed, startProcessorProcess, until as until_ } from '../support/processor-process.ts';

// The processor as a real process (`node src/main.ts --role processor`), killed with SIGKILL at each
// step of a forward and started again: the deposit reaches the payout wallet and the fee wallet
// exactly once (balances, the deposit address's Transfer logs, authorizationState). Real processes
// on real time; the chain mines only when the test says, so each step can be caught.

const SEED = Buffer.alloc(32, 7);
const DEPTH = 2;
const INDEX = 4_242;

let t: TestApp;
let chain: TestChain;
let tokens: TestTokens;
let multicall: Address;
let dataDir: string;
let child: ChildProcess | undefined;
const output: string[] = [];

beforeAll(async () => {
  [t, chain] = await Promise.all([startTestApp({ RATE_LIMITS: 'off' }, { clockStart: Date.now() }), startChain({ chainId: 137 })]);
  tokens = await deployTestTokens(chain);
  multicall = await deployMulticall(chain);
  dataDir = await mkdtemp(path.join(tmpdir(), 'processor-kill-'));
  await writeFile(path.join(dataDir, 'seed.hex'), SEED.toString('hex'), { mode: 0o600 });
  // A secret sealed with the service's key: the processor, started without that key, still starts.
  const key = (await (await t.business()).key()).secret;
  expect((await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: 'https://hooks.example.com/processor-kill' } })).status).toBe(201);
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await chain?.stop();
  await t?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const setup = () => ({ t, dataDir, chainUrl: chain.url, tokens, multicall, depth: DEPTH, output });
const startProcessor = (env: Record<string, string>) => (child = startProcessorProcess(setup(), env));
const until = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs?: number) => until_(output, what, read, done, timeoutMs);

it('killed with SIGKILL at each step of a forward and started again, the deposit moves exactly once', async () => {
  const keys = new ProcessorKeys(SEED);
  const address = keys.deposit(INDEX).address.toLowerCase() as Address;
  const payout = (await chain.newAccount()).address.toLowerCase() as Address;
  const feeWallet = (await chain.newAccount()).address.toLowerCase() as Address;
  await chain.fund(keys.gasWallet.address, 10n ** 18n);
  await tokens.mint('usdc', chain.accounts.buyer.address, 30_000_000n);
  // What a Live start leaves the processor: the watched address with its index, payout wallet and fee; the scan starts here.
  await t.db.insertInto('processor.watched_addresses').values({
    address, payment_id: 'pay_killed', watch_from: new Date(), watch_until: new Date('2100-01-01T00:00:00Z'), deposit_index: INDEX, payout_wallet: payout, fee_bps: 150,
  }).execute();
  await t.db.insertInto('processor.cursors').values({ network: 'polygon', chain_id: 137, next_block: await chain.head() + 1n, updated_at: new Date() }).execute();
  const env = { PROCESSOR_FEE_WALLET: feeWallet };
  const deposit = await tokens.transfer('usdc', chain.accounts.buyer, address, 30_000_000n);
  await chain.mine(DEPTH);

  const forward = () => t.db.selectFrom('processor.forwards').selectAll().where('transfer_tx_hash', '=', deposit.transactionHash.toLowerCase()).executeTakeFirst();
  const transactions = async () => {
    const row = await forward();
    return row ? t.db.selectFrom('processor.forward_transactions').selectAll().where('forward_id', '=', row.id).orderBy('id').execute() : [];
  };
  const seen: string[] = [];

  // 1. Killed as soon as the forward is written down (planned, or a step further).
  let processor = startProcessor(env);
  await until('a forward', forward, (row) => row !== undefined);
  await killed(processor);
  seen.push(`${(await forward())!.state}/${(await transactions()).map((tx) => tx.state).join(',')}`);

  // 2. Started again, killed once its transaction is broadcast (nothing is mined meanwhile).
  processor = startProcessor(env);
  await until('a broadcast transaction', transactions, (txs) => txs.some((tx) => tx.state === 'broadcast'));
  await killed(processor);
  seen.push((await transactions()).map((tx) => tx.state).join(','));

  // 3. One block mined: started again, killed once it saw the transaction mined (not yet final).
  await chain.mine(1);
  processor = startProcessor(env);
  await until('a mined transaction', transactions, (txs) => txs.some((tx) => tx.state === 'mined'));
  await killed(processor);
  seen.push((await transactions()).map((tx) => tx.state).join(','));

  // 4. Final: started again, it finishes the forward.
  await chain.mine(DEPTH);
  processor = startProcessor(env);
  await until('the forward final', forward, (row) => row?.state === 'final');
  await killed(processor);

  expect(seen.slice(1)).toEqual(['broadcast', 'mined']);
  const done = (await forward())!;
  expect((await transactions()).map((tx) => [tx.purpose, tx.state, tx.tx_hash])).toEqual([['batch', 'final', done.txid_out]]);
  expect(await tokens.balanceOf('usdc', payout)).toBe(29_550_000n);
  expect(await tokens.balanceOf('usdc', feeWallet)).toBe(450_000n);
  expect(await tokens.balanceOf('usdc', address)).toBe(0n);
  const moved = await chain.client.getContractEvents({ address: tokens.address.usdc, abi: testTokenAbi, eventName: 'Transfer', args: { from: address }, fromBlock: deposit.blockNumber });
  expect(moved.map((log) => log.transactionHash)).toEqual([done.txid_out, done.txid_out] as Hex[]);
  for (const share of ['net', 'fee'] as const) expect(await tokens.authorizationState(address, authorizationNonce(done, share))).toBe(true);
  expect(await chain.client.getBalance({ address })).toBe(0n);
}, 120_000);

it.each([
  ['without PROCESSOR_FEE_WALLET', {}, 'PROCESSOR_FEE_WALLET is not set: the processor forwards deposits only once it knows where the fee goes.'],
  ['with a seed of another wallet than DEPOSIT_XPUB', { PROCESSOR_FEE_WALLET: '0x1111111111111111111111111111111111111111', DEPOSIT_XPUB: new ProcessorKeys(Buffer.alloc(32, 9)).xpub },
    'is not the one the service derives deposit addresses from'],
])('refuses to start %s, in one sentence', async (_, env, message) => {
  output.length = 0;
  const processor = startProcessor(env);
  const code = await new Promise((resolve) => processor.once('exit', resolve));
  expect(code).toBe(1);
  expect(output.join('')).toContain(message);
}, 60_000);
