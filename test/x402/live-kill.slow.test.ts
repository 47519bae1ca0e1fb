import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address, Hex } from 'viem';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProcessorKeys } from '../../src/processor/chain/keys.ts';
import { startChain, type TestChain } from '../support/chain.ts';
import { testTokenAbi } from '../support/chain-contracts.ts';
import { deployMulticall } from '../support/chain-multicall.ts';
import { deployTestTokens, type TestTokens } from '../support/chain-tokens.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { killed, startProcessorProcess, until as until_ } from '../support/processor-process.ts';
import { decodeHeader, keepClockWithWall, signedHeader } from '../support/x402.ts';

// A Live x402 payment with the processor as a real process (`node src/main.ts --role processor`),
// killed with SIGKILL between the service's verification and the settlement: first while the
// authorization waits for it (the buyer's request answers 202 settlement_pending), then once it
// broadcast the authorization's transaction, before anything is mined. Started again, it goes on
// from its rows: exactly one transfer of the buyer's money, and the payment paid. Then a reorganisation
// takes its mined transaction away: the same transaction goes out again. The token is the
// test USDC (live.test.ts pays Circle's FiatTokenV2_2); the chain mines only when the test says.

const SEED = Buffer.alloc(32, 7);
const DEPTH = 2;

let t: TestApp;
let chain: TestChain;
let tokens: TestTokens;
let multicall: Address;
let dataDir: string;
let child: ChildProcess | undefined;
let stopClock: (() => void) | undefined;
const output: string[] = [];

beforeAll(async () => {
  chain = await startChain({ chainId: 137 });
  tokens = await deployTestTokens(chain);
  multicall = await deployMulticall(chain);
  t = await startTestApp({
    RATE_LIMITS: 'off', POLYGON_RPC_URL: chain.url, POLYGON_CONFIRMATIONS: String(DEPTH),
    POLYGON_USDC: tokens.address.usdc.toLowerCase(), POLYGON_USDT: tokens.address.usdt.toLowerCase(), X402_SETTLE_WAIT_SECONDS: '1',
  }, { clockStart: Date.now(), realOrigin: true });
  stopClock = keepClockWithWall(t);
  dataDir = await mkdtemp(path.join(tmpdir(), 'x402-kill-'));
  await writeFile(path.join(dataDir, 'seed.hex'), SEED.toString('hex'), { mode: 0o600 });
}, 120_000);

afterAll(async () => {
  stopClock?.();
  child?.kill('SIGKILL');
  await chain?.stop();
  await t?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const setup = () => ({ t, dataDir, chainUrl: chain.url, tokens, multicall, depth: DEPTH, output });
const startProcessor = (feeWallet: Address) => (child = startProcessorProcess(setup(), { PROCESSOR_FEE_WALLET: feeWallet }));
const until = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs?: number) => until_(output, what, read, done, timeoutMs);

it('killed with SIGKILL between verify and settle, and started again, the buyer\'s authorization moves the money exactly once', async () => {
  const keys = new ProcessorKeys(SEED);
  const feeWallet = (await chain.newAccount()).address.toLowerCase() as Address;
  const payout = (await chain.newAccount()).address.toLowerCase() as Address;
  const buyer = await chain.newAccount();
  await chain.fund(keys.gasWallet.address, 10n ** 18n);
  await tokens.mint('usdc', buyer.address, 5_000_000n);
  const key = (await (await t.business({ name: 'Kestrel Coffee Roasters', payoutWallet: payout, feeBps: 150 })).key({ mode: 'live' })).secret;

  // The processor reports the network healthy; the link's x402 address starts it and offers it.
  let processor = startProcessor(feeWallet);
  await until('the network reported healthy', () => t.db.selectFrom('processor_networks').select('healthy').executeTakeFirst(), (row) => row?.healthy === true, 60_000);
  const link = (await t.request('POST', '/v1/payment_links', { key, body: { amount: '5.00', currency: 'USD', description: 'Tea sample' } })).body;
  const url = `${t.url}/x402/pay/${link.id}`;
  const offered = await fetch(url);
  expect(offered.status).toBe(402);
  const offer = decodeHeader(offered.headers.get('payment-required'));
  const depositAddress = String(offer.accepts[0].payTo).toLowerCase() as Address;
  await until('the deposit address watched', () => t.db.selectFrom('processor.watched_addresses').select('address').where('address', '=', depositAddress).executeTakeFirst(), (row) => row !== undefined);

  // 1. Killed before the buyer pays: the service verifies and claims the authorization, and the
  // buyer's request answers settlement_pending when its wait is over.
  await killed(processor);
  const header = await signedHeader(offer, buyer);
  const pending = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
  expect(pending.status).toBe(202);
  expect(decodePaymentResponseHeader(pending.headers.get('payment-response')!)).toEqual({
    success: false, errorReason: 'settlement_pending', transaction: '', network: 'eip155:137', payer: buyer.address.toLowerCase(),
  });
  expect(pending.headers.get('retry-after')).toBe('5');
  expect(await pending.json()).toMatchObject({ id: link.id, status: 'open' });
  const claim = () => t.db.selectFrom('x402_authorizations').selectAll().where('payment_id', '=', link.id).executeTakeFirstOrThrow();
  expect((await claim()).state).toBe('verified');

  // 2. Started again: it submits the authorization (broadcast, nothing mined), and is killed.
  const submission = () => t.db.selectFrom('processor.x402_submissions').selectAll().where('payment_id', '=', link.id).execute();
  processor = startProcessor(feeWallet);
  const [broadcast] = await until('the authorization broadcast', submission, (rows) => rows.some((row) => row.state === 'broadcast'));
  await killed(processor);

  // 3. Mined while nobody watches; started again, it finds the receipt, and the deposit pays the payment.
  await chain.mine(1);
  processor = startProcessor(feeWallet);
  await until('the submission mined', submission, (rows) => rows.some((row) => row.state === 'mined' || row.state === 'final'));
  await chain.mine(DEPTH);
  const paid = await until('the payment paid', async () => fetch(url).then(async (res) => ({ status: res.status, response: res.headers.get('payment-response') })), (answer) => answer.status === 200);
  await killed(processor);

  const rows = await submission();
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ tx_hash: broadcast!.tx_hash, nonce: broadcast!.nonce });
  expect(decodePaymentResponseHeader(paid.response!)).toEqual({ success: true, transaction: broadcast!.tx_hash, network: 'eip155:137', payer: buyer.address.toLowerCase() });
  expect(await claim()).toMatchObject({ state: 'settled', tx_hash: broadcast!.tx_hash });
  const moved = await chain.client.getContractEvents({ address: tokens.address.usdc, abi: testTokenAbi, eventName: 'Transfer', args: { from: buyer.address }, fromBlock: 0n });
  expect(moved.map((log) => [log.transactionHash, log.args.to?.toLowerCase(), log.args.value])).toEqual([[broadcast!.tx_hash as Hex, depositAddress, 5_000_000n]]);
  expect(await tokens.balanceOf('usdc', buyer.address)).toBe(0n);
  expect(await tokens.authorizationState(buyer.address, JSON.parse(Buffer.from(header, 'base64').toString()).payload.authorization.nonce)).toBe(true);
  const payment = (await t.request('GET', `/v1/payments/${link.id}`, { key })).body;
  expect(payment).toMatchObject({ status: 'paid', txid_in: broadcast!.tx_hash, provider_name: 'USDC on Polygon (x402)' });
}, 180_000);

it('a reorganisation that takes the submitted transaction away: the processor broadcasts the same transaction again, and the money moves once', async () => {
  const feeWallet = (await chain.newAccount()).address.toLowerCase() as Address;
  const payout = (await chain.newAccount()).address.toLowerCase() as Address;
  const buyer = await chain.newAccount();
  await tokens.mint('usdc', buyer.address, 2_000_000n);
  const key = (await (await t.business({ name: 'Heron Tea', payoutWallet: payout, feeBps: 150 })).key({ mode: 'live' })).secret;
  const processor = startProcessor(feeWallet);
  try {
    await until('the network reported healthy', () => t.db.selectFrom('processor_networks').select(['healthy', 'received_at']).executeTakeFirst(), (row) => row?.healthy === true, 60_000);
    const link = (await t.request('POST', '/v1/payment_links', { key, body: { amount: '2.00', currency: 'USD', description: 'Sencha' } })).body;
    const url = `${t.url}/x402/pay/${link.id}`;
    const offer = decodeHeader((await fetch(url)).headers.get('payment-required'));
    const depositAddress = String(offer.accepts[0].payTo).toLowerCase() as Address;
    await until('the deposit address watched', () => t.db.selectFrom('processor.watched_addresses').select('address').where('address', '=', depositAddress).executeTakeFirst(), (row) => row !== undefined);

    const point = await chain.forkPoint();
    expect((await fetch(url, { headers: { 'PAYMENT-SIGNATURE': await signedHeader(offer, buyer) } })).status).toBe(202);
    const submission = () => t.db.selectFrom('processor.x402_submissions').selectAll().where('payment_id', '=', link.id).executeTakeFirstOrThrow();
    const sent = await until('the authorization broadcast', submission, (row) => row.state === 'broadcast');
    await chain.mine(1);
    await until('the submission mined', submission, (row) => row.state === 'mined');
    // The block that held it is replaced by one without it (and the node's mempool forgets it).
    await chain.reorganise(point);
    await until('the same transaction broadcast again', submission, (row) => row.state === 'broadcast');
    await chain.mine(1);
    await chain.mine(DEPTH);
    const paid = await until('the payment paid', () => fetch(url).then(async (res) => ({ status: res.status, response: res.headers.get('payment-response') })), (answer) => answer.status === 200);
    expect(decodePaymentResponseHeader(paid.response!)).toMatchObject({ success: true, transaction: sent.tx_hash });
    expect(await submission()).toMatchObject({ tx_hash: sent.tx_hash, nonce: sent.nonce });
    const moved = await chain.client.getContractEvents({ address: tokens.address.usdc, abi: testTokenAbi, eventName: 'Transfer', args: { from: buyer.address }, fromBlock: 0n });
    expect(moved.map((log) => [log.transactionHash, log.args.to?.toLowerCase(), log.args.value])).toEqual([[sent.tx_hash as Hex, depositAddress, 2_000_000n]]);
    expect(await tokens.balanceOf('usdc', buyer.address)).toBe(0n);
  } finally {
    await killed(processor);
  }
}, 180_000);
