import { decodePaymentResponseHeader } from '@x402/fetch';
import { randomBytes } from 'node:crypto';
import { unixSeconds } from '../../src/core/clock.ts';
import { getAddress, parseAbi, parseAbiItem, parseSignature, parseTransaction, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { ForwardChain } from '../../src/processor/chain/forward-chain.ts';
import { ProcessorKeys } from '../../src/processor/chain/keys.ts';
import { startForwarding, type Forwarding } from '../../src/processor/forwarding/forwarding.ts';
import { startProcessor, type Processor } from '../../src/processor/processor.ts';
import { startX402Submissions, type SubmissionRow } from '../../src/processor/x402/submissions.ts';
import { x402Section } from '../../src/processor/x402/submission-status.ts';
import type { FiatToken } from '../support/chain-fiat-token.ts';
import { startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc, type PolygonTestChain } from '../support/processor-chain.ts';
import { typesOf } from '../flows/support.ts';
import { deploySmartAccount } from '../support/chain-smart-account.ts';
import { freshRates } from '../support/fx-rates.ts';
import { decodeHeader, encodeHeader, keepClockWithWall, payingFetch, signedHeader } from '../support/x402.ts';

// Live payments over HTTP 402 (issue 33, docs/x402.md) on a real EDR chain posing as Polygon, with
// Circle's own FiatTokenV2_2 as its USDC: the official client pays a Live link in one fetch; the
// service verifies and claims the authorization, the processor (running its own loop, woken by
// the claim) runs it on the chain, submits it from its gas wallet, and the deposit pays the payment
// as any other: forwarded minus the fee, the events signed to a receiver, the gas in the books.
// Blocks are mined every 150 ms, so finality (2 blocks) comes in well under a second.

const DEPTH = 2;
const FEE_BPS = 150n;
const rpc = { timeoutMs: 1_500, retryDelayMs: 10, rounds: 2 };
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

let t: TestApp;
let polygonChain: PolygonTestChain;
let fiat: FiatToken;
let forwarding: Forwarding;
let processor: Processor;
let keys: ProcessorKeys;
let key: string;
let endpointId: string;
let payout: Address;
let feeWallet: Address;
let buyer: PrivateKeyAccount;
let miner: NodeJS.Timeout;
let stopClock: (() => void) | undefined;
const logs: string[] = [];
/** Set by a test: the processor stops at the next submission's step (signed: before its broadcast; broadcast: just after) until released. */
const holds = new Map<string, { reached: PromiseWithResolvers<SubmissionRow>; release: PromiseWithResolvers<void> }>();

function holdAt(step: 'signed' | 'broadcast') {
  const hold = { reached: Promise.withResolvers<SubmissionRow>(), release: Promise.withResolvers<void>() };
  holds.set(step, hold);
  return { reached: hold.reached.promise, release: () => hold.release.resolve() };
}

const x402Url = (id: string) => `${t.url}/x402/pay/${id}`;
const paymentRow = (id: string) => t.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
/** What the buyer's client may spend here: the local FiatTokenV2_2 is not the one the client knows on Polygon. */
const spend = () => ({ allowedAssets: [{ network: 'eip155:137' as const, asset: fiat.address, maxAmountPerPayment: '100000000' }] });
/** The gas wallet's transactions, mined and waiting. */
const gasWalletNonce = () => polygonChain.chain.client.getTransactionCount({ address: keys.gasWallet.address, blockTag: 'pending' });

/** Why an answer is what it is, for a failing assertion: its settlement header, body and the processor's last lines. */
async function why(res: Response): Promise<string> {
  return `${res.headers.get('payment-response') ? JSON.stringify(decodeHeader(res.headers.get('payment-response'))) : ''} ${await res.clone().text()}\n${logs.slice(-8).join('\n')}`;
}

/** The payment paid in one fetch of the buyer's official client, and its forward settled. */
async function paidByClient(id: string): Promise<void> {
  const paid = await payingFetch(buyer, spend())(x402Url(id));
  expect(paid.status, await why(paid)).toBe(200);
  await settled(id);
}

/** Waits for the payment's forward to be settled: the gas wallet sends nothing more for it. */
async function settled(id: string): Promise<void> {
  await vi.waitFor(async () => expect((await paymentRow(id)).txid_out).not.toBeNull(), { timeout: 20_000, interval: 100 });
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await t.request(method, path, { key, body });
  expect([200, 201], `${method} ${path}: ${JSON.stringify(response.body)}`).toContain(response.status);
  return response.body;
}

async function offerOf(id: string): Promise<any> {
  const res = await fetch(x402Url(id));
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(402);
  return decodeHeader(res.headers.get('payment-required'));
}

/** A signed header with its authorization's fields changed after signing. */
function tampered(header: string, authorization: Record<string, string>): string {
  const payload = decodeHeader(header);
  return encodeHeader({ ...payload, payload: { ...payload.payload, authorization: { ...payload.payload.authorization, ...authorization } } });
}

/** Runs `body` with no block mined but those it mines itself. */
async function withoutMiner<T>(body: () => Promise<T>): Promise<T> {
  clearInterval(miner);
  try {
    return await body();
  } finally {
    miner = setInterval(() => void polygonChain.chain.mine(1).catch(() => undefined), 150);
  }
}

const submissionOf = (paymentId: string) => t.db.selectFrom('processor.x402_submissions').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();

/** A claim written as the service writes one, for what the service now refuses at the door or a race it cannot show. */
async function storedClaim(paymentId: string, header: string, change: Partial<{ valid_before: string; state: 'verified' | 'refused'; reason: string; tx_hash: string }> = {}) {
  const { payload, accepted } = decodeHeader(header);
  const payment = await paymentRow(paymentId);
  const auth = payload.authorization;
  const now = t.clock.now();
  await t.db.insertInto('x402_authorizations').values({
    id: `x4a_${randomBytes(12).toString('hex')}`, payment_id: paymentId, business_id: payment.business_id, livemode: true, network: accepted.network,
    asset: accepted.asset.toLowerCase(), payer: auth.from.toLowerCase(), pay_to: auth.to.toLowerCase(), value: auth.value,
    valid_after: auth.validAfter, valid_before: change.valid_before ?? auth.validBefore, nonce: auth.nonce.toLowerCase(), signature: payload.signature.toLowerCase(),
    state: change.state ?? 'verified', reason: change.reason ?? null, tx_hash: change.tx_hash ?? null, created_at: now, updated_at: now,
  }).execute();
}

/** The Transfer logs of the token from `from` to `to` since the file began. */
async function transfers(from: Address, to: Address) {
  return polygonChain.chain.client.getLogs({ address: fiat.address, event: TRANSFER, args: { from, to }, fromBlock: 0n, toBlock: 'latest' });
}

beforeAll(async () => {
  // Blocks every 150 ms, their clock kept to the wall clock's: the buyer's client signs windows by it.
  polygonChain = await startPolygonChain({ depth: DEPTH, realUsdc: true, sameTimestamps: true });
  const { chain, tokens } = polygonChain;
  fiat = polygonChain.fiat!;
  t = await startTestApp({
    RATE_LIMITS: 'off', POLYGON_RPC_URL: polygonChain.proxy.url, POLYGON_CONFIRMATIONS: String(DEPTH),
    POLYGON_USDC: fiat.address, POLYGON_USDT: tokens.address.usdt,
  }, { clockStart: Date.now() - 10_000, realOrigin: true });
  // The service's clock runs 10 s behind the chain's: a window the service takes may be one the chain's clock has closed.
  stopClock = keepClockWithWall(t, 10_000);
  const polygon: NetworkConfig = { ...polygonChain.polygon, tokens: [{ coin: 'polygon_usdc', address: fiat.address.toLowerCase() as Address }, polygonChain.polygon.tokens[1]!] };
  keys = new ProcessorKeys(Buffer.alloc(32, 7));
  await chain.fund(keys.gasWallet.address, 10n ** 18n);
  feeWallet = (await chain.newAccount()).address.toLowerCase() as Address;
  payout = (await chain.newAccount()).address.toLowerCase() as Address;
  buyer = await chain.newAccount(0n);
  await fiat.mint(buyer.address, usdc(1_000));
  const log = (line: string) => logs.push(line);
  forwarding = await startForwarding({ db: t.db, clock: t.clock, networks: [polygon], keys, feeWallet }, { rpc, log });
  const x402 = startX402Submissions({ db: t.db, clock: t.clock, networks: [polygon], keys, chainOf: (network) => new ForwardChain(network, rpc) }, {
    log,
    onStep: async (step, row) => {
      const hold = holds.get(step);
      if (!hold) return;
      holds.delete(step);
      hold.reached.resolve(row);
      await hold.release.promise;
    },
  });
  processor = await startProcessor({
    db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon],
    sender: { url: `${t.url}/processor/notices`, secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
    steps: [x402.submitNetwork, forwarding.forwardNetwork],
  }, { pollMs: 200, statusEveryMs: 1_000, rpc, log, hurry: x402.busy });
  miner = setInterval(() => void chain.mine(1).catch(() => undefined), 150);
  await vi.waitFor(async () => expect((await t.db.selectFrom('processor_networks').select('healthy').executeTakeFirst())?.healthy).toBe(true), { timeout: 20_000, interval: 100 });
  const biz = await t.business({ name: 'Kestrel Coffee Roasters', payoutWallet: payout, feeBps: Number(FEE_BPS) });
  key = (await biz.key({ mode: 'live' })).secret;
  endpointId = (await api('POST', '/v1/webhook_endpoints', { url: 'https://hooks.kestrel.example/payments' })).id;
}, 600_000);

afterAll(async () => {
  clearInterval(miner);
  stopClock?.();
  await processor?.stop();
  await forwarding?.stop();
  await polygonChain?.stop();
  await t?.close();
});

describe('a Live payment link paid over x402', () => {
  it('in one fetch of the official client: paid, forwarded minus the fee, the events signed, the gas in the books', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '30.00', currency: 'USD', description: 'Ethiopia Guji, 1 kg' });
    const before = { payout: await fiat.balanceOf(payout), fee: await fiat.balanceOf(feeWallet), buyer: await fiat.balanceOf(buyer.address) };
    const res = await payingFetch(buyer, spend())(`${x402Url(link.id)}?email=agent.buyer@example.com`);
    const body = await res.json();
    expect(res.status, JSON.stringify(body) + logs.slice(-10).join('\n')).toBe(200);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    const row = await paymentRow(link.id);
    expect(settlement).toEqual({ success: true, transaction: row.txid_in, network: 'eip155:137', payer: buyer.address.toLowerCase() });
    expect(body).toMatchObject({ id: link.id, status: 'paid', livemode: true, coin: 'polygon_usdc', value_coin: '30.000000', provider_name: 'USDC on Polygon (x402)', txid_in: row.txid_in });
    // The transaction is the gas wallet's, carrying the buyer's authorization: one Transfer to the deposit address.
    const tx = await polygonChain.chain.client.getTransaction({ hash: settlement.transaction as `0x${string}` });
    expect(tx.from.toLowerCase()).toBe(keys.gasWallet.address.toLowerCase());
    expect(await transfers(buyer.address, row.deposit_address as Address)).toHaveLength(1);
    expect(await fiat.balanceOf(buyer.address)).toBe(before.buyer - usdc(30));

    // Forwarded as any deposit: the merchant's net and the fee on chain, then the settlement.
    await settled(link.id);
    expect(await fiat.balanceOf(payout) - before.payout).toBe(usdc(30) - usdc(30) * FEE_BPS / 10_000n);
    expect(await fiat.balanceOf(feeWallet) - before.fee).toBe(usdc(30) * FEE_BPS / 10_000n);
    const payment = await api('GET', `/v1/payments/${link.id}`);
    expect(payment).toMatchObject({ status: 'paid', customer_email: 'agent.buyer@example.com', merchant_received: '29.550000', provider_name: 'USDC on Polygon (x402)' });
    const mail = await t.db.selectFrom('outbox').select(['kind', 'recipient']).where('payment_id', '=', link.id).execute();
    expect(mail).toContainEqual({ kind: 'payment_receipt', recipient: 'agent.buyer@example.com' });

    // The merchant's events, each queued for their endpoint (a Live endpoint is never on this
    // machine: the Test-mode file checks the signatures at a receiver).
    expect(await typesOf(t, link.id)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    const deliveries = await t.db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id').select('e.type')
      .where('e.payment_id', '=', link.id).where('d.endpoint_id', '=', endpointId).execute();
    expect(deliveries.map((delivery) => delivery.type).sort()).toEqual(['payment.paid', 'payment.started', 'payment.updated']);

    // The books: the deposit, the two shares, and the gas the processor paid to submit it (exactly the receipt's).
    const receipt = await polygonChain.chain.client.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    await vi.waitFor(async () => {
      const kinds = (await t.db.selectFrom('chain_movements').select('kind').where('payment_id', '=', link.id).execute()).map((movement) => movement.kind);
      expect(kinds.sort()).toEqual(['deposit', 'forward_fee', 'forward_net', 'x402_gas']);
    }, { timeout: 20_000, interval: 100 });
    const gas = await t.db.selectFrom('chain_movements').selectAll().where('payment_id', '=', link.id).where('kind', '=', 'x402_gas').executeTakeFirstOrThrow();
    expect(gas).toMatchObject({ tx_hash: settlement.transaction, from_address: keys.gasWallet.address.toLowerCase(), token: null, coin: 'polygon_pol', value: String(receipt.gasUsed * receipt.effectiveGasPrice) });
    const transfersApi = await api('GET', `/v1/payments/${link.id}/transfers`);
    expect(transfersApi.data.map((each: any) => each.kind)).toContain('x402_gas');
    const claim = await t.db.selectFrom('x402_authorizations').select(['state', 'tx_hash']).where('payment_id', '=', link.id).executeTakeFirstOrThrow();
    expect(claim).toEqual({ state: 'settled', tx_hash: settlement.transaction });

    // Asked again: the paid payment and its settlement; nothing moves twice.
    const again = await fetch(x402Url(link.id));
    expect(again.status).toBe(200);
    expect(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction).toBe(settlement.transaction);
  });

  it('a checkout session priced in euros: the USD value locked at the start is what is authorized', async () => {
    await freshRates(t);
    const session = await api('POST', '/v1/checkout_sessions', { amount: '20.00', currency: 'EUR', description: 'Tea set' });
    const offer = await offerOf(session.id);
    const row = await paymentRow(session.id);
    expect(row.usd_value_minor).toBeGreaterThan(2000);
    expect(offer.accepts).toEqual([{
      scheme: 'exact', network: 'eip155:137', amount: String(BigInt(row.usd_value_minor!) * 10_000n), asset: getAddress(fiat.address),
      payTo: expect.stringMatching(new RegExp(`^${row.deposit_address}$`, 'i')), maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' },
    }]);
    const res = await payingFetch(buyer, spend())(x402Url(session.id));
    expect(res.status, await why(res)).toBe(200);
    expect(await api('GET', `/v1/payments/${session.id}`)).toMatchObject({ status: 'paid', amount: '20.00', currency: 'EUR', value_coin: (row.usd_value_minor! / 100).toFixed(6) });
    await settled(session.id);
  });
});

describe('a smart account (EIP-1271) as the buyer', () => {
  it('pays with its owner key\'s signature: the token asks the account, through the bytes form of the call', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const account = await deploySmartAccount(polygonChain.chain, owner.address);
    await fiat.mint(account, usdc(5));
    // The official client with a signer whose address is the account and whose key is its owner's.
    const signer = { address: account, signTypedData: (message: Parameters<typeof owner.signTypedData>[0]) => owner.signTypedData(message) };
    const link = await api('POST', '/v1/payment_links', { amount: '5.00', currency: 'USD', description: 'Tea for a smart account' });
    const res = await payingFetch(signer as never, spend())(x402Url(link.id));
    expect(res.status, await why(res)).toBe(200);
    const row = await paymentRow(link.id);
    expect(await transfers(account, row.deposit_address as Address)).toHaveLength(1);
    expect(await fiat.balanceOf(account)).toBe(0n);
    expect(decodeHeader(res.headers.get('payment-response'))).toMatchObject({ success: true, payer: account.toLowerCase() });
    await settled(link.id);
  });

  it('a signature the account does not own is refused by the token, nothing submitted', async () => {
    const account = await deploySmartAccount(polygonChain.chain, privateKeyToAccount(generatePrivateKey()).address);
    await fiat.mint(account, usdc(1));
    const link = await api('POST', '/v1/payment_links', { amount: '1.00', currency: 'USD', description: 'Tea sample' });
    const offer = await offerOf(link.id);
    const nonce = await gasWalletNonce();
    const res = await fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': await signedHeader(offer, buyer, { from: account }) } });
    expect(res.status, await why(res)).toBe(402);
    expect(decodeHeader(res.headers.get('payment-response')).errorReason).toBe('invalid_exact_evm_signature');
    expect(await gasWalletNonce()).toBe(nonce);
    expect(await fiat.balanceOf(account)).toBe(usdc(1));
  });
});

describe('refusals: 402 with the protocol\'s reason, nothing submitted (the gas wallet\'s nonce unchanged), nothing charged', () => {
  const fresh = () => privateKeyToAccount(generatePrivateKey());
  const cases: Array<[string, (offer: any, other: any) => Promise<string>, string]> = [
    ['a wallet without the amount (the chain says so)', (offer) => signedHeader(offer, fresh()), 'invalid_exact_evm_insufficient_balance'],
    ['another key\'s signature (the token says so)', (offer) => signedHeader(offer, buyer, { signer: fresh() }), 'invalid_exact_evm_signature'],
    ['an amount below the price', (offer) => signedHeader(offer, buyer, { value: '999999' }), 'invalid_exact_evm_payload_authorization_value_mismatch'],
    ['a foreign payTo (another payment\'s deposit address)', (offer, other) => signedHeader(offer, buyer, { to: other.accepts[0].payTo }), 'invalid_exact_evm_recipient_mismatch'],
    ['an expired window', (offer) => signedHeader(offer, buyer, { validBefore: String(unixSeconds(t.clock.now()) - 1) }), 'invalid_exact_evm_payload_authorization_valid_before'],
    ['a window that closes before the chain can take it (the chain\'s clock says so)', (offer) => signedHeader(offer, buyer, { validBefore: String(unixSeconds(t.clock.now()) + 7) }), 'invalid_exact_evm_payload_authorization_valid_before'],
    ['an unserved network', (offer) => signedHeader(offer, buyer, { network: 'eip155:8453' }), 'invalid_network'],
    ['a window ending beyond maxTimeoutSeconds and a minute (it could be carried long after a refusal)', (offer) => signedHeader(offer, buyer, { validBefore: String(unixSeconds(t.clock.now()) + 3600) }), 'invalid_exact_evm_payload_authorization_valid_before'],
    ['a validBefore beyond uint256 (it could never be sent)', async (offer) => tampered(await signedHeader(offer, buyer), { validBefore: (2n ** 256n).toString() }), 'invalid_payload'],
  ];
  it.each(cases)('%s', async (_name, make, reason) => {
    const [link, other] = await Promise.all([1, 2].map(() => api('POST', '/v1/payment_links', { amount: '1.00', currency: 'USD', description: 'Tea sample' })));
    const [offer, otherOffer] = [await offerOf(link.id), await offerOf(other.id)];
    const nonce = await gasWalletNonce();
    const res = await fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': await make(offer, otherOffer) } });
    expect(res.status, logs.slice(-5).join('\n')).toBe(402);
    expect(decodeHeader(res.headers.get('payment-required'))).toMatchObject({ error: reason, accepts: offer.accepts });
    expect(decodeHeader(res.headers.get('payment-response'))).toMatchObject({ success: false, errorReason: reason, transaction: '' });
    expect((await res.json()).error.code).toBe(reason);
    expect(await gasWalletNonce()).toBe(nonce);
    expect((await paymentRow(link.id)).status).toBe('open');
    const submissions = await t.db.selectFrom('processor.x402_submissions').select(['state', 'raw']).where('payment_id', '=', link.id).execute();
    expect(submissions.every((submission) => submission.state === 'refused' && submission.raw === null)).toBe(true);
    // Refused, the payment still takes a good authorization.
    await paidByClient(link.id);
  });

  it('the same authorization posted twice at once: one transfer on the chain, both answered with it', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '2.00', currency: 'USD', description: 'Tea sample' });
    const offer = await offerOf(link.id);
    const header = await signedHeader(offer, buyer);
    const answers = await Promise.all([1, 2].map(() => fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': header } })));
    // A client's retry of its own header waits for its settlement: no false "already used".
    expect(answers.map((res) => res.status), (await Promise.all(answers.map(why))).join('\n')).toEqual([200, 200]);
    const [first, second] = answers.map((res) => decodeHeader(res.headers.get('payment-response')));
    expect(second).toEqual(first);
    const row = await paymentRow(link.id);
    expect(await transfers(buyer.address, row.deposit_address as Address)).toHaveLength(1);
    const submitted = () => t.db.selectFrom('processor.x402_submissions').select('tx_hash').where('payment_id', '=', link.id).where('raw', 'is not', null).execute();
    expect(await submitted()).toHaveLength(1);
    // Replayed once paid: the paid payment and its settlement; nothing submitted again.
    const replay = await fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(replay.status).toBe(200);
    expect(decodeHeader(replay.headers.get('payment-response')).transaction).toBe((await submitted())[0]!.tx_hash);
    expect(await submitted()).toHaveLength(1);
    expect(await transfers(buyer.address, row.deposit_address as Address)).toHaveLength(1);
  });

  it('a claim stored with a value no transaction can carry is refused by the processor, and the queue moves on', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '1.00', currency: 'USD', description: 'Tea sample' });
    const offer = await offerOf(link.id);
    await storedClaim(link.id, await signedHeader(offer, buyer), { valid_before: (2n ** 256n).toString() });
    await vi.waitFor(async () => expect(await submissionOf(link.id)).toMatchObject({ state: 'refused', reason: 'invalid_payload', raw: null }), { timeout: 10_000, interval: 100 });
    await paidByClient(link.id);
  });

  it('a claim whose payment was paid another way before the processor signed: refused, not submitted (the buyer pays once)', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '1.00', currency: 'USD', description: 'Tea sample' });
    const offer = await offerOf(link.id);
    const header = await signedHeader(offer, buyer);
    const row = await paymentRow(link.id);
    await polygonChain.chain.fund(buyer.address, 10n ** 17n);
    await fiat.transfer(buyer, row.deposit_address as Address, usdc(1));
    await vi.waitFor(async () => expect((await paymentRow(link.id)).status).toBe('paid'), { timeout: 10_000, interval: 100 });
    await storedClaim(link.id, header);
    await vi.waitFor(async () => expect(await submissionOf(link.id)).toMatchObject({ state: 'refused', reason: 'invalid_transaction_state', raw: null }), { timeout: 10_000, interval: 100 });
    expect(await transfers(buyer.address, row.deposit_address as Address)).toHaveLength(1);
    await settled(link.id);
  });

  it('a payment whose authorizations cost the gas wallet gas three times takes no more over x402 (the gas wallet is not a payer\'s to spend)', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '1.00', currency: 'USD', description: 'Tea sample' });
    const offer = await offerOf(link.id);
    // Three of the gas wallet's transactions mined for it, in the books as the processor reports them.
    const payment = await paymentRow(link.id);
    await t.db.insertInto('chain_movements').values([1, 2, 3].map((i) => ({
      id: `mov_${randomBytes(12).toString('hex')}`, business_id: payment.business_id, livemode: true, payment_id: link.id, kind: 'x402_gas' as const,
      network: 'polygon', tx_hash: `0x${String(i).repeat(64)}`, log_index: null, block_number: 1, from_address: keys.gasWallet.address.toLowerCase(),
      to_address: fiat.address.toLowerCase(), token: null, coin: 'polygon_pol', value: '1000', decimals: 18, deposit_tx_hash: null, deposit_log_index: null,
      disposition: null, recorded_at: t.clock.now(),
    }))).execute();
    const nonce = await gasWalletNonce();
    const res = await fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': await signedHeader(offer, buyer) } });
    expect(res.status, await why(res)).toBe(402);
    expect(decodeHeader(res.headers.get('payment-response')).errorReason).toBe('invalid_transaction_state');
    expect(await gasWalletNonce()).toBe(nonce);
  });

  it('processor status names the refusals of the last day with their reasons, and nothing left on its way', async () => {
    const tokens = [{ coin: 'polygon_usdc' as const, address: fiat.address.toLowerCase() as Address }];
    // The last submission turns final in the pass after its deposit paid the payment.
    await vi.waitFor(async () => expect((await x402Section.read(t.db, 'polygon', tokens, t.clock.now())).json).toMatchObject({ waiting: [], submitting: [] }), { timeout: 10_000, interval: 100 });
    const shown = await x402Section.read(t.db, 'polygon', tokens, t.clock.now());
    const reasons = (shown.json as { refused_last_day: Array<{ reason: string }> }).refused_last_day.map((row) => row.reason);
    expect(reasons).toEqual(expect.arrayContaining(['invalid_exact_evm_insufficient_balance', 'invalid_exact_evm_signature', 'invalid_exact_evm_payload_authorization_valid_before']));
    expect(shown.text[0]).toMatch(/^x402: 0 waiting for the processor, 0 on their way, \d+ refused or failed in the last day$/);
  });
});

describe('the chain decides: an authorization used by another transaction, or canceled, before the processor\'s was mined', () => {
  const eip3009 = parseAbi([
    'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  ]);
  const minedNonce = () => polygonChain.chain.client.getTransactionCount({ address: keys.gasWallet.address, blockTag: 'latest' });
  const gasBooked = (paymentId: string) => t.db.selectFrom('chain_movements').selectAll().where('payment_id', '=', paymentId).where('kind', '=', 'x402_gas').execute();
  const refusalNotices = (paymentId: string) => t.db.selectFrom('processor.notices_out').select('id').where('kind', '=', 'x402.refused')
    .where(({ ref }) => ref('body', '->>').key('payment_id' as never), '=', paymentId as never).execute();

  it('carried first by a copy of its call, ours reverting in the same block: paid by that transfer, no refusal told, our gas in the books', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '3.00', currency: 'USD', description: 'Tea for a front-runner' });
    const offer = await offerOf(link.id);
    const copier = await polygonChain.chain.newAccount(10n ** 17n);
    const [signed, broadcast] = [holdAt('signed'), holdAt('broadcast')];
    const { answered, ours, theirs } = await withoutMiner(async () => {
      const answered = fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': await signedHeader(offer, buyer) } });
      // Signed, not broadcast yet: someone who saw the call sends it first; ours joins the pool after it, and one block takes both.
      const ours = await signed.reached;
      const theirs = await polygonChain.chain.wallet(copier).sendTransaction({ to: fiat.address, data: parseTransaction(ours.raw as Hex).data!, gas: 200_000n });
      signed.release();
      await broadcast.reached;
      await polygonChain.chain.mine(1);
      broadcast.release();
      return { answered, ours, theirs };
    });
    const receipts = await Promise.all([theirs, ours.tx_hash as Hex].map((hash) => polygonChain.chain.client.getTransactionReceipt({ hash })));
    expect(receipts.map((receipt) => [receipt.blockNumber, receipt.status])).toEqual([[receipts[0]!.blockNumber, 'success'], [receipts[0]!.blockNumber, 'reverted']]);
    const answer = await answered;
    expect(answer.status, await why(answer)).toBe(200);
    expect(decodeHeader(answer.headers.get('payment-response'))).toMatchObject({ success: true, transaction: theirs.toLowerCase() });
    const row = await paymentRow(link.id);
    expect(await transfers(buyer.address, row.deposit_address as Address)).toHaveLength(1);
    await vi.waitFor(async () => expect(await submissionOf(link.id)).toMatchObject({ state: 'final', carried_by: theirs.toLowerCase(), tx_hash: ours.tx_hash, reason: null }), { timeout: 10_000, interval: 100 });
    expect(await refusalNotices(link.id)).toEqual([]);
    const gas = receipts[1]!.gasUsed * receipts[1]!.effectiveGasPrice;
    await vi.waitFor(async () => expect(await gasBooked(link.id)).toMatchObject([{ tx_hash: ours.tx_hash, value: String(gas) }]), { timeout: 10_000, interval: 100 });
    await settled(link.id);
  });

  it('ours reverted (the payer emptied the wallet first), the authorization unused: refused only once a final block shows it expired', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '2.00', currency: 'USD', description: 'Tea never paid for' });
    const offer = await offerOf(link.id);
    const payer = await polygonChain.chain.newAccount(10n ** 17n);
    await fiat.mint(payer.address, usdc(2));
    const elsewhere = (await polygonChain.chain.newAccount()).address;
    const validBefore = Math.floor(Date.now() / 1000) + 8;
    const header = await signedHeader(offer, payer, { validBefore: String(validBefore) });
    const hold = holdAt('signed');
    const answered = fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': header } });
    const ours = await hold.reached;
    await fiat.transfer(payer, elsewhere, usdc(2));
    hold.release();
    await vi.waitFor(async () => expect(await submissionOf(link.id)).toMatchObject({ state: 'closing' }), { timeout: 10_000, interval: 50 });
    const receipt = await polygonChain.chain.client.getTransactionReceipt({ hash: ours.tx_hash as Hex });
    expect(receipt.status).toBe('reverted');
    const claimState = async () => (await t.db.selectFrom('x402_authorizations').select('state').where('payment_id', '=', link.id).executeTakeFirstOrThrow()).state;
    await withoutMiner(async () => {
      // The latest block past the window, the final ones not yet: nothing is told.
      await polygonChain.chain.node.setNextBlockTimestamp({ timestamp: BigInt(validBefore) });
      await polygonChain.chain.mine(1);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await claimState()).not.toBe('refused');
      expect(await submissionOf(link.id)).toMatchObject({ state: 'closing', reason: null });
      await polygonChain.chain.mine(DEPTH);
    });
    const answer = await answered;
    expect(answer.status, await why(answer)).toBe(402);
    expect(decodeHeader(answer.headers.get('payment-response')).errorReason).toBe('invalid_exact_evm_transaction_failed');
    const told = await t.db.selectFrom('x402_authorizations').select(['state', 'tx_hash']).where('payment_id', '=', link.id).executeTakeFirstOrThrow();
    expect(told).toEqual({ state: 'refused', tx_hash: ours.tx_hash });
    expect(await fiat.authorizationState(payer.address, decodeHeader(header).payload.authorization.nonce)).toBe(false);
    await vi.waitFor(async () => expect(await submissionOf(link.id)).toMatchObject({ state: 'failed', reason: 'invalid_exact_evm_transaction_failed', carried_by: null }), { timeout: 10_000, interval: 100 });
    await vi.waitFor(async () => expect(await gasBooked(link.id)).toMatchObject([{ tx_hash: ours.tx_hash, value: String(receipt.gasUsed * receipt.effectiveGasPrice) }]), { timeout: 10_000, interval: 100 });
    expect((await paymentRow(link.id)).status).toBe('open');
  });

  it('canceled by the payer while ours waited: refused with the reason, its nonce spent by a 0-value transfer, and the gas wallet goes on', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '4.00', currency: 'USD', description: 'Tea never sent' });
    const offer = await offerOf(link.id);
    const header = await signedHeader(offer, buyer);
    const { nonce } = decodeHeader(header).payload.authorization;
    const before = await fiat.balanceOf(buyer.address);
    const hold = holdAt('signed');
    const { answer, ours } = await withoutMiner(async () => {
      const answer = fetch(x402Url(link.id), { headers: { 'PAYMENT-SIGNATURE': header } });
      // Signed, not broadcast yet: the payer cancels the authorization, and that is mined; then ours goes out, into the pool.
      const ours = await hold.reached;
      const accepted = offer.accepts[0];
      const signature = await buyer.signTypedData({
        domain: { ...accepted.extra, chainId: 137, verifyingContract: accepted.asset },
        types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
        primaryType: 'CancelAuthorization', message: { authorizer: buyer.address, nonce },
      });
      const { v, r, s } = parseSignature(signature);
      const canceller = await polygonChain.chain.newAccount(10n ** 17n);
      await polygonChain.chain.wallet(canceller).writeContract({ address: fiat.address, abi: eip3009, functionName: 'cancelAuthorization', args: [buyer.address, nonce, Number(v), r, s] });
      await polygonChain.chain.mine(1);
      hold.release();
      // Found canceled, ours (never to be mined) is replaced in the pool by a 0-value transfer under its nonce.
      await vi.waitFor(async () => expect(await submissionOf(link.id)).toMatchObject({ state: 'closing', replaced_hashes: [ours.tx_hash] }), { timeout: 10_000, interval: 50 });
      return { answer, ours };
    }).then(async (sent) => ({ ...sent, answer: await sent.answer }));
    expect(answer.status, await why(answer)).toBe(402);
    expect(decodeHeader(answer.headers.get('payment-response')).errorReason).toBe('invalid_exact_evm_nonce_already_used');
    expect(await fiat.balanceOf(buyer.address)).toBe(before);
    // The nonce the authorization's transaction took is spent, by a 0-value transfer to the gas wallet itself.
    const closed = await vi.waitFor(async () => {
      const row = await submissionOf(link.id);
      expect(row).toMatchObject({ state: 'failed', reason: 'invalid_exact_evm_nonce_already_used', replaced_hashes: [ours.tx_hash] });
      return row!;
    }, { timeout: 10_000, interval: 100 });
    const filler = await polygonChain.chain.client.getTransaction({ hash: closed.tx_hash as Hex });
    expect({ from: filler.from.toLowerCase(), to: filler.to?.toLowerCase(), value: filler.value, nonce: filler.nonce }).toEqual({ from: ours.sender, to: ours.sender, value: 0n, nonce: Number(ours.nonce) });
    expect(await minedNonce()).toBeGreaterThan(Number(ours.nonce));
    const receipt = await polygonChain.chain.client.getTransactionReceipt({ hash: closed.tx_hash as Hex });
    await vi.waitFor(async () => expect(await gasBooked(link.id)).toMatchObject([{ tx_hash: closed.tx_hash, value: String(receipt.gasUsed * receipt.effectiveGasPrice) }]), { timeout: 10_000, interval: 100 });
    // The payment still takes a new authorization, and the gas wallet's next transactions are mined.
    await paidByClient(link.id);
  });
});
