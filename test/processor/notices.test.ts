import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../../src/core/clock.ts';
import { acceptHeldPayment } from '../../src/resources/payments/accept.ts';
import { booksCsv } from '../../src/resources/ledger/export.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { asOperatorOn } from '../support/operator.ts';
import { eventsOf, typesOf } from '../flows/support.ts';
import { freshRates } from '../support/fx-rates.ts';
import { LIVE_WALLET, startTestApp, TEST_DEPOSIT_WALLET, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { expectError } from '../support/api.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// The payment processor's signed notices about Live money (POST /processor/notices): the arrival
// checks of spec 3 (dollar coin, 90 % of the USD value locked at start, payout wallet, a
// transaction never used before), the events of spec 6.2, and the signature of spec 6.4, which
// this file computes with its own HMAC code rather than the service's signer.

let t: TestApp;
let live: string;
let test: string;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  await freshRates(t);
  const biz = await t.business();
  live = (await biz.key({ mode: 'live' })).secret;
  test = (await biz.key({ mode: 'test' })).secret;
});
afterAll(async () => t?.close());

// ---- signing and sending, independent of src/webhooks/signature.ts ----

const hmacHex = (secret: string, timestamp: number, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);
const header = (body: string, timestamp = nowSeconds(), secret = TEST_PROCESSOR_SECRET) => `t=${timestamp},v1=${hmacHex(secret, timestamp, body)}`;

interface Sent {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs `raw` as the notice body, with `signature` as the Processor-Signature header (none when null). */
async function postRaw(raw: string, signature: string | null): Promise<Sent> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['processor-signature'] = signature;
  const response = await fetch(`${t.url}/processor/notices`, { method: 'POST', headers, body: raw });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Signs `notice` correctly with the processor secret and the app's clock, and POSTs it. */
async function send(notice: Record<string, unknown>): Promise<Sent> {
  const raw = JSON.stringify(notice);
  return postRaw(raw, header(raw));
}

/** Sends a notice that the test expects the service to take (200), and returns its answer. */
async function deliver(notice: Record<string, unknown>): Promise<any> {
  const sent = await send(notice);
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return sent.body;
}

const noticeId = () => `ntc_${randomBytes(8).toString('hex')}`;
const txid = () => `0x${randomBytes(32).toString('hex')}`;

function deposit(address: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: noticeId(), type: 'deposit.confirmed', deposit_address: address,
    coin: 'polygon_usdc', network: 'polygon', amount: '40.000000', txid: txid(), forwarded_to: LIVE_WALLET, ...fields,
  };
}

function settlement(address: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: noticeId(), type: 'settlement.completed', deposit_address: address, txid_out: txid(), merchant_received: '39.600000', ...fields };
}

// ---- the API side ----

async function api(method: string, path: string, body?: unknown, key = live): Promise<any> {
  const response = await t.request(method, path, { key, body });
  expect([200, 201], `${method} ${path}: ${JSON.stringify(response.body)}`).toContain(response.status);
  return response.body;
}

/** A started Live session: its id and deposit address. */
async function started(amount = '40.00', currency = 'USD'): Promise<{ id: string; address: string }> {
  const session = await api('POST', '/v1/checkout_sessions', { amount, currency });
  // A Live start needs a network a healthy processor watches, reported within the freshness bound.
  await reportProcessorStatus(t);
  const start = await api('POST', `/v1/checkout_sessions/${session.id}/start`, { email: 'ann@buyer.example' });
  expect(start.deposit_address, 'a started Live session has a deposit address').toMatch(/^0x[0-9a-fA-F]{40}$/);
  return { id: session.id, address: start.deposit_address };
}

const payment = (id: string) => api('GET', `/v1/payments/${id}`);

async function noticeRows(id: string) {
  return t.db.selectFrom('processor_notices').selectAll().where('notice_id', '=', id).orderBy('id').execute();
}

// An EVM address computed here from the test wallet's xpub (BIP-32 child, keccak of the public key).
function walletAddress(index: number): string {
  const child = TEST_DEPOSIT_WALLET.deriveChild(index);
  const point = secp256k1.Point.fromBytes(child.publicKey as Uint8Array).toBytes(false);
  return `0x${Buffer.from(keccak_256(point.subarray(1)).subarray(12)).toString('hex')}`;
}

describe('deposit and settlement', () => {
  it('a started Live session gets a deposit address of the processor wallet, shown in payment.started', async () => {
    const { id, address } = await started();
    const known = Array.from({ length: 60 }, (_, i) => walletAddress(i));
    expect(known).toContain(address.toLowerCase());
    const [event] = await eventsOf(t, id);
    expect(event).toMatchObject({ type: 'payment.started', livemode: true });
    expect(event?.data.payment).toMatchObject({ status: 'open', mode: 'live', depositAddress: address, payoutWallet: LIVE_WALLET });
  });

  it('a full deposit forwarded to the payout wallet pays: started then paid; a later settlement sends payment.updated', async () => {
    const { id, address } = await started();
    const notice = deposit(address);
    const answer = await deliver(notice);
    expect(answer).toEqual({ received: true, outcome: 'applied', reason: null, payment_id: id });

    const paid = await payment(id);
    expect(paid).toMatchObject({
      status: 'paid', livemode: true, value_coin: '40.000000', coin: 'polygon_usdc', network: 'polygon', method: 'crypto',
      txid_in: notice.txid, txid_out: null, merchant_received: null, hold_reason: null, paid_at: nowSeconds(),
    });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
    const [, paidEvent] = await eventsOf(t, id);
    expect(paidEvent?.livemode).toBe(true);
    expect(paidEvent?.data.payment).toMatchObject({
      status: 'paid', valueCoin: '40.000000', coin: 'polygon_usdc', txidIn: notice.txid, txidOut: null, merchantReceived: null,
      depositAddress: address, paidAt: t.clock.now().getTime(),
    });
    expect(paidEvent?.data.order).toMatchObject({ status: 'paid', received: null });

    await t.jump(10 * MINUTE);
    const settle = settlement(address, { payment_id: id });
    expect(await deliver(settle)).toMatchObject({ outcome: 'applied', payment_id: id });
    const settled = await payment(id);
    expect(settled).toMatchObject({ status: 'paid', txid_out: settle.txid_out, merchant_received: '39.600000', txid_in: notice.txid });
    expect(settled.paid_at).toBe(paid.paid_at);
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    const updated = (await eventsOf(t, id))[2];
    expect(updated?.data.payment).toMatchObject({
      status: 'paid', txidIn: notice.txid, valueCoin: '40.000000', coin: 'polygon_usdc', txidOut: settle.txid_out, merchantReceived: '39.600000',
    });
    expect(updated?.data.order).toMatchObject({ status: 'paid', received: '39.600000' });
  });

  it('a deposit that already carries the forwarding details pays with them; no payment.updated is needed', async () => {
    const { id, address } = await started();
    const notice = deposit(address, { payment_id: id, txid_out: txid(), merchant_received: '39.600000' });
    expect(await deliver(notice)).toMatchObject({ outcome: 'applied', payment_id: id });
    expect(await payment(id)).toMatchObject({ status: 'paid', txid_in: notice.txid, txid_out: notice.txid_out, merchant_received: '39.600000' });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
    const [, paidEvent] = await eventsOf(t, id);
    expect(paidEvent?.data.payment).toMatchObject({ status: 'paid', txidOut: notice.txid_out, merchantReceived: '39.600000' });
    // The processor's later settlement notice changes nothing.
    const again = await deliver(settlement(address));
    expect(again.outcome).not.toBe('applied');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
    expect((await payment(id)).txid_out).toBe(notice.txid_out);
  });

  it('amounts with fewer decimals are kept with six (spec 2.6)', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { amount: '40' }));
    await deliver(settlement(address, { merchant_received: '39.6' }));
    expect(await payment(id)).toMatchObject({ status: 'paid', value_coin: '40.000000', merchant_received: '39.600000' });
    const [, paid, updated] = await eventsOf(t, id);
    expect(paid?.data.payment.valueCoin).toBe('40.000000');
    expect(updated?.data.payment.merchantReceived).toBe('39.600000');
  });

  it('the card provider named in a deposit is recorded; the checks are the same', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { provider: 'moonpay' }));
    expect(await payment(id)).toMatchObject({ status: 'paid', method: 'card', provider: 'moonpay' });
  });
});

describe('the arrival checks', () => {
  it.each([
    ['USD', '100.00', '89.990000', 'held'],
    ['USD', '100.00', '90.000000', 'paid'],
    // EUR 100.00 at 1.08 locks USD 108.00 at start: 97.20 is exactly 90 %.
    ['EUR', '100.00', '97.199999', 'held'],
    ['EUR', '100.00', '97.200000', 'paid'],
  ])('%s %s session, %s arrives: %s (the 90-percent boundary, on the USD value locked at start)', async (currency, amount, value, status) => {
    const { id, address } = await started(amount, currency);
    await deliver(deposit(address, { amount: value }));
    const read = await payment(id);
    expect(read).toMatchObject({ status, value_coin: value, currency, amount });
    if (status === 'held') {
      expect(read.hold_acceptable).toBe(true);
      expect(read.hold_reason).toMatch(/underpaid/i);
      expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held']);
      const [, held] = await eventsOf(t, id);
      expect(held?.data.payment).toMatchObject({ status: 'held', holdAcceptable: true, holdReason: read.hold_reason, valueCoin: value });
      expect(held?.data.order).toMatchObject({ status: 'held', needsReview: true });
    } else {
      expect(read.hold_reason).toBeNull();
      expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
    }
  });

  it('the USD value is the one locked at start, not the rate when the money arrives', async () => {
    const { id, address } = await started('100.00', 'EUR');
    await t.db.updateTable('fx_rates').set({ usd_per_unit: '1.5' }).where('currency', '=', 'EUR').execute();
    try {
      await deliver(deposit(address, { amount: '97.200000' }));
    } finally {
      await t.db.updateTable('fx_rates').set({ usd_per_unit: '1.08' }).where('currency', '=', 'EUR').execute();
    }
    expect((await payment(id)).status).toBe('paid');
  });

  it('a transaction that already paid another payment: held, not acceptable, the txid not stored', async () => {
    const first = await started();
    const used = deposit(first.address);
    await deliver(used);
    expect((await payment(first.id)).status).toBe('paid');

    const second = await started();
    expect(await deliver(deposit(second.address, { txid: used.txid }))).toMatchObject({ outcome: 'applied', payment_id: second.id });
    const read = await payment(second.id);
    expect(read).toMatchObject({ status: 'held', hold_acceptable: false, txid_in: null });
    expect(read.hold_reason).toContain(String(used.txid));
    expect(await typesOf(t, second.id)).toEqual(['payment.started', 'payment.held']);
    const [, held] = await eventsOf(t, second.id);
    expect(held?.data.payment).toMatchObject({ status: 'held', holdAcceptable: false, txidIn: null });
    // The first payment keeps its transaction.
    expect(await payment(first.id)).toMatchObject({ status: 'paid', txid_in: used.txid });
  });

  it('a transaction named in another letter case is the same transaction: held, not acceptable (issue 21)', async () => {
    const first = await started();
    const used = `0x${'ab'.repeat(32)}`;
    await deliver(deposit(first.address, { txid: used.toUpperCase().replace('0X', '0x') }));
    // Stored as the chain spells it: lowercase hex, whatever case the notice used.
    expect(await payment(first.id)).toMatchObject({ status: 'paid', txid_in: used });

    const second = await started();
    await deliver(deposit(second.address, { txid: used }));
    const read = await payment(second.id);
    expect(read).toMatchObject({ status: 'held', hold_acceptable: false, txid_in: null });
    expect(read.hold_reason).toContain(used);
    const third = await started();
    await deliver(deposit(third.address, { txid: `0x${'aB'.repeat(32)}`, txid_out: `0x${'CD'.repeat(32)}` }));
    expect((await payment(third.id)).status).toBe('held');
  });

  it('two notices naming one transaction in two letter cases, at the same time: one pays, the other is held', async () => {
    const a = await started();
    const b = await started();
    const hex = randomBytes(32).toString('hex').replace(/^./, 'f');
    const answers = await Promise.all([
      deliver(deposit(a.address, { txid: `0x${hex}` })),
      deliver(deposit(b.address, { txid: `0x${hex.toUpperCase()}` })),
    ]);
    expect(answers.map((answer) => answer.outcome)).toEqual(['applied', 'applied']);
    const states = [(await payment(a.id)).status, (await payment(b.id)).status].sort();
    expect(states).toEqual(['held', 'paid']);
    const stored = await t.db.selectFrom('payments').select('txid_in').where('id', 'in', [a.id, b.id]).where('txid_in', 'is not', null).execute();
    expect(stored).toEqual([{ txid_in: `0x${hex}` }]);
  });

  it('the database holds one transaction once in any case: a second row naming it in capitals is refused', async () => {
    const first = await started();
    const second = await started();
    const hex = randomBytes(32).toString('hex');
    await deliver(deposit(first.address, { txid: `0x${hex}` }));
    // Past the service's own checks: the unique index on the lowercased id, and the lowercase domain.
    await expect(t.db.updateTable('payments').set({ txid_in: `0x${hex.toUpperCase()}` }).where('id', '=', second.id).execute()).rejects.toThrow();
    await expect(t.db.updateTable('payments').set({ txid_in: `0x${'EF'.repeat(32)}` }).where('id', '=', second.id).execute()).rejects.toThrow(/lowercase_txid/);
  });

  it('migration 0023: existing ids are lowercased; of two payments one transaction paid in two cases, the first keeps it and the later one is named in the activity', async () => {
    const first = await started();
    const later = await started();
    const hex = randomBytes(32).toString('hex').replace(/^./, 'a');
    await deliver(deposit(first.address, { txid: `0x${hex}` }));
    await t.jump(MINUTE);
    await deliver(deposit(later.address));
    const migration = readFileSync(new URL('../../migrations/0023_txid_case_and_wallet_changes.sql', import.meta.url), 'utf8');
    const txidPart = migration.slice(0, migration.indexOf('-- 2.'));
    const Rollback = class extends Error {};
    await t.db.transaction().execute(async (trx) => {
      // The table as it was before 0023, holding what the case-sensitive check let through.
      await sql`DROP INDEX payments_transfer_in`.execute(trx);
      await sql`ALTER TABLE payments ALTER COLUMN txid_in TYPE text, ALTER COLUMN txid_out TYPE text`.execute(trx);
      await sql`ALTER TABLE chain_movements ALTER COLUMN tx_hash TYPE text, ALTER COLUMN deposit_tx_hash TYPE text`.execute(trx);
      await sql`DROP DOMAIN lowercase_txid`.execute(trx);
      await sql`CREATE UNIQUE INDEX payments_txid_in ON payments (txid_in) WHERE txid_in IS NOT NULL`.execute(trx);
      await trx.updateTable('payments').set({ txid_in: `0x${hex.toUpperCase()}`, txid_out: '0xAA' }).where('id', '=', later.id).execute();
      for (const statement of txidPart.split(/;\s*\n/).filter((part) => /^\s*[A-Z]/m.test(part))) await sql.raw(statement).execute(trx);
      const rows = await trx.selectFrom('payments').select(['id', 'status', 'txid_in', 'txid_out']).where('id', 'in', [first.id, later.id]).orderBy('paid_at').execute();
      expect(rows).toEqual([
        { id: first.id, status: 'paid', txid_in: `0x${hex}`, txid_out: null },
        { id: later.id, status: 'paid', txid_in: null, txid_out: '0xaa' },
      ]);
      const noted = await trx.selectFrom('activity').select(['actor', 'action', 'details']).where('subject_id', '=', later.id).execute();
      expect(noted).toEqual([{ actor: 'service', action: 'payment.txid_reused', details: { txid: `0x${hex}`, paid_first: first.id } }]);
      throw new Rollback();
    }).catch((error: unknown) => { if (!(error instanceof Rollback)) throw error; });
  });

  it('money forwarded to a wallet that is not the payout wallet: held, not acceptable', async () => {
    const { id, address } = await started();
    const elsewhere = '0x2222222222222222222222222222222222222222';
    await deliver(deposit(address, { forwarded_to: elsewhere }));
    const read = await payment(id);
    expect(read).toMatchObject({ status: 'held', hold_acceptable: false });
    expect(read.hold_reason).toContain(elsewhere);
    const [, held] = await eventsOf(t, id);
    expect(held).toMatchObject({ type: 'payment.held' });
    expect(held?.data.payment).toMatchObject({ holdAcceptable: false, holdReason: read.hold_reason });
  });

  it('the payout wallet is compared without regard to letter case', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { forwarded_to: LIVE_WALLET.toUpperCase().replace('0X', '0x') }));
    expect((await payment(id)).status).toBe('paid');
  });

  it('a coin that is not a dollar coin: held, acceptable', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { coin: 'polygon_matic', amount: '100.000000' }));
    const read = await payment(id);
    expect(read).toMatchObject({ status: 'held', hold_acceptable: true, coin: 'polygon_matic', value_coin: '100.000000' });
    expect(read.hold_reason).toMatch(/not a dollar coin/i);
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held']);
  });

  it('a Live session that was never started has no deposit address, so no notice can reach it', async () => {
    const session = await api('POST', '/v1/checkout_sessions', { amount: '40.00', currency: 'USD' });
    expect((await payment(session.id)).deposit_address).toBeNull();
  });
});

describe('accepting a held payment', () => {
  const accept = async (id: string) => acceptHeldPayment.run(await asOperatorOn(t.context, 'payment', id), { id });

  it('an acceptable hold accepted: paid, payment.paid; merchant_received stays null and no payment.updated', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { amount: '30.000000' }));
    expect((await payment(id)).status).toBe('held');
    await t.jump(MINUTE);
    const accepted = await accept(id);
    expect(accepted.status).toBe('paid');
    const read = await payment(id);
    expect(read).toMatchObject({ status: 'paid', merchant_received: null, paid_at: nowSeconds() });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held', 'payment.paid']);
    const [, , paid] = await eventsOf(t, id);
    expect(paid?.data.payment).toMatchObject({ status: 'paid', merchantReceived: null, paidAt: t.clock.now().getTime() });
    expect(paid?.data.order).toMatchObject({ status: 'paid' });
  });

  it('a settlement notice after an acceptance sends no payment.updated and merchant_received stays null (spec 3: held -> paid)', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { amount: '30.000000' }));
    await accept(id);
    // Spec 3, held -> paid by acceptance: "merchantReceived stays null and no payment.updated follows".
    await send(settlement(address));
    expect((await payment(id)).merchant_received).toBeNull();
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held', 'payment.paid']);
  });

  it('a hold that is not acceptable is refused and nothing changes', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { forwarded_to: '0x3333333333333333333333333333333333333333' }));
    await expect(accept(id)).rejects.toThrow();
    expect((await payment(id)).status).toBe('held');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held']);
  });

  it('a payment that is not held cannot be accepted', async () => {
    const { id, address } = await started();
    await expect(accept(id)).rejects.toThrow();
    await deliver(deposit(address));
    await expect(accept(id)).rejects.toThrow();
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
  });
});

describe('late money', () => {
  it('after expiry: payment.expired, then payment.paid', async () => {
    const { id, address } = await started();
    await t.jump(DAY + MINUTE);
    expect((await payment(id)).status).toBe('expired');
    await deliver(deposit(address));
    expect(await payment(id)).toMatchObject({ status: 'paid', paid_at: nowSeconds() });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.expired', 'payment.paid']);
  });

  it('after expiry and underpaid: payment.expired, then payment.held', async () => {
    const { id, address } = await started();
    await t.jump(DAY + MINUTE);
    await deliver(deposit(address, { amount: '10.000000' }));
    expect((await payment(id)).status).toBe('held');
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.expired', 'payment.held']);
  });

  it('after a payment link cancel: the link is paid', async () => {
    const link = await api('POST', '/v1/payment_links', { amount: '12.00', currency: 'USD', description: 'Tea', customer_email: 'ann@buyer.example' });
    await reportProcessorStatus(t);
    const start = await api('POST', `/v1/checkout_sessions/${link.id}/start`, { email: 'ann@buyer.example' });
    expect(start.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await api('POST', `/v1/payment_links/${link.id}/cancel`)).toMatchObject({ status: 'expired' });
    await deliver(deposit(start.deposit_address, { amount: '12.000000', payment_id: link.id }));
    expect(await api('GET', `/v1/payment_links/${link.id}`)).toMatchObject({ status: 'paid' });
    expect(await typesOf(t, link.id)).toEqual(['payment.started', 'payment.canceled', 'payment.paid']);
  });
});

describe('notices that change nothing', () => {
  it('the same notice twice: the second answers 200 duplicate', async () => {
    const { id, address } = await started();
    const notice = deposit(address);
    const raw = JSON.stringify(notice);
    expect((await postRaw(raw, header(raw))).body).toMatchObject({ outcome: 'applied' });
    const before = await payment(id);
    await t.jump(MINUTE);
    const again = await postRaw(raw, header(raw));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ received: true, outcome: 'duplicate', payment_id: id });
    expect(await payment(id)).toEqual(before);
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
    expect((await noticeRows(String(notice.id))).map((row) => row.outcome)).toEqual(['applied', 'duplicate']);
  });

  it('a notice id seen before with a different body is still a duplicate', async () => {
    const { id, address } = await started();
    const notice = deposit(address);
    await deliver(notice);
    const changed = await deliver({ ...notice, amount: '1.000000', txid: txid() });
    expect(changed.outcome).toBe('duplicate');
    expect(await payment(id)).toMatchObject({ status: 'paid', value_coin: '40.000000', txid_in: notice.txid });
  });

  it('a paid payment stays paid when a second deposit arrives', async () => {
    const { id, address } = await started();
    const first = deposit(address);
    await deliver(first);
    const before = await payment(id);
    for (const later of [
      deposit(address),
      deposit(address, { amount: '1.000000' }),
      deposit(address, { forwarded_to: '0x4444444444444444444444444444444444444444' }),
      deposit(address, { coin: 'polygon_matic' }),
    ]) {
      const answer = await deliver(later);
      expect(answer.outcome).toBe('rejected');
    }
    expect(await payment(id)).toEqual(before);
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid']);
  });

  it('a held payment is not changed by a second deposit', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { amount: '10.000000' }));
    const before = await payment(id);
    expect((await deliver(deposit(address))).outcome).toBe('rejected');
    expect(await payment(id)).toEqual(before);
  });

  it('a settlement for a held payment is rejected', async () => {
    const { id, address } = await started();
    await deliver(deposit(address, { amount: '10.000000' }));
    const before = await payment(id);
    const answer = await deliver(settlement(address));
    expect(answer).toMatchObject({ outcome: 'rejected', payment_id: id });
    expect(answer.reason).toEqual(expect.any(String));
    expect(await payment(id)).toEqual(before);
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held']);
  });

  it('a settlement for an open payment is rejected', async () => {
    const { id, address } = await started();
    expect((await deliver(settlement(address))).outcome).toBe('rejected');
    expect(await payment(id)).toMatchObject({ status: 'open', txid_out: null, merchant_received: null });
  });

  it('an unknown deposit address is rejected and recorded', async () => {
    const notice = deposit('0x5555555555555555555555555555555555555555');
    const answer = await deliver(notice);
    expect(answer).toMatchObject({ received: true, outcome: 'rejected', payment_id: null });
    const [row] = await noticeRows(String(notice.id));
    expect(row).toMatchObject({ outcome: 'rejected', kind: 'deposit.confirmed', body: JSON.stringify(notice) });
  });

  it('a payment_id that does not match the deposit address is rejected', async () => {
    const a = await started();
    const b = await started();
    const answer = await deliver(deposit(a.address, { payment_id: b.id }));
    expect(answer.outcome).toBe('rejected');
    for (const id of [a.id, b.id]) {
      expect((await payment(id)).status).toBe('open');
      expect(await typesOf(t, id)).toEqual(['payment.started']);
    }
  });

  it('a Test payment never has a deposit address, so no notice reaches it', async () => {
    const session = await api('POST', '/v1/checkout_sessions', { amount: '40.00', currency: 'USD' }, test);
    const start = await api('POST', `/v1/checkout_sessions/${session.id}/start`, { email: 'ann@buyer.example' }, test);
    expect(start.deposit_address).toBeNull();
  });

  it('a Live key cannot simulate: 400 test_mode_only, and nothing changes', async () => {
    const { id } = await started();
    const refused = await t.request('POST', `/v1/payments/${id}/simulate`, { key: live, body: { outcome: 'paid' } });
    expectError(refused, 400, 'test_mode_only');
    expect((await payment(id)).status).toBe('open');
    expect(await typesOf(t, id)).toEqual(['payment.started']);
  });
});

describe('signed notices the service cannot read', () => {
  it.each([
    ['not JSON', () => 'not json', 'invalid_json'],
    ['an unknown type', (address: string) => JSON.stringify({ ...deposit(address), type: 'deposit.pending' }), 'invalid_request'],
    ['an amount that is not a decimal string', (address: string) => JSON.stringify(deposit(address, { amount: 40 })), 'invalid_request'],
    ['no deposit address', (address: string) => JSON.stringify({ ...deposit(address), deposit_address: undefined }), 'invalid_request'],
  ])('%s: 400, recorded as rejected, nothing changes', async (_name, body, code) => {
    const { id, address } = await started();
    const raw = body(address);
    const count = async () => (await t.db.selectFrom('processor_notices').select('id').where('body', '=', raw).execute()).length;
    const answer = await postRaw(raw, header(raw));
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(code);
    expect(await count()).toBe(1);
    expect((await payment(id)).status).toBe('open');
    expect(await typesOf(t, id)).toEqual(['payment.started']);
  });

  it('a deposit missing its txid is rejected and recorded', async () => {
    const { id, address } = await started();
    const notice: Record<string, unknown> = { ...deposit(address), txid: undefined };
    expect(await deliver(notice)).toMatchObject({ outcome: 'rejected', payment_id: id });
    expect((await noticeRows(String(notice.id)))[0]).toMatchObject({ outcome: 'rejected', payment_id: id });
    expect((await payment(id)).status).toBe('open');
  });
});

describe('the signature (spec 6.4)', () => {
  /** Sends `raw` with `signature`, expects 401 invalid_signature, and that nothing was written or changed. */
  // A refused signature is counted (processor_notices_refused_total), never written: forging costs the database nothing.
  const refusedRows = (raw: string) => t.db.selectFrom('processor_notices').selectAll()
    .where('body_sha256', '=', createHash('sha256').update(raw).digest('hex')).orderBy('id').execute();
  const refusedCount = async () => {
    const text = await t.context.metrics.registry.metrics();
    return [...text.matchAll(/^processor_notices_refused_total\{[^}]*\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  };

  async function expectRefused(id: string, _notice: Record<string, unknown>, raw: string, signature: string | null) {
    const before = await payment(id);
    const [rowsBefore, countedBefore] = [await t.db.selectFrom('processor_notices').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(), await refusedCount()];
    const answer = await postRaw(raw, signature);
    expectError(answer, 401, 'invalid_signature');
    expect(await payment(id)).toEqual(before);
    expect(await typesOf(t, id)).toEqual(['payment.started']);
    expect(await refusedRows(raw)).toEqual([]);
    expect((await t.db.selectFrom('processor_notices').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n).toBe(rowsBefore.n);
    expect(await refusedCount()).toBe(countedBefore + 1);
  }

  const CASES: Array<[string, (raw: string) => string | null]> = [
    ['no header', () => null],
    ['an empty header', () => ''],
    ['a header that is not t=…,v1=…', () => 'garbage'],
    ['a header without t', (raw) => `v1=${hmacHex(TEST_PROCESSOR_SECRET, nowSeconds(), raw)}`],
    ['a header without v1', () => `t=${nowSeconds()}`],
    ['a v1 that is not 64 hex characters', (raw) => `t=${nowSeconds()},v1=${hmacHex(TEST_PROCESSOR_SECRET, nowSeconds(), raw).slice(0, 63)}`],
    ['a v1 in uppercase hex', (raw) => `t=${nowSeconds()},v1=${hmacHex(TEST_PROCESSOR_SECRET, nowSeconds(), raw).toUpperCase()}`],
    ['a non-numeric timestamp', (raw) => `t=now,v1=${hmacHex(TEST_PROCESSOR_SECRET, nowSeconds(), raw)}`],
    ['the signature signed with another secret', (raw) => header(raw, nowSeconds(), 'not-the-processor-secret')],
    ['a timestamp 301 seconds old', (raw) => header(raw, nowSeconds() - 301)],
    ['a timestamp 301 seconds ahead', (raw) => header(raw, nowSeconds() + 301)],
    ['a header signed for another timestamp', (raw) => `t=${nowSeconds()},v1=${hmacHex(TEST_PROCESSOR_SECRET, nowSeconds() - 1, raw)}`],
    ['the HMAC of the body alone', (raw) => `t=${nowSeconds()},v1=${createHmac('sha256', TEST_PROCESSOR_SECRET).update(raw).digest('hex')}`],
  ];

  it.each(CASES)('%s: 401 invalid_signature, nothing written, nothing changes', async (_name, sign) => {
    const { id, address } = await started();
    const notice = deposit(address);
    const raw = JSON.stringify(notice);
    await expectRefused(id, notice, raw, sign(raw));
  });

  it('a body altered after signing: 401, nothing written, nothing changes', async () => {
    const { id, address } = await started();
    const notice = deposit(address, { amount: '1.000000' });
    const signed = JSON.stringify(notice);
    const altered = JSON.stringify({ ...notice, amount: '40.000000' });
    await expectRefused(id, notice, altered, header(signed));
  });

  it('a refused notice does not block the same notice signed correctly afterwards', async () => {
    const { id, address } = await started();
    const notice = deposit(address);
    const raw = JSON.stringify(notice);
    await expectRefused(id, notice, raw, header(raw, nowSeconds(), 'wrong'));
    expect((await postRaw(raw, header(raw))).body).toMatchObject({ outcome: 'applied', payment_id: id });
    expect((await refusedRows(raw)).map((row) => row.outcome)).toEqual(['applied']);
    expect((await noticeRows(String(notice.id))).map((row) => row.outcome)).toEqual(['applied']);
  });

  it('2,000 forged notices write no row and grow no table', async () => {
    const { address } = await started();
    const size = async () => (await sql<{ bytes: string }>`SELECT pg_total_relation_size('processor_notices') AS bytes`.execute(t.db)).rows[0]!.bytes;
    const [rows, bytes, counted] = [await t.db.selectFrom('processor_notices').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(), await size(), await refusedCount()];
    for (let batch = 0; batch < 20; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => {
        const raw = JSON.stringify(deposit(address));
        return postRaw(raw, header(raw, nowSeconds(), 'forged'));
      }));
      expect(answers.every((answer) => answer.status === 401)).toBe(true);
    }
    expect((await t.db.selectFrom('processor_notices').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n).toBe(rows.n);
    expect(await size()).toBe(bytes);
    expect(await refusedCount()).toBe(counted + 2000);
  });

  it.each([300, -300])('a timestamp %i seconds from now is accepted', async (offset) => {
    const { id, address } = await started();
    const raw = JSON.stringify(deposit(address));
    const answer = await postRaw(raw, header(raw, nowSeconds() - offset));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.outcome).toBe('applied');
    expect((await payment(id)).status).toBe('paid');
  });

  it('two v1 values of which one matches are accepted, whichever comes first', async () => {
    for (const order of ['wrong first', 'right first']) {
      const { id, address } = await started();
      const raw = JSON.stringify(deposit(address));
      const ts = nowSeconds();
      const right = `v1=${hmacHex(TEST_PROCESSOR_SECRET, ts, raw)}`;
      const wrong = `v1=${hmacHex('an-old-secret', ts, raw)}`;
      const answer = await postRaw(raw, order === 'wrong first' ? `t=${ts},${wrong},${right}` : `t=${ts},${right},${wrong}`);
      expect(answer.status, `${order}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect((await payment(id)).status).toBe('paid');
    }
  });

  it('two v1 values of which none matches are refused', async () => {
    const { id, address } = await started();
    const notice = deposit(address);
    const raw = JSON.stringify(notice);
    const ts = nowSeconds();
    await expectRefused(id, notice, raw, `t=${ts},v1=${hmacHex('one', ts, raw)},v1=${hmacHex('two', ts, raw)}`);
  });

  it('the signature covers the exact raw bytes: whitespace and non-ASCII text as sent', async () => {
    const { id, address } = await started();
    const notice = deposit(address, { id: `ntc_ünïcode_☕_${randomBytes(4).toString('hex')}` });
    const raw = `${JSON.stringify(notice, null, 2)}\n`;
    const answer = await postRaw(raw, header(raw));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.outcome).toBe('applied');
    expect((await payment(id)).status).toBe('paid');
    const [row] = await noticeRows(String(notice.id));
    expect(row?.body).toBe(raw);
    // The same notice re-serialized compactly under the pretty body's signature is refused.
    const other = await started();
    const second = deposit(other.address, { id: `ntc_ünïcode_☕_${randomBytes(4).toString('hex')}` });
    const pretty = JSON.stringify(second, null, 2);
    await expectRefused(other.id, second, JSON.stringify(second), header(pretty));
  });
});

describe('refused notices from one address', () => {
  let limited: TestApp;
  beforeAll(async () => { limited = await startTestApp({ RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '2' }); });
  afterAll(async () => limited?.close());

  it('answer 401 up to the per-address limit, then 429 with a sentence naming the limit, until the minute passes', async () => {
    const post = () => fetch(`${limited.url}/processor/notices`, { method: 'POST', headers: { 'content-type': 'application/json', 'processor-signature': 't=1,v1=00' }, body: '{}' });
    expect((await post()).status).toBe(401);
    expect((await post()).status).toBe(401);
    const over = await post();
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    expect(await over.json()).toEqual({ error: { code: 'rate_limited', message: 'This address passed the limit of 2 refused notices a minute. Retry after 60 seconds.' } });
    limited.clock.advance(MINUTE);
    expect((await post()).status).toBe(401);
  });
});

describe('the books: each transfer as the chain identifies it (issue 30)', () => {
  const TOKEN = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
  const BUYER = '0x4b20993bc481177ec7e8f571cecae8a9e22c02db';
  const FEE_WALLET = '0x1f98431c8ad98523631ae4a59f267346ea31f984';
  const identified = (address: string, tx: string, logIndex: number, amount = '40.000000', fields: Record<string, unknown> = {}) => deposit(address, {
    txid: tx, amount, log_index: logIndex, block_number: 1000 + logIndex, from_address: BUYER, token: TOKEN,
    value: String(BigInt(amount.replace('.', ''))), decimals: 6, ...fields,
  });
  const forwardOf = (address: string, tx: string, logIndex: number, net: bigint, fee: bigint) => settlement(address, {
    network: 'polygon', coin: 'polygon_usdc', merchant_received: `${net / 1_000_000n}.${String(net % 1_000_000n).padStart(6, '0')}`, transfer_txid: tx, transfer_log_index: logIndex,
    movements: [
      { kind: 'forward_net', txid: txid(), log_index: 7, block_number: 1100, from: address.toLowerCase(), to: LIVE_WALLET.toLowerCase(), token: TOKEN, value: String(net), decimals: 6 },
      { kind: 'forward_fee', txid: txid(), log_index: 8, block_number: 1100, from: address.toLowerCase(), to: FEE_WALLET, token: TOKEN, value: String(fee), decimals: 6 },
    ],
  });
  const transfers = async (id: string) => (await api('GET', `/v1/payments/${id}/transfers`)).data as any[];

  it('one transaction with two Transfer logs to two deposit addresses pays both; the same transfer again, in any letter case, is a duplicate', async () => {
    const [a, b] = [await started(), await started()];
    const tx = txid();
    expect(await deliver(identified(a.address, tx, 3))).toMatchObject({ outcome: 'applied', payment_id: a.id });
    expect(await deliver(identified(b.address, tx.toUpperCase().replace('0X', '0x'), 4))).toMatchObject({ outcome: 'applied', payment_id: b.id });
    expect(await payment(a.id)).toMatchObject({ status: 'paid', txid_in: tx });
    expect(await payment(b.id)).toMatchObject({ status: 'paid', txid_in: tx });
    expect(await deliver(identified(a.address, tx.toUpperCase().replace('0X', '0x'), 3))).toMatchObject({ outcome: 'duplicate', payment_id: a.id });
    expect((await transfers(a.id)).map((row) => [row.kind, row.txid, row.log_index, row.disposition])).toEqual([['deposit', tx, 3, 'paid']]);
    // A forged notice naming a's transfer for b's address is one transfer paying twice: held, not acceptable.
    const c = await started();
    expect(await deliver(identified(c.address, tx, 3))).toMatchObject({ outcome: 'duplicate', payment_id: a.id });
    const d = await started();
    await deliver(deposit(d.address, { txid: tx }));
    expect(await payment(d.id)).toMatchObject({ status: 'held', hold_acceptable: false });
  });

  it('a held payment\'s forward is booked, not refused; its merchant_received stays empty and its order\'s received is what arrived at the wallet', async () => {
    const { id, address } = await started();
    const tx = txid();
    await deliver(identified(address, tx, 0, '20.000000'));
    const answer = await deliver(forwardOf(address, tx, 0, 19_800_000n, 200_000n));
    expect(answer).toMatchObject({ outcome: 'applied', payment_id: id });
    expect(await payment(id)).toMatchObject({ status: 'held', merchant_received: null, txid_out: null });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.held']);
    const order = await api('GET', `/v1/orders/${(await payment(id)).order_id}`);
    expect(order.received).toBe('19.800000');
    expect((await transfers(id)).map((row) => [row.kind, row.amount])).toEqual([['deposit', '20.000000'], ['forward_net', '19.800000'], ['forward_fee', '0.200000']]);
    // Not flagged as a mismatch on the timeline: it says what moved.
    const row = await t.db.selectFrom('processor_notices').select(['outcome', 'reason']).where('payment_id', '=', id).where('kind', '=', 'settlement.completed').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ outcome: 'applied', reason: expect.stringMatching(/^Recorded in the books/) });
  });

  it('an extra transfer to a paid payment is booked for the merchant to look at; its forward adds to the order, not to merchant_received', async () => {
    const { id, address } = await started();
    const first = txid();
    await deliver(identified(address, first, 0));
    await deliver(forwardOf(address, first, 0, 39_600_000n, 400_000n));
    const extra = txid();
    expect((await deliver(identified(address, extra, 5, '5.000000'))).reason).toMatch(/^Recorded as an extra arrival/);
    await deliver(forwardOf(address, extra, 5, 4_950_000n, 50_000n));
    expect(await payment(id)).toMatchObject({ status: 'paid', value_coin: '40.000000', merchant_received: '39.600000' });
    expect(await typesOf(t, id)).toEqual(['payment.started', 'payment.paid', 'payment.updated']);
    expect((await api('GET', `/v1/orders/${(await payment(id)).order_id}`)).received).toBe('44.550000');
    const deposits = (await transfers(id)).filter((row) => row.kind === 'deposit');
    expect(deposits.map((row) => [row.disposition, row.needs_review])).toEqual([['paid', false], ['extra', true]]);
  });

  it('a sweep, final on the chain, is booked with its gas top-up: to the payout wallet of the payment\'s coin it counts as reached, a stray token in its own units; the CSV has a line for each', async () => {
    const { id, address } = await started();
    const tx = txid();
    await deliver(identified(address, tx, 0));
    await deliver(forwardOf(address, tx, 0, 39_600_000n, 400_000n));
    const GAS_WALLET = '0x6c3e4cb2e96b01f4b866965a91ed4437839a121a';
    const STRAY = '0xdac17f958d2ee523a2206206994597c13d831ec7';
    const sweepOf = (token: string, to: string, value: string, decimals: number, coin?: string) => {
      const [top, moved] = [txid(), txid()];
      return {
        notice: {
          id: noticeId(), type: 'sweep.completed', deposit_address: address, payment_id: id, network: 'polygon', coin, token, forwarded_to: to, txid_out: moved,
          movements: [
            { kind: 'gas_top_up', txid: top, log_index: null, block_number: 1200, from: GAS_WALLET, to: address.toLowerCase(), token: null, value: '52500000000000', decimals: 18 },
            { kind: 'sweep', txid: moved, log_index: 2, block_number: 1201, from: address.toLowerCase(), to, token, value, decimals },
          ],
        },
        moved,
      };
    };
    // 1.5 USDC that came after the watch, swept to the merchant; 2.5 of a token nobody priced, to the operator.
    const own = sweepOf(TOKEN, LIVE_WALLET.toLowerCase(), '1500000', 6, 'polygon_usdc');
    const stray = sweepOf(STRAY, FEE_WALLET, '2500000000000000000', 18);
    expect(await deliver(own.notice)).toMatchObject({ outcome: 'applied', payment_id: id, reason: expect.stringMatching(/^Recorded in the books: a sweep/) });
    expect(await deliver(stray.notice)).toMatchObject({ outcome: 'applied' });
    expect(await deliver({ ...own.notice, id: noticeId() })).toMatchObject({ outcome: 'duplicate' });
    expect((await transfers(id)).filter((row) => row.kind === 'sweep' || row.txid === own.notice.movements[0]!.txid)
      .map((row) => [row.kind, row.coin, row.amount, row.to]).sort((a, b) => (a.join() < b.join() ? -1 : 1))).toEqual([
      ['gas_top_up', 'polygon_pol', '0.000052500000000000', address.toLowerCase()],
      ['sweep', `polygon:${STRAY}`, '2.500000000000000000', FEE_WALLET],
      ['sweep', 'polygon_usdc', '1.500000', LIVE_WALLET.toLowerCase()],
    ]);
    // What reached the merchant: the forward's net and the sweep of the payment's own coin; spec 3's merchant_received is the forward's.
    expect(await payment(id)).toMatchObject({ status: 'paid', merchant_received: '39.600000' });
    expect((await api('GET', `/v1/orders/${(await payment(id)).order_id}`)).received).toBe('41.100000');
    const principal = { businessId: (await t.db.selectFrom('payments').select('business_id').where('id', '=', id).executeTakeFirstOrThrow()).business_id, livemode: true } as Principal;
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    let csv = '';
    for await (const chunk of booksCsv(t.db, principal, { from: new Date(`${today}T00:00:00Z`), to: new Date(`${today}T00:00:00Z`) })) csv += chunk;
    const lines = csv.trim().split('\r\n').map((line) => line.split(','));
    const header = lines[0]!;
    const ofPayment = lines.slice(1).filter((line) => line[header.indexOf('payment_id')] === id)
      .map((line) => Object.fromEntries(['disposition', 'coin', 'amount', 'net', 'fee', 'gas_top_up', 'deposit_txid', 'net_txids', 'fee_txids', 'deposit_address'].map((column) => [column, line[header.indexOf(column)]])))
      .sort((a, b) => `${a.disposition} ${a.coin}`.localeCompare(`${b.disposition} ${b.coin}`)); // one instant on the test's clock: in any order
    expect(ofPayment).toEqual([
      { disposition: 'paid', coin: 'polygon_usdc', amount: '40.000000', net: '39.600000', fee: '0.400000', gas_top_up: '', deposit_txid: tx, net_txids: expect.any(String), fee_txids: expect.any(String), deposit_address: address.toLowerCase() },
      { disposition: 'sweep', coin: 'polygon_usdc', amount: '1.500000', net: '1.500000', fee: '', gas_top_up: '0.000052500000000000', deposit_txid: '', net_txids: own.moved, fee_txids: '', deposit_address: address.toLowerCase() },
      { disposition: 'sweep', coin: `polygon:${STRAY}`, amount: '2.500000000000000000', net: '', fee: '2.500000000000000000', gas_top_up: '0.000052500000000000', deposit_txid: '', net_txids: '', fee_txids: stray.moved, deposit_address: address.toLowerCase() },
    ]);
    // A sweep that reports a forward's share, or none, is refused and writes nothing.
    const mixed = sweepOf(TOKEN, LIVE_WALLET.toLowerCase(), '1', 6, 'polygon_usdc');
    mixed.notice.movements[0]!.kind = 'forward_net';
    mixed.notice.movements.pop();
    expect(await deliver(mixed.notice)).toMatchObject({ outcome: 'rejected' });
    expect((await transfers(id)).length).toBe(7);
  });

  it('refuses a notice whose transfer fields are not what the chain has: 400, nothing changes', async () => {
    const { id, address } = await started();
    for (const fields of [{ log_index: -1 }, { log_index: '3' }, { from_address: 'nobody' }, { token: '0x12' }, { value: '12.5' }, { decimals: 40 }]) {
      const sent = await send(identified(address, txid(), 0, '40.000000', fields));
      expect(sent.status, JSON.stringify(fields)).toBe(400);
      expect(sent.body.error.code).toBe('invalid_request');
    }
    expect((await deliver(identified(address, txid(), 0, '40.000000', { value: '1' }))).outcome).toBe('rejected');
    expect((await deliver(identified(address, txid(), 0, '40.000000', { decimals: 18, value: '40000000000000000000' }))).reason).toMatch(/6 decimals/);
    expect(await payment(id)).toMatchObject({ status: 'open' });
    expect(await transfers(id)).toEqual([]);
  });
});
