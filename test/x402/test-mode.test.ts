import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unixSeconds } from '../../src/core/clock.ts';
import { startReceiver, verifiesWith, type Receiver } from '../support/receiver.ts';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { decodeHeader, encodeHeader, payingFetch as officialFetch, signedHeader as signed, type HeaderChange } from '../support/x402.ts';
import { account, expectCreated, type Account } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Paying over HTTP 402 in Test mode (issue 33, docs/x402.md), with the official x402 client
// (@x402/fetch and @x402/evm, unchanged) against the service over loopback: the offer, the paid
// retry settled by the Test simulation, every refusal, and the payment's state after each.

let t: TestApp;
let acct: Account;
let receiver: Receiver;
const buyer = privateKeyToAccount(generatePrivateKey());

// The client signs windows from the real clock: the app's clock starts at it.
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' }, { realOrigin: true, clockStart: Date.now(), workers: true });
  acct = await account(t);
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver?.close();
});

const decode = decodeHeader;
const encode = encodeHeader;

async function link(body: Record<string, unknown> = {}): Promise<any> {
  return expectCreated(await t.request('POST', '/v1/payment_links', { key: acct.key, body: { amount: '1.00', currency: 'USD', description: 'Tea sample', ...body } }));
}

/** As docs/x402.md shows an agent's client: allowed more than the default one dollar a payment when asked. */
const payingFetch = (signer: PrivateKeyAccount = buyer, maxAmountPerPayment?: string) => officialFetch(signer, maxAmountPerPayment ? { maxAmountPerPayment } : undefined);

const x402Url = (id: string) => `${t.url}/x402/pay/${id}`;

async function claims(paymentId: string): Promise<number> {
  const row = await t.db.selectFrom('x402_authorizations').select((eb) => eb.fn.countAll<string>().as('n')).where('payment_id', '=', paymentId).executeTakeFirstOrThrow();
  return Number(row.n);
}

const signedHeader = (offer: any, change: HeaderChange = {}) => signed(offer, buyer, change);

async function offerOf(id: string) {
  const res = await fetch(x402Url(id));
  expect(res.status).toBe(402);
  return decode(res.headers.get('payment-required'));
}

describe('the 402', () => {
  it('starts the payment and answers what it accepts, in the PAYMENT-REQUIRED header', async () => {
    const created = await link();
    const res = await fetch(x402Url(created.id));
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const offer = decode(res.headers.get('payment-required'));
    expect(offer).toEqual({
      x402Version: 2,
      error: 'PAYMENT-SIGNATURE header is required',
      resource: { url: x402Url(created.id), description: 'Tea sample', mimeType: 'application/json' },
      accepts: [{
        scheme: 'exact', network: 'eip155:84532', amount: '1000000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        payTo: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2' },
      }],
    });
    const body = await res.json();
    expect(body.error.code).toBe('payment_required');
    expect(body.error.message).toContain('1.000000 USDC');
    // Started as a buyer's start: the price locked, no buyer named.
    const payment = (await t.request('GET', `/v1/payments/${created.id}`, { key: acct.key })).body;
    expect(payment).toMatchObject({ status: 'open', customer_email: null, customer_id: null });
    expect(payment.started_at).toEqual(expect.any(Number));
    // Asked again: the same offer, nothing started twice.
    expect(await offerOf(created.id)).toEqual(offer);
    const events = await t.db.selectFrom('events').select('type').where('payment_id', '=', created.id).execute();
    expect(events.map((event) => event.type)).toEqual(['payment.started']);
  });
});

describe('paid with the official client', () => {
  it('pays a Test link in one fetch: 200, the payment paid, the settlement in PAYMENT-RESPONSE', async () => {
    const created = await link();
    const res = await payingFetch()(x402Url(created.id));
    expect(res.status).toBe(200);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532', payer: buyer.address.toLowerCase() });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const body = await res.json();
    expect(body).toMatchObject({ id: created.id, object: 'payment', status: 'paid', amount: '1.00', method: 'crypto', provider_name: 'USDC on Base (x402)', txid_in: settlement.transaction });
    // The buyer's view: none of the merchant's own fields.
    for (const field of ['metadata', 'reference', 'fee_bps', 'payout_wallet', 'merchant_received', 'customer_id']) expect(body).not.toHaveProperty(field);
    const payment = (await t.request('GET', `/v1/payments/${created.id}`, { key: acct.key })).body;
    expect(payment).toMatchObject({ status: 'paid', value_coin: '1.000000', coin: 'base_usdc', network: 'base', txid_in: settlement.transaction });
    const events = await t.db.selectFrom('events').select('type').where('payment_id', '=', created.id).orderBy('created_at').execute();
    expect(events.map((event) => event.type)).toEqual(['payment.started', 'payment.paid']);
    // Asked again: the paid payment and its settlement, nothing paid twice.
    const again = await fetch(x402Url(created.id));
    expect(again.status).toBe(200);
    expect(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction).toBe(settlement.transaction);
    expect(await claims(created.id)).toBe(1);
  });

  it('a checkout session priced in euros: the USD value locked at the start, paid by a client allowed $50 a payment', async () => {
    const session = expectCreated(await t.request('POST', '/v1/checkout_sessions', { key: acct.key, body: { amount: '25.00', currency: 'EUR', description: 'Tea set' } }));
    // The official client refuses more than a dollar by default: nothing signed, nothing claimed.
    await expect(payingFetch()(x402Url(session.id))).rejects.toThrow();
    expect(await claims(session.id)).toBe(0);
    const res = await payingFetch(buyer, '$50')(x402Url(session.id));
    expect(res.status).toBe(200);
    const payment = (await t.request('GET', `/v1/payments/${session.id}`, { key: acct.key })).body;
    const row = await t.db.selectFrom('payments').select('usd_value_minor').where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(row.usd_value_minor).toBeGreaterThan(2500);
    expect(payment).toMatchObject({ status: 'paid', amount: '25.00', currency: 'EUR', value_coin: (Number(row.usd_value_minor) / 100).toFixed(6) });
  });

  it('the merchant\'s endpoint gets payment.paid, signed with its secret', async () => {
    const endpoint = expectCreated(await t.request('POST', '/v1/webhook_endpoints', { key: acct.key, body: { url: `${receiver.url.replace('127.0.0.1', 'localhost')}/x402` } }));
    try {
      const created = await link();
      expect((await payingFetch()(x402Url(created.id))).status).toBe(200);
      const delivered = () => receiver.received.filter((request) => request.path === '/x402' && JSON.parse(request.body).data?.payment?.id === created.id);
      await vi.waitFor(() => expect(delivered().map((request) => JSON.parse(request.body).type)).toContain('payment.paid'), { timeout: 15_000, interval: 50 });
      for (const request of delivered()) {
        expect(verifiesWith(request.headers['service-signature'] as string, endpoint.secret, request.body, unixSeconds(t.clock.now()))).toBe(true);
      }
      expect(JSON.parse(delivered().find((request) => JSON.parse(request.body).type === 'payment.paid')!.body).data.payment).toMatchObject({ providerName: 'USDC on Base (x402)', status: 'paid' });
    } finally {
      await t.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: acct.key });
    }
  });

  it('takes the buyer\'s email from ?email= for the customer and the receipt', async () => {
    const created = await link();
    const res = await payingFetch()(`${x402Url(created.id)}?email=Agent.Buyer@Example.com`);
    expect(res.status).toBe(200);
    const payment = (await t.request('GET', `/v1/payments/${created.id}`, { key: acct.key })).body;
    expect(payment).toMatchObject({ status: 'paid', customer_email: 'agent.buyer@example.com', customer_id: expect.stringMatching(/^cus_/) });
    const mail = await t.db.selectFrom('outbox').select(['kind', 'recipient']).where('payment_id', '=', created.id).execute();
    expect(mail).toContainEqual({ kind: 'payment_receipt', recipient: 'agent.buyer@example.com' });
  });
});

describe('refusals: 402 with the reason, nothing claimed, the payment unchanged', () => {
  const cases: Array<[string, (offer: any) => Promise<string>, string]> = [
    ['an amount below the price', (offer) => signedHeader(offer, { value: '999999' }), 'invalid_exact_evm_payload_authorization_value_mismatch'],
    ['a foreign payTo', (offer) => signedHeader(offer, { to: privateKeyToAccount(generatePrivateKey()).address }), 'invalid_exact_evm_recipient_mismatch'],
    // Expired by the service's clock (the test's, which does not follow the wall's).
    ['an expired window', (offer) => signedHeader(offer, { validBefore: String(Math.floor(t.clock.now().getTime() / 1000) - 1) }), 'invalid_exact_evm_payload_authorization_valid_before'],
    ['a window not open yet', (offer) => signedHeader(offer, { validAfter: String(Math.floor(Date.now() / 1000) + 600) }), 'invalid_exact_evm_payload_authorization_valid_after'],
    ['an unserved network', (offer) => signedHeader(offer, { network: 'eip155:137' }), 'invalid_network'],
    ['another key\'s signature', (offer) => signedHeader(offer, { signer: privateKeyToAccount(generatePrivateKey()) }), 'invalid_exact_evm_signature'],
    ['not base64', async () => 'not base64!', 'invalid_payload'],
    ['a version 1 payload', async () => encode({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: {} }), 'invalid_x402_version'],
    ['another scheme', async (offer) => encode({ ...decode(await signedHeader(offer)), accepted: { ...offer.accepts[0], scheme: 'upto' } }), 'unsupported_scheme'],
  ];
  it.each(cases)('%s', async (_name, make, reason) => {
    const created = await link();
    const offer = await offerOf(created.id);
    const res = await fetch(x402Url(created.id), { headers: { 'PAYMENT-SIGNATURE': await make(offer) } });
    expect(res.status).toBe(402);
    expect(decode(res.headers.get('payment-required'))).toMatchObject({ x402Version: 2, error: reason, accepts: offer.accepts });
    expect(decode(res.headers.get('payment-response'))).toMatchObject({ success: false, errorReason: reason, transaction: '' });
    expect((await res.json()).error).toEqual({ code: reason, message: expect.stringContaining('Nothing was charged.') });
    expect(await claims(created.id)).toBe(0);
    expect((await t.request('GET', `/v1/payments/${created.id}`, { key: acct.key })).body.status).toBe('open');
  });

  it('refuses a version 1 client in a sentence naming version 2', async () => {
    const created = await link();
    const res = await fetch(x402Url(created.id), { headers: { 'X-PAYMENT': encode({ x402Version: 1 }) } });
    expect(res.status).toBe(402);
    expect(decode(res.headers.get('payment-required')).error).toBe('invalid_x402_version');
    expect((await res.json()).error.message).toContain('version 2');
  });

  it('a replayed header and the same authorization twice at once: paid once, the other refused', async () => {
    const created = await link();
    const offer = await offerOf(created.id);
    const header = await signedHeader(offer);
    const answers = await Promise.all([1, 2].map(() => fetch(x402Url(created.id), { headers: { 'PAYMENT-SIGNATURE': header } })));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 402]);
    const refused = answers.find((res) => res.status === 402)!;
    expect(decode(refused.headers.get('payment-response')).errorReason).toMatch(/^(invalid_exact_evm_nonce_already_used|invalid_transaction_state)$/);
    // Replayed at another open payment of the same price: the nonce is the buyer's, used once.
    const other = await link();
    const otherOffer = await offerOf(other.id);
    const replay = decode(header);
    const res = await fetch(x402Url(other.id), { headers: { 'PAYMENT-SIGNATURE': encode({ ...replay, accepted: otherOffer.accepts[0] }) } });
    expect(res.status).toBe(402);
    // Its payTo is the first payment's: refused before its nonce is looked at.
    expect(decode(res.headers.get('payment-response')).errorReason).toBe('invalid_exact_evm_recipient_mismatch');
    expect(await claims(created.id)).toBe(1);
    expect(await claims(other.id)).toBe(0);
    const events = await t.db.selectFrom('events').select('type').where('payment_id', '=', created.id).execute();
    expect(events.filter((event) => event.type === 'payment.paid')).toHaveLength(1);
  });
});

describe('payments that cannot be paid', () => {
  it('a canceled link, an expired payment: 409 in the API\'s error shape; an unknown id: 404', async () => {
    const canceled = await link();
    await t.request('POST', `/v1/payment_links/${canceled.id}/cancel`, { key: acct.key });
    const res = await fetch(x402Url(canceled.id));
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe('invalid_state');
    // Started, then past its expiry: expired, and a signed retry is refused as well.
    const expiring = await link();
    const offer = await offerOf(expiring.id);
    await t.db.updateTable('payments').set({ expires_at: new Date(t.clock.now().getTime() - 1000) }).where('id', '=', expiring.id).execute();
    for (const headers of [{}, { 'PAYMENT-SIGNATURE': await signedHeader(offer) }] as Array<Record<string, string>>) {
      const expired = await fetch(x402Url(expiring.id), { headers });
      expect(expired.status).toBe(409);
      expect((await expired.json()).error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('expired') });
    }
    expect(await claims(expiring.id)).toBe(0);
    const unknown = await fetch(x402Url('pay_doesnotexist'));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('not_found');
  });

  it('a Live link while no healthy processor watches a network: 409 payments_unavailable, nothing started', async () => {
    const live = await account(t, {}, 'live');
    const created = expectCreated(await t.request('POST', '/v1/payment_links', { key: live.key, body: { amount: '1.00', currency: 'USD', description: 'Tea' } }));
    const res = await fetch(x402Url(created.id));
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe('payments_unavailable');
    expect(res.headers.get('payment-required')).toBeNull();
    expect((await t.db.selectFrom('payments').select('started_at').where('id', '=', created.id).executeTakeFirstOrThrow()).started_at).toBeNull();
  });

  it('a suspended account starts nothing', async () => {
    const other = await account(t);
    const created = expectCreated(await t.request('POST', '/v1/payment_links', { key: other.key, body: { amount: '1.00', currency: 'USD', description: 'Tea' } }));
    await other.biz.update({ status: 'suspended' });
    const res = await fetch(x402Url(created.id));
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('merchant_read_only');
    expect(res.headers.get('payment-required')).toBeNull();
    expect((await t.db.selectFrom('payments').select('started_at').where('id', '=', created.id).executeTakeFirstOrThrow()).started_at).toBeNull();
  });

  // Last: it moves the app's clock past the real one the client signs windows from.
  it('an expired payment: 409, started or not, nothing offered', async () => {
    const unstarted = await link();
    const started = await link();
    await offerOf(started.id);
    await t.jump(8 * 24 * 3600 * 1000);
    for (const id of [unstarted.id, started.id]) {
      const res = await fetch(x402Url(id));
      expect(res.status).toBe(409);
      expect((await res.json()).error).toMatchObject({ code: 'invalid_state', message: 'This payment cannot be paid: it is expired.' });
      expect(res.headers.get('payment-required')).toBeNull();
    }
  });
});
