import jsQR from 'jsqr';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { PNG } from 'pngjs';
import type { Address, PrivateKeyAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeFunctionData, parseAbi } from 'viem';
import { DAY } from '../../src/core/clock.ts';
import { acceptHeldPayment } from '../../src/resources/payments/accept.ts';
import { askForRemainder } from '../../src/resources/payments/remainder.ts';
import { runCli } from '../support/cli.ts';
import { multicall3Abi } from '../support/chain-contracts.ts';
import { asOperatorOn } from '../support/operator.ts';
import { toChecksumAddress } from '../../src/core/deposit-addresses.ts';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { startForwarding, type Forwarding } from '../../src/processor/forwarding/forwarding.ts';
import { ProcessorKeys } from '../../src/processor/chain/keys.ts';
import { startProcessor, type Processor } from '../../src/processor/processor.ts';
import { eventsOf, typesOf } from '../flows/support.ts';
import type { FiatToken } from '../support/chain-fiat-token.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc, type PolygonTestChain } from '../support/processor-chain.ts';

// The whole Live path, as a buyer and a merchant meet it, on a real EDR chain posing as Polygon:
// a Live payment link → the payer page in Chromium with the deposit address and a QR code of the
// watched token → the buyer's wallet (or a card provider's) sends USDC → final → paid → the
// processor forwards net and fee in one transaction → the merchant's and the fee wallet's
// on-chain balances → payment.updated with txidOut and merchantReceived. The USDC configured is
// Circle's own FiatTokenV2_2 behind its proxy; the test token is a second polygon_usdc contract the
// processor watches, so the first journey runs with each. Then the cases where what arrives is not
// what was asked (with the test token): underpaid, overpaid, twice, late, the other token.

const DEPTH = 2;
const FEE_BPS = 150n;
const MOONPAY = { MOONPAY_API_KEY: 'pk_live_kestrel0123456789', MOONPAY_SECRET_KEY: 'sk_live_moonpay_secret_0123456789' };
const rpc = { timeoutMs: 1_500, retryDelayMs: 10, rounds: 2 };

let t: TestApp;
let polygonChain: PolygonTestChain;
let polygon: NetworkConfig;
let fiat: FiatToken;
let forwarding: Forwarding;
let processor: Processor;
let browser: Browser;
let context: BrowserContext;
let key: string;
let payout: Address;
let feeWallet: Address;
const logs: string[] = [];

const split = (value: bigint) => ({ net: value - value * FEE_BPS / 10_000n, fee: value * FEE_BPS / 10_000n });
const balance = (token: 'usdc' | 'usdt', account: Address) => polygonChain.tokens.balanceOf(token, account);
const paymentRow = (id: string) => t.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Polls the processor, mining a block between polls, until `done` holds. */
async function runUntil(done: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 25; i += 1) {
    await processor.reportStatus();
    await processor.poll();
    if (await done()) return;
    await polygonChain.chain.mine(1);
  }
  throw new Error(`${what}: not reached. Log:\n${logs.slice(-20).join('\n')}`);
}
/** What the books say reached the payout wallet for a payment, in base units. */
const bookedToPayout = async (id: string) => (await t.db.selectFrom('chain_movements').select('value').where('payment_id', '=', id).where('kind', '=', 'forward_net').execute())
  .reduce((sum, row) => sum + BigInt(row.value), 0n);
const forwardsDone = async (address: string) => {
  const forwards = await t.db.selectFrom('processor.forwards').select('state').where('deposit_address', '=', address.toLowerCase()).execute();
  return forwards.length > 0 && forwards.every((forward) => forward.state === 'final');
};

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await t.request(method, path, { key, body });
  expect([200, 201], `${method} ${path}: ${JSON.stringify(response.body)}`).toContain(response.status);
  return response.body;
}

/** A started Live session, through the API: its id and deposit address (lowercase). */
async function started(amount: string): Promise<{ id: string; address: Address }> {
  await processor.reportStatus();
  const session = await api('POST', '/v1/checkout_sessions', { amount, currency: 'USD' });
  const begun = await api('POST', `/v1/checkout_sessions/${session.id}/start`, { email: 'ann@buyer.example' });
  const address = String(begun.deposit_address).toLowerCase() as Address;
  await expect.poll(() => processor.detection.watched.has(address), { timeout: 5_000, interval: 20 }).toBe(true);
  return { id: session.id as string, address };
}

function decodeQr(png: Buffer): string | null {
  const { data, width, height } = PNG.sync.read(png);
  return jsQR.default(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height)?.data ?? null;
}

beforeAll(async () => {
  polygonChain = await startPolygonChain({ depth: DEPTH, realUsdc: true });
  const { chain, tokens } = polygonChain;
  fiat = polygonChain.fiat!;
  // The service is configured with the chain's tokens, as the processor is: its QR codes name them.
  t = await startTestApp({
    RATE_LIMITS: 'off', ...MOONPAY,
    POLYGON_RPC_URL: polygonChain.proxy.url, POLYGON_CONFIRMATIONS: String(DEPTH),
    POLYGON_USDC: fiat.address, POLYGON_USDT: tokens.address.usdt,
  }, { clockStart: Date.now(), realOrigin: true });
  polygon = { ...polygonChain.polygon, tokens: [{ coin: 'polygon_usdc', address: fiat.address.toLowerCase() as Address }, ...polygonChain.polygon.tokens.slice(1), polygonChain.polygon.tokens[0]!] };
  // The test seed: the xpub the harness's service derives deposit addresses from.
  const keys = new ProcessorKeys(Buffer.alloc(32, 7));
  await chain.fund(keys.gasWallet.address, 10n ** 18n);
  feeWallet = (await chain.newAccount()).address.toLowerCase() as Address;
  payout = (await chain.newAccount()).address.toLowerCase() as Address;
  forwarding = await startForwarding({ db: t.db, clock: t.clock, networks: [polygon], keys, feeWallet }, { rpc, log: (line) => logs.push(line) });
  processor = await startProcessor({
    db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon],
    sender: { url: `${t.url}/processor/notices`, secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
    steps: [forwarding.forwardNetwork],
  }, { manual: true, rpc, log: (line) => logs.push(line) });
  await processor.poll();
  key = (await (await t.business({ name: 'Kestrel Coffee Roasters', payoutWallet: payout, feeBps: Number(FEE_BPS) })).key({ mode: 'live' })).secret;
  browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Nothing outside the service is reached: a provider's page is answered here.
  await context.route((url) => !url.href.startsWith(t.config.baseUrl), (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Provider</title><h1>Provider page</h1>' }));
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await processor?.stop();
  await forwarding?.stop();
  await polygonChain?.stop();
  await t?.close();
});

describe('a Live payment link, paid from the buyer\'s wallet', () => {
  it.each(['Circle\'s FiatTokenV2_2', 'the test token'])('shows the deposit address and a QR code of the watched token; the transfer (%s) turns the page paid, and the merchant receives the net on chain', async (variant) => {
    const real = variant !== 'the test token';
    const usdcBalance = (account: Address) => (real ? fiat.balanceOf(account) : balance('usdc', account));
    await processor.reportStatus();
    const link = await api('POST', '/v1/payment_links', { amount: '30.00', currency: 'USD', description: 'Ethiopia Guji, 1 kg' });
    const page = await context.newPage();
    await page.goto(link.url as string);
    await page.getByLabel('Email').fill('priya@harbourcafe.example');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'How would you like to pay?' }).waitFor();

    // What the buyer reads off the page is what they pay with.
    const shownAddress = (await page.locator('#wallet-address').textContent())!;
    const shownAmount = (await page.locator('#wallet-amount').textContent())!;
    const { deposit_address: depositAddress } = await paymentRow(link.id);
    expect(shownAddress).toBe(toChecksumAddress(depositAddress!.slice(2)));
    expect(shownAmount).toBe('30.000000');
    const qr = page.getByRole('img', { name: /QR code: a payment request for USDC on Polygon/ });
    expect(decodeQr(await qr.screenshot())).toBe(`ethereum:${toChecksumAddress(fiat.address.slice(2))}@137/transfer?address=${shownAddress}&uint256=30000000`);

    const before = { payout: await usdcBalance(payout), fee: await usdcBalance(feeWallet) };
    const buyer = polygonChain.chain.accounts.buyer;
    await (real ? fiat.transfer(buyer, shownAddress as Address, usdc(30)) : polygonChain.tokens.transfer('usdc', buyer, shownAddress as Address, usdc(30)));
    await runUntil(async () => (await paymentRow(link.id)).status === 'paid', 'paid');
    // The page follows its payment and shows it paid by itself (a reload of ours would race its own).
    await page.getByRole('heading', { name: 'Thank you: paid' }).waitFor({ timeout: 30_000 });

    await runUntil(async () => (await paymentRow(link.id)).txid_out !== null, 'settled');
    const { net, fee } = split(usdc(30));
    expect(await usdcBalance(payout) - before.payout).toBe(net);
    expect(await usdcBalance(feeWallet) - before.fee).toBe(fee);
    expect(await usdcBalance(shownAddress as Address)).toBe(0n);
    expect(await polygonChain.chain.client.getBalance({ address: shownAddress as Address }), 'the deposit address never held gas').toBe(0n);

    const settled = await api('GET', `/v1/payments/${link.id}`);
    expect(settled).toMatchObject({ status: 'paid', value_coin: '30.000000', coin: 'polygon_usdc', merchant_received: '29.550000' });
    const forward = await t.db.selectFrom('processor.forwards').selectAll().where('deposit_address', '=', depositAddress!.toLowerCase()).executeTakeFirstOrThrow();
    expect(settled.txid_out).toBe(forward.txid_out);
    const receipt = await polygonChain.chain.client.getTransactionReceipt({ hash: settled.txid_out });
    expect(receipt.status, 'net and fee in one transaction').toBe('success');
    expect(await typesOf(t, link.id)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    const updated = (await eventsOf(t, link.id)).at(-1);
    expect(updated?.data.payment).toMatchObject({ txidOut: settled.txid_out, merchantReceived: '29.550000', payoutWallet: payout });
    await page.close();
  });
});

describe('a card provider delivering the USDC it sold', () => {
  it('is the same deposit: the page chose MoonPay, its wallet sends to the deposit address, and the payment is paid and settled', async () => {
    await processor.reportStatus();
    const link = await api('POST', '/v1/payment_links', { amount: '25.00', currency: 'USD', description: 'Tea' });
    const page = await context.newPage();
    await page.goto(link.url as string);
    await page.getByLabel('Email').fill('sam@example.org');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('button', { name: /Pay with MoonPay/ }).click();
    await page.getByRole('heading', { name: 'Provider page' }).waitFor();
    const { deposit_address: depositAddress, status } = await paymentRow(link.id);
    expect(status).toBe('pending');
    // The provider's own hot wallet, not the buyer's.
    const provider: PrivateKeyAccount = await polygonChain.chain.newAccount(10n ** 17n);
    await polygonChain.tokens.mint('usdc', provider.address, usdc(25));
    await polygonChain.tokens.transfer('usdc', provider, depositAddress as Address, usdc(25));
    await runUntil(async () => (await paymentRow(link.id)).txid_out !== null, 'paid and settled');
    // The chain does not say who sent the money: the notice names no provider, and the service records the arrival as it came.
    expect(await api('GET', `/v1/payments/${link.id}`)).toMatchObject({ status: 'paid', value_coin: '25.000000', merchant_received: '24.625000' });
    await page.goto(link.url as string);
    await page.getByRole('heading', { name: 'Thank you: paid' }).waitFor();
    await page.close();
  });
});

describe('when what arrives is not what was asked', () => {
  it('underpaid: held, and the money still reaches the merchant', async () => {
    const { id, address } = await started('30.00');
    const before = await balance('usdc', payout);
    await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, address, usdc(20));
    await runUntil(() => forwardsDone(address), 'forwarded');
    const held = await api('GET', `/v1/payments/${id}`);
    expect(held).toMatchObject({ status: 'held', value_coin: '20.000000' });
    expect(held.hold_reason).toContain('Underpaid');
    expect(await balance('usdc', payout) - before).toBe(split(usdc(20)).net);
    // The books hold what the chain did, though spec 3 leaves a held payment's merchant_received empty.
    expect(held.merchant_received).toBeNull();
    expect(await bookedToPayout(id)).toBe(split(usdc(20)).net);
  });

  it('overpaid: paid, and the whole arrival is forwarded', async () => {
    const { id, address } = await started('30.00');
    const before = await balance('usdc', payout);
    await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, address, usdc(40));
    await runUntil(async () => (await paymentRow(id)).txid_out !== null, 'settled');
    expect(await api('GET', `/v1/payments/${id}`)).toMatchObject({ status: 'paid', value_coin: '40.000000', merchant_received: '39.400000' });
    expect(await balance('usdc', payout) - before).toBe(split(usdc(40)).net);
  });

  it('two deposits to one address: the payment is paid once, and both are forwarded', async () => {
    const { id, address } = await started('10.00');
    const before = await balance('usdc', payout);
    await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, address, usdc(10));
    await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, address, usdc(5));
    await runUntil(async () => (await t.db.selectFrom('processor.forwards').select('state').where('deposit_address', '=', address).execute())
      .filter((forward) => forward.state === 'final').length === 2, 'both forwarded');
    expect(await balance('usdc', payout) - before).toBe(split(usdc(10)).net + split(usdc(5)).net);
    const payment = await api('GET', `/v1/payments/${id}`);
    expect(payment).toMatchObject({ status: 'paid', value_coin: '10.000000' });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    // The second deposit is in the books as an extra arrival for the merchant to look at, and so is its forward.
    const notices = await t.db.selectFrom('processor_notices').select(['outcome']).where('payment_id', '=', id).where('kind', '=', 'deposit.confirmed').execute();
    expect(notices.map((notice) => notice.outcome)).toEqual(['applied', 'applied']);
    const deposits = await t.db.selectFrom('chain_movements').select(['disposition', 'needs_review', 'value']).where('payment_id', '=', id).where('kind', '=', 'deposit').orderBy('block_number').orderBy('log_index').execute();
    expect(deposits).toEqual([{ disposition: 'paid', needs_review: false, value: String(usdc(10)) }, { disposition: 'extra', needs_review: true, value: String(usdc(5)) }]);
    expect(await bookedToPayout(id)).toBe(await balance('usdc', payout) - before);
  });

  it('late, after the payment expired: still found, paid, and forwarded', async () => {
    const { id, address } = await started('12.00');
    const { expires_at: expiresAt } = await paymentRow(id);
    await t.jump(expiresAt.getTime() - t.clock.now().getTime() + DAY);
    expect((await api('GET', `/v1/payments/${id}`)).status).toBe('expired');
    await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, address, usdc(12));
    await runUntil(async () => (await paymentRow(id)).txid_out !== null, 'settled');
    expect(await api('GET', `/v1/payments/${id}`)).toMatchObject({ status: 'paid', value_coin: '12.000000' });
  });

  it('the other token (USDT when USDC was shown): reported as it is, and forwarded', async () => {
    const { id, address } = await started('15.00');
    const before = await balance('usdt', payout);
    await polygonChain.tokens.transfer('usdt', polygonChain.chain.accounts.buyer, address, usdc(15));
    await runUntil(() => forwardsDone(address), 'forwarded');
    const payment = await api('GET', `/v1/payments/${id}`);
    expect(payment.coin).toBe('polygon_usdt');
    expect(await balance('usdt', payout) - before).toBe(split(usdc(15)).net);
  });

  it('a zero-value transfer to the address is not a deposit: nothing is told or forwarded', async () => {
    const { id, address } = await started('11.00');
    await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, address, 0n);
    await polygonChain.chain.mine(DEPTH + 1);
    await processor.poll();
    expect((await paymentRow(id)).status).toBe('open');
    expect(await t.db.selectFrom('processor.transfers').select('tx_hash').where('to_address', '=', address).execute()).toEqual([]);
  });
});

describe('the books agree with the chain (issue 30)', () => {
  const erc20 = parseAbi(['function approve(address spender, uint256 value) returns (bool)', 'function transferFrom(address from, address to, uint256 value) returns (bool)']);
  const sumOf = (rows: Array<{ value: string }>) => rows.reduce((sum, row) => sum + BigInt(row.value), 0n);
  const booked = async (ids: string[], kind: 'forward_net' | 'forward_fee') =>
    sumOf(await t.db.selectFrom('chain_movements').select('value').where('payment_id', 'in', ids).where('kind', '=', kind).execute());

  it('one transaction paying two deposit addresses pays both payments', async () => {
    const first = await started('10.00');
    const second = await started('12.00');
    const { chain, tokens } = polygonChain;
    const buyer = chain.accounts.buyer;
    const batch = polygon.multicall as Address;
    await chain.confirm(await chain.wallet(buyer).writeContract({ address: tokens.address.usdc, abi: erc20, functionName: 'approve', args: [batch, usdc(22)] }));
    // One transaction, two Transfer logs, as an exchange's batched withdrawal.
    const receipt = await chain.confirm(await chain.wallet(buyer).writeContract({
      address: batch, abi: multicall3Abi, functionName: 'aggregate3', args: [[first, second].map(({ address }, index) => ({
        target: tokens.address.usdc, allowFailure: false,
        callData: encodeFunctionData({ abi: erc20, functionName: 'transferFrom', args: [buyer.address, address, usdc(index === 0 ? 10 : 12)] }),
      }))],
    }));
    await runUntil(async () => (await forwardsDone(first.address)) && (await forwardsDone(second.address)), 'both paid and forwarded');
    for (const { id } of [first, second]) {
      const payment = await api('GET', `/v1/payments/${id}`);
      expect(payment, id).toMatchObject({ status: 'paid', txid_in: receipt.transactionHash.toLowerCase() });
      const transfers = await api('GET', `/v1/payments/${id}/transfers`);
      expect(transfers.data.filter((transfer: any) => transfer.kind === 'deposit')).toEqual([
        expect.objectContaining({ txid: receipt.transactionHash.toLowerCase(), disposition: 'paid', from: buyer.address.toLowerCase() }),
      ]);
    }
    const logs = (await api('GET', `/v1/payments/${first.id}/transfers`)).data[0].log_index;
    expect(logs).not.toBe((await api('GET', `/v1/payments/${second.id}/transfers`)).data[0].log_index);
  });

  it('a held underpayment, its rest, an extra transfer and an accepted hold: the books, the CSV and the orders equal the wallets to the unit', async () => {
    const [payoutBefore, feeBefore] = [await balance('usdc', payout), await balance('usdc', feeWallet)];
    const buyer = polygonChain.chain.accounts.buyer;
    // Held: 20 of 30 arrives; the merchant asks for the rest, which the buyer pays; then 2 more come to the paid rest.
    const held = await started('30.00');
    await polygonChain.tokens.transfer('usdc', buyer, held.address, usdc(20));
    await runUntil(() => forwardsDone(held.address), 'the held money forwarded');
    const { remainder } = await askForRemainder.run(await asOperatorOn(t.context, 'payment', held.id), { id: held.id });
    const rest = await api('POST', `/v1/checkout_sessions/${remainder.id}/start`, { email: 'ann@buyer.example' });
    const restAddress = String(rest.deposit_address).toLowerCase() as Address;
    await expect.poll(() => processor.detection.watched.has(restAddress), { timeout: 5_000, interval: 20 }).toBe(true);
    await polygonChain.tokens.transfer('usdc', buyer, restAddress, usdc(10));
    await runUntil(async () => (await paymentRow(remainder.id)).txid_out !== null, 'the rest paid and settled');
    await polygonChain.tokens.transfer('usdc', buyer, restAddress, usdc(2));
    // Accepted: 25 of 30 arrives (held), and the merchant accepts it as paid.
    const accepted = await started('30.00');
    await polygonChain.tokens.transfer('usdc', buyer, accepted.address, usdc(25));
    await runUntil(async () => (await paymentRow(accepted.id)).status === 'held', 'held');
    await acceptHeldPayment.run(await asOperatorOn(t.context, 'payment', accepted.id), { id: accepted.id });
    await runUntil(async () => (await forwardsDone(restAddress)) && (await t.db.selectFrom('processor.forwards').select('state').where('deposit_address', '=', restAddress).execute()).length === 2
      && (await forwardsDone(accepted.address)), 'everything forwarded');
    await expect.poll(async () => (await t.db.selectFrom('chain_movements').select('id').where('payment_id', 'in', [held.id, remainder.id, accepted.id]).execute()).length,
      { timeout: 10_000 }).toBe(12);

    const payoutGot = await balance('usdc', payout) - payoutBefore;
    const feeGot = await balance('usdc', feeWallet) - feeBefore;
    expect(payoutGot).toBe(split(usdc(20)).net + split(usdc(10)).net + split(usdc(2)).net + split(usdc(25)).net);
    const ids = [held.id, remainder.id, accepted.id];
    expect(await booked(ids, 'forward_net')).toBe(payoutGot);
    expect(await booked(ids, 'forward_fee')).toBe(feeGot);
    // Spec 3 keeps merchant_received empty for a hold and an accepted hold; the orders' received say what reached the wallet.
    expect(await api('GET', `/v1/payments/${held.id}`)).toMatchObject({ status: 'held', merchant_received: null });
    expect(await api('GET', `/v1/payments/${accepted.id}`)).toMatchObject({ status: 'paid', merchant_received: null });
    const sixDecimals = (units: bigint) => `${units / 1_000_000n}.${String(units % 1_000_000n).padStart(6, '0')}`;
    const heldOrder = await api('GET', `/v1/orders/${(await paymentRow(held.id)).order_id}`);
    expect(heldOrder).toMatchObject({ status: 'paid', received: sixDecimals(split(usdc(20)).net + split(usdc(10)).net + split(usdc(2)).net) });
    expect(await api('GET', `/v1/orders/${(await paymentRow(accepted.id)).order_id}`)).toMatchObject({ received: sixDecimals(split(usdc(25)).net) });
    const extra = (await api('GET', `/v1/payments/${remainder.id}/transfers`)).data.filter((transfer: any) => transfer.kind === 'deposit');
    expect(extra.map((transfer: any) => [transfer.disposition, transfer.amount, transfer.needs_review])).toEqual([['paid', '10.000000', false], ['extra', '2.000000', true]]);

    // The accountant's CSV, exported by the operator's CLI, adds up the same.
    const folder = await mkdtemp(path.join(tmpdir(), 'books-'));
    const day = (offset: number) => new Date(t.clock.now().getTime() + offset * DAY).toISOString().slice(0, 10);
    const out = path.join(folder, 'books.csv');
    const business = (await paymentRow(held.id)).business_id;
    const cli = await runCli(t, ['books', 'export', '--business', business, '--from', day(-400 + 40), '--to', day(1), '--out', out, '--json'], { DATA_DIR: folder });
    expect(cli.code, cli.stderr).toBe(0);
    const [header, ...lines] = (await readFile(out, 'utf8')).trimEnd().split('\r\n');
    const columns = header!.split(',');
    const rows = lines.map((line) => Object.fromEntries(line.split(',').map((cell, index) => [columns[index], cell]))).filter((row) => ids.includes(row.payment_id!));
    expect(rows).toHaveLength(4);
    const units = (text: string) => BigInt(text.replace('.', ''));
    expect(rows.reduce((sum, row) => sum + units(row.net!), 0n)).toBe(payoutGot);
    expect(rows.reduce((sum, row) => sum + units(row.fee!), 0n)).toBe(feeGot);
    expect(rows.find((row) => row.disposition === 'extra')).toMatchObject({ payment_id: remainder.id, needs_review: 'true', amount: '2.000000' });
  }, 120_000);
});
