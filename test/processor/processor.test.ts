import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/clock.ts';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { backoffMs, deliverDueNotices, enqueueNotice } from '../../src/processor/notices/outbox.ts';
import { startProcessor, type Processor } from '../../src/processor/processor.ts';
import { depositsWaitingForFinality } from '../../src/processor/detection/unfinal.ts';
import { eventsOf, typesOf } from '../flows/support.ts';
import { startChain, type TestChain } from '../support/chain.ts';
import { deployMulticall } from '../support/chain-multicall.ts';
import { deployTestTokens, type TestTokens } from '../support/chain-tokens.ts';
import { LIVE_WALLET, startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';

// The processor as its role runs it, against a real EDR chain posing as Polygon and the real
// service on loopback: a Live start is learnt through NOTIFY with what it fixed (deposit index,
// payout wallet, fee), a deposit once final becomes a signed deposit.confirmed that pays the
// payment, notices are retried until the service takes them, and of two processors only the one
// holding the network's lock works it.

const USDC = (dollars: number) => BigInt(dollars) * 1_000_000n;
const DEPTH = 2;

let t: TestApp;
let chain: TestChain;
let tokens: TestTokens;
let polygon: NetworkConfig;
let live: string;
const processors: Processor[] = [];
const logs: string[] = [];

const noticesUrl = () => `${t.url}/processor/notices`;
const start = async (options: { url?: string } = {}) => {
  const processor = await startProcessor({
    db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon],
    sender: { url: options.url ?? noticesUrl(), secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
  }, { manual: true, rpc: { timeoutMs: 1_000, retryDelayMs: 10, rounds: 2 }, log: (line) => logs.push(line) });
  processors.push(processor);
  return processor;
};

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await t.request(method, path, { key: live, body });
  expect([200, 201], `${method} ${path}: ${JSON.stringify(response.body)}`).toContain(response.status);
  return response.body;
}

/** A started Live session: its id and deposit address (lowercase). */
async function started(amount = '30.00'): Promise<{ id: string; address: `0x${string}` }> {
  const session = await api('POST', '/v1/checkout_sessions', { amount, currency: 'USD' });
  const begun = await api('POST', `/v1/checkout_sessions/${session.id}/start`, { email: 'ann@buyer.example' });
  return { id: session.id, address: begun.deposit_address.toLowerCase() };
}

const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return read();
};

beforeAll(async () => {
  // The chain's blocks carry real time, and a watch window is judged by block time: the app's clock starts at real time too.
  [t, chain] = await Promise.all([startTestApp({ RATE_LIMITS: 'off' }, { clockStart: Date.now() }), startChain({ chainId: 137 })]);
  tokens = await deployTestTokens(chain);
  // The processor refuses a network whose batch contract has no code.
  const multicall = await deployMulticall(chain);
  await tokens.mint('usdc', chain.accounts.buyer.address, USDC(10_000));
  polygon = {
    name: 'polygon', rpcUrls: [chain.url], chainId: 137, confirmations: DEPTH,
    tokens: [
      { coin: 'polygon_usdc', address: tokens.address.usdc.toLowerCase() as `0x${string}` },
      { coin: 'polygon_usdt', address: tokens.address.usdt.toLowerCase() as `0x${string}` },
    ],
    multicall: multicall.toLowerCase() as `0x${string}`,
  };
  const biz = await t.business();
  live = (await biz.key({ mode: 'live' })).secret;
});

afterAll(async () => {
  for (const processor of processors) await processor.stop();
  await chain?.stop();
  await t?.close();
});

describe('a Live deposit, from start to paid', () => {
  it('the start is watched with its index, payout wallet and fee; the final deposit pays the payment through a signed notice', async () => {
    const processor = await start();
    await processor.poll();
    await processor.reportStatus();
    const { id, address } = await started();
    const watched = await until(
      () => t.db.selectFrom('processor.watched_addresses').selectAll().where('address', '=', address).executeTakeFirst(),
      (row) => row !== undefined,
    );
    const payment = await t.db.selectFrom('payments').select(['deposit_index', 'fee_bps']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(payment.deposit_index).toEqual(expect.any(Number));
    expect(watched).toMatchObject({ payment_id: id, deposit_index: payment.deposit_index, payout_wallet: LIVE_WALLET, fee_bps: payment.fee_bps });
    expect(processor.detection.watched.has(address)).toBe(true);

    const receipt = await tokens.transfer('usdc', chain.accounts.buyer, address, USDC(30));
    await processor.poll();
    expect((await api('GET', `/v1/payments/${id}`)).status, 'not final yet').toBe('open');
    // Seen, waiting for finality: shown in the status, acted on by nothing.
    expect(await t.db.selectFrom('processor.unfinal_deposits').select(['tx_hash', 'to_address', 'value']).execute())
      .toEqual([{ tx_hash: receipt.transactionHash.toLowerCase(), to_address: address, value: '30000000' }]);
    expect(await depositsWaitingForFinality.read(t.db, 'polygon', polygon.tokens, t.clock.now()))
      .toEqual({ json: { count: 1, by_token: [{ token: polygon.tokens[0]!.address, coin: 'polygon_usdc', count: 1, amount: '30.000000' }] }, text: ['deposits waiting for finality: 1 (30.000000 polygon_usdc)'] });
    await chain.mine(DEPTH);
    await processor.poll();
    expect(await t.db.selectFrom('processor.unfinal_deposits').select('tx_hash').execute(), 'final now: no longer waiting').toEqual([]);

    const paid = await api('GET', `/v1/payments/${id}`);
    expect(paid).toMatchObject({ status: 'paid', value_coin: '30.000000', coin: 'polygon_usdc', network: 'polygon', txid_in: receipt.transactionHash.toLowerCase() });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
    const [, paidEvent] = await eventsOf(t, id);
    expect(paidEvent?.data.payment).toMatchObject({ payoutWallet: LIVE_WALLET });
    const notice = await t.db.selectFrom('processor.notices_out').selectAll().executeTakeFirstOrThrow();
    expect(notice).toMatchObject({
      id: `deposit:polygon:${receipt.transactionHash.toLowerCase()}:0`, kind: 'deposit.confirmed', state: 'delivered', attempts: 1,
      body: { type: 'deposit.confirmed', deposit_address: address, payment_id: id, coin: 'polygon_usdc', network: 'polygon', amount: '30.000000', forwarded_to: LIVE_WALLET },
    });
    // The service recorded and applied it once; polling again enqueues and sends nothing more.
    await processor.poll();
    expect(await t.db.selectFrom('processor.notices_out').select('id').execute()).toHaveLength(1);
    const applied = await t.db.selectFrom('processor_notices').select(['outcome', 'payment_id']).where('notice_id', '=', notice.id).execute();
    expect(applied).toEqual([{ outcome: 'applied', payment_id: id }]);
  });

  it('the other configured token is reported under its own coin, and the service holds the payment', async () => {
    await tokens.mint('usdt', chain.accounts.buyer.address, USDC(100));
    const [processor] = processors;
    const { id, address } = await started('20.00');
    await until(() => Promise.resolve(processor!.detection.watched.has(address)), Boolean);
    await tokens.transfer('usdt', chain.accounts.buyer, address, USDC(20));
    await chain.mine(DEPTH);
    await processor!.poll();
    const held = await api('GET', `/v1/payments/${id}`);
    expect(held.coin).toBe('polygon_usdt');
    expect(held.status, JSON.stringify(held)).toMatch(/^(held|paid)$/);
  });
});

describe('a deposit address started before child indexes were kept', () => {
  it('has its index found by deriving the addresses drawn so far, once, as a processor starts', async () => {
    const { id, address } = await started('7.00');
    await until(() => Promise.resolve(processors[0]!.detection.watched.has(address)), Boolean);
    const { deposit_index: index } = await t.db.selectFrom('payments').select('deposit_index').where('id', '=', id).executeTakeFirstOrThrow();
    await t.db.updateTable('processor.watched_addresses').set({ deposit_index: null }).where('address', '=', address).execute();
    await t.db.insertInto('processor.watched_addresses').values({
      address: `0x${'77'.repeat(20)}`, payment_id: 'pay_not_ours', watch_from: t.clock.now(), watch_until: t.clock.now(),
      deposit_index: null, payout_wallet: null, fee_bps: null,
    }).execute();
    const restarted = await start();
    const rows = await t.db.selectFrom('processor.watched_addresses').select(['address', 'deposit_index'])
      .where('address', 'in', [address, `0x${'77'.repeat(20)}`]).orderBy('address').execute();
    expect(rows).toEqual(expect.arrayContaining([{ address, deposit_index: index }, { address: `0x${'77'.repeat(20)}`, deposit_index: null }]));
    await restarted.stop();
    processors.splice(processors.indexOf(restarted), 1);
  });
});

describe('notices are delivered at least once', () => {
  it('a service that cannot be reached is tried again after a growing wait, and the notice is delivered once it answers', async () => {
    const down = createServer((_request, response) => response.writeHead(503).end('maintenance'));
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}/processor/notices`;
    const { id, address } = await started('12.00');
    const body = {
      id: `deposit:polygon:0x${'ab'.repeat(32)}:3`, type: 'deposit.confirmed' as const, deposit_address: address, payment_id: id,
      coin: 'polygon_usdc', network: 'polygon', amount: '12.000000', txid: `0x${'ab'.repeat(32)}`, forwarded_to: LIVE_WALLET,
    };
    await enqueueNotice(t.db, body, t.clock.now());
    await enqueueNotice(t.db, body, t.clock.now());
    const sender = (url: string) => ({ url, secret: TEST_PROCESSOR_SECRET });
    expect(await deliverDueNotices(t.db, t.clock, sender(downUrl))).toBe(0);
    let row = await t.db.selectFrom('processor.notices_out').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'pending', attempts: 1, last_answer: '503 maintenance' });
    expect(row.next_attempt_at.getTime() - t.clock.now().getTime()).toBe(backoffMs(0));
    // Not due yet: nothing is sent, even to a service that would take it.
    expect(await deliverDueNotices(t.db, t.clock, sender(noticesUrl()))).toBe(0);
    t.clock.advance(backoffMs(0));
    expect(await deliverDueNotices(t.db, t.clock, sender(noticesUrl()))).toBe(1);
    row = await t.db.selectFrom('processor.notices_out').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'delivered', attempts: 2 });
    expect((await api('GET', `/v1/payments/${id}`)).status).toBe('paid');
    await new Promise<void>((resolve) => down.close(() => resolve()));
  });

  it('a settlement waits while its deposit\'s notice is not delivered, and follows it', async () => {
    const { id, address } = await started('9.00');
    const tx = `0x${'9a'.repeat(32)}`;
    const deposit = { id: `deposit:polygon:${tx}:0`, type: 'deposit.confirmed' as const, deposit_address: address, payment_id: id,
      coin: 'polygon_usdc', network: 'polygon', amount: '9.000000', txid: tx, forwarded_to: LIVE_WALLET };
    const settlement = { id: `settlement:polygon:${tx}:0`, type: 'settlement.completed' as const, deposit_address: address, payment_id: id,
      txid_out: `0x${'9b'.repeat(32)}`, merchant_received: '8.910000' };
    // The settlement enqueued first and due first: still not sent before the deposit is.
    await enqueueNotice(t.db, settlement, t.clock.now());
    await enqueueNotice(t.db, deposit, new Date(t.clock.now().getTime() + SECOND));
    expect(await deliverDueNotices(t.db, t.clock, { url: noticesUrl(), secret: TEST_PROCESSOR_SECRET })).toBe(0);
    t.clock.advance(SECOND);
    expect(await deliverDueNotices(t.db, t.clock, { url: noticesUrl(), secret: TEST_PROCESSOR_SECRET })).toBe(1);
    expect(await deliverDueNotices(t.db, t.clock, { url: noticesUrl(), secret: TEST_PROCESSOR_SECRET })).toBe(1);
    expect(await api('GET', `/v1/payments/${id}`)).toMatchObject({ status: 'paid', txid_out: settlement.txid_out, merchant_received: '8.910000' });
  });

  it('a notice the service refuses for good (a 4xx other than 408 and 429) is kept refused with its answer, not retried', async () => {
    const body = { id: 'deposit:polygon:refused', type: 'deposit.confirmed' as const, deposit_address: `0x${'cd'.repeat(20)}`, amount: 'not money' };
    await enqueueNotice(t.db, body, t.clock.now());
    await deliverDueNotices(t.db, t.clock, { url: noticesUrl(), secret: TEST_PROCESSOR_SECRET });
    const row = await t.db.selectFrom('processor.notices_out').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row.state).toBe('refused');
    expect(row.last_answer).toMatch(/^400 /);
    t.clock.advance(3_600 * SECOND);
    await deliverDueNotices(t.db, t.clock, { url: noticesUrl(), secret: TEST_PROCESSOR_SECRET });
    expect((await t.db.selectFrom('processor.notices_out').select('attempts').where('id', '=', body.id).executeTakeFirstOrThrow()).attempts).toBe(1);
  });

  it('a notice signed with another secret is refused by the service and kept refused', async () => {
    const body = { id: 'deposit:polygon:wrong-secret', type: 'deposit.confirmed' as const, deposit_address: `0x${'ef'.repeat(20)}` };
    await enqueueNotice(t.db, body, t.clock.now());
    await deliverDueNotices(t.db, t.clock, { url: noticesUrl(), secret: 'another-secret-of-at-least-32-characters' });
    const row = await t.db.selectFrom('processor.notices_out').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'refused' });
    expect(row.last_answer).toContain('invalid_signature');
  });
});

describe('one active processor per network', () => {
  let receiver: Server;
  let received: string[];

  beforeAll(async () => {
    received = [];
    receiver = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      request.on('end', () => { received.push(text); response.writeHead(200).end('{}'); });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('a second processor stands by while the first holds the lock, and takes over when the first stops', async () => {
    const first = processors[0]!;
    await first.poll();
    const second = await start({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/processor/notices` });
    await second.poll();
    expect(first.health()[0]).toMatchObject({ active: true, lastError: null });
    expect(second.health()[0]).toMatchObject({ active: false, lastScanAt: null });
    await second.reportStatus();
    expect(received, 'a processor standing by says nothing').toEqual([]);

    // The active one's status (the service offers Polygon only while a recent one says healthy).
    await first.reportStatus();
    const { id, address } = await started('5.00');
    await until(() => Promise.resolve(second.detection.watched.has(address)), Boolean);
    await first.stop();
    processors.splice(processors.indexOf(first), 1);
    await tokens.transfer('usdc', chain.accounts.buyer, address, USDC(5));
    await chain.mine(DEPTH);
    await second.poll();
    expect(second.health()[0]).toMatchObject({ active: true, lastError: null });
    expect(logs.some((line) => line.includes('polygon: this processor is the active one'))).toBe(true);
    // The second delivers to its own receiver here: the notice is the one the service would take.
    const sent = received.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(sent).toEqual([expect.objectContaining({ type: 'deposit.confirmed', payment_id: id, deposit_address: address, amount: '5.000000' })]);
    await second.reportStatus();
    const status = JSON.parse(received.at(-1)!) as { type: string; networks: Array<Record<string, unknown>> };
    expect(status).toMatchObject({ type: 'processor.status', networks: [expect.objectContaining({ network: 'polygon', chain_id: 137, healthy: true, coins: ['polygon_usdc', 'polygon_usdt'], head_block: String(await chain.head()), final_block: String(await chain.head() - BigInt(DEPTH)) })] });
  });
});
