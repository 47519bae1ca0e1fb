import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/clock.ts';
import { servedCoins } from '../../src/resources/networks/served.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { postSignedNotice, reportProcessorStatus, statusNotice } from '../support/processor-status.ts';

// The processor's status notice (processor.status, issue 22 must-have 7): signed like every
// notice, the latest report per network kept in processor_networks (never each report in
// processor_notices), and a network served only while its report is healthy and recent.

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.db.deleteFrom('processor_networks').execute();
  await t.db.deleteFrom('processor_notices').execute();
});

const now = () => Math.floor(t.clock.now().getTime() / 1000);
const served = () => servedCoins(t.db, t.clock.now(), t.config.processorStatusFreshSeconds);
const stored = () => t.db.selectFrom('processor_networks').selectAll().orderBy('network').execute();
const recorded = () => t.db.selectFrom('processor_notices').select(['outcome', 'reason', 'kind']).execute();

async function postRaw(raw: string, signature: string | null) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['processor-signature'] = signature;
  const response = await fetch(`${t.url}/processor/notices`, { method: 'POST', headers, body: raw });
  return { status: response.status, body: await response.json() as any };
}

describe('a signed status', () => {
  it('is stored per network, as the latest report, and is not kept as a notice', async () => {
    const notice = statusNotice([
      { network: 'polygon', coins: ['polygon_usdc', 'polygon_usdt'], head_block: '70000100', final_block: '70000000', cursor_block: '70000001' },
      { network: 'base', healthy: false, problem: 'Every RPC URL of base answers 429.' },
    ], now());
    const answer = await postSignedNotice(t, notice);
    expect(answer).toEqual({ status: 200, body: { received: true, outcome: 'applied', reason: null, payment_id: null } });
    expect(await stored()).toEqual([
      expect.objectContaining({ network: 'base', chain_id: 8453, coins: ['base_usdc'], healthy: false, problem: 'Every RPC URL of base answers 429.', notice_id: notice.id }),
      expect.objectContaining({
        network: 'polygon', chain_id: 137, coins: ['polygon_usdc', 'polygon_usdt'], healthy: true, problem: null,
        head_block: 70000100, final_block: 70000000, cursor_block: 70000001, reported_at: new Date(now() * SECOND),
      }),
    ]);
    expect(await recorded()).toEqual([]);
    // polygon_usdt is watched, but the service offers only the coins it accepts (ACCEPTED_COINS).
    expect(await served()).toEqual(['polygon_usdc']);
  });

  it('takes null block numbers from a processor that has not scanned the network yet', async () => {
    const notice = statusNotice([{ network: 'ethereum', healthy: false, head_block: null, final_block: null, cursor_block: null, problem: 'No successful scan recently.' }], now());
    expect((await postSignedNotice(t, notice)).status).toBe(200);
    expect(await stored()).toEqual([expect.objectContaining({ network: 'ethereum', healthy: false, head_block: null, final_block: null, cursor_block: null })]);
  });

  it('replaces an older report of the network, and never a newer one with a late retry', async () => {
    await reportProcessorStatus(t, { networks: ['polygon'] });
    const late = statusNotice([{ network: 'polygon', healthy: false, problem: 'late' }], now() - 30);
    expect((await postSignedNotice(t, late)).body).toMatchObject({ outcome: 'duplicate' });
    expect(await stored()).toEqual([expect.objectContaining({ network: 'polygon', healthy: true })]);
    await t.jump(20 * SECOND);
    await reportProcessorStatus(t, { networks: [{ network: 'polygon', healthy: false, problem: 'The node is 900 blocks behind.' }] });
    expect(await stored()).toEqual([expect.objectContaining({ network: 'polygon', healthy: false, problem: 'The node is 900 blocks behind.' })]);
    expect(await served()).toEqual([]);
  });

  it('serves a network only while its report is recent (PROCESSOR_STATUS_FRESH_SECONDS, 120 s by default)', async () => {
    expect(t.config.processorStatusFreshSeconds).toBe(120);
    await reportProcessorStatus(t, { networks: ['polygon', 'base', 'ethereum'] });
    expect(await served()).toEqual(['polygon_usdc', 'ethereum_usdc', 'base_usdc']);
    await t.jump(120 * SECOND);
    expect(await served()).toEqual(['polygon_usdc', 'ethereum_usdc', 'base_usdc']);
    await t.jump(1 * SECOND);
    expect(await served()).toEqual([]);
    await reportProcessorStatus(t, { networks: ['base'] });
    expect(await served()).toEqual(['base_usdc']);
  });
});

describe('what a status says of forwarding (issue 30)', () => {
  const delays = () => t.db.selectFrom('processor_forward_delays').select(['network', 'payment_id', 'deposit_address', 'state', 'since', 'reason']).orderBy('payment_id').execute();
  const failing = (paymentIds: string[]) => ({
    healthy: false, trouble: 'forwards_failed', problem: 'A forward failed: request to https://rpc.example.com/v3/SECRETKEY?x=1 failed\nsecond line',
    delayed: paymentIds.map((id) => ({ payment_id: id, deposit_address: '0x' + 'AB'.repeat(20), state: 'failed', since: now() - 60, reason: 'the token refused https://user:pw@rpc.example.com:8545/key' })),
  });

  it('is stored per network, texts cut to one line without URL paths, and replaced whole by the next status: a delay clears by itself', async () => {
    await t.db.deleteFrom('processor_forward_delays').execute();
    expect((await postSignedNotice(t, statusNotice([{ network: 'polygon', forwarding: failing(['pay_a', 'pay_b']) }], now()))).status).toBe(200);
    expect(await stored()).toEqual([expect.objectContaining({ network: 'polygon', healthy: true, forwarding_healthy: false, forwarding_problem: 'A forward failed: request to https://rpc.example.com failed' })]);
    expect(await delays()).toEqual(['pay_a', 'pay_b'].map((id) => ({
      network: 'polygon', payment_id: id, deposit_address: '0x' + 'ab'.repeat(20), state: 'failed', since: new Date((now() - 60) * SECOND), reason: 'the token refused https://rpc.example.com:8545',
    })));
    // A retry of an older status changes nothing; a newer one replaces the list.
    expect((await postSignedNotice(t, statusNotice([{ network: 'polygon', forwarding: failing(['pay_c']) }], now() - 5))).body.outcome).toBe('duplicate');
    expect((await delays()).map((row) => row.payment_id)).toEqual(['pay_a', 'pay_b']);
    await t.jump(15 * SECOND);
    expect((await postSignedNotice(t, statusNotice([{ network: 'polygon', forwarding: { healthy: true, trouble: null, problem: null, delayed: [] } }], now()))).status).toBe(200);
    expect(await delays()).toEqual([]);
    expect(await stored()).toEqual([expect.objectContaining({ forwarding_healthy: true, forwarding_problem: null })]);
  });

  it.each([
    ['more than 200 forwards named', (f: any) => { f.delayed = Array.from({ length: 201 }, () => f.delayed[0]); }, 'networks.0.forwarding.delayed'],
    ['a state that is not failed or pending', (f: any) => { f.delayed[0].state = 'stuck'; }, 'networks.0.forwarding.delayed.0.state'],
    ['since not Unix seconds', (f: any) => { f.delayed[0].since = '2026-03-04'; }, 'networks.0.forwarding.delayed.0.since'],
    ['an unknown trouble', (f: any) => { f.trouble = 'gremlins'; }, 'networks.0.forwarding.trouble'],
  ])('refused: %s', async (_what, spoil, field) => {
    const forwarding = failing(['pay_a']);
    spoil(forwarding);
    const answer = await postSignedNotice(t, statusNotice([{ network: 'polygon', forwarding }], now()));
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', field });
  });
});

describe('a status refused changes nothing; a signed one refused is recorded, a forged one is not', () => {
  beforeEach(async () => {
    await reportProcessorStatus(t, { networks: ['polygon'] });
  });
  const unchanged = async () => expect(await stored()).toEqual([expect.objectContaining({ network: 'polygon', healthy: true, cursor_block: 123401 })]);
  const base = () => statusNotice([{ network: 'base' }], now());

  it('unsigned, or signed with another secret', async () => {
    const raw = JSON.stringify(base());
    expect((await postRaw(raw, null)).status).toBe(401);
    const forged = `t=${now()},v1=${createHmac('sha256', 'not-the-processor-secret-0123456789').update(`${now()}.${raw}`).digest('hex')}`;
    expect((await postRaw(raw, forged)).body.error.code).toBe('invalid_signature');
    await unchanged();
    expect(await recorded()).toEqual([]);
  });

  it('stale: a signature from more than 300 s ago, or a report older than the freshness bound', async () => {
    const old = await postSignedNotice(t, base(), now() - 301);
    expect(old).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature' } } });
    const stale = await postSignedNotice(t, statusNotice([{ network: 'polygon', healthy: false }], now() - 121));
    expect(stale).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', field: 'sent_at' } } });
    expect(stale.body.error.message).toMatch(/older than PROCESSOR_STATUS_FRESH_SECONDS/);
    const ahead = await postSignedNotice(t, statusNotice([{ network: 'polygon', healthy: false }], now() + 301));
    expect(ahead.status).toBe(400);
    await unchanged();
    // The two signed with the processor's secret are kept; the one whose signature was stale is not.
    expect(await recorded()).toHaveLength(2);
  });

  it.each([
    ['a coin not of the network', (n: any) => { n.networks[0].coins = ['polygon_usdc']; }, 'networks.0.coins'],
    ['a network not watched', (n: any) => { n.networks[0].network = 'solana'; }, 'networks.0.network'],
    ['a block number that is not a decimal string', (n: any) => { n.networks[0].head_block = 123; }, 'networks.0.head_block'],
    ['a negative block', (n: any) => { n.networks[0].final_block = '-1'; }, 'networks.0.final_block'],
    ['healthy missing', (n: any) => { delete n.networks[0].healthy; }, 'networks.0.healthy'],
    ['no networks', (n: any) => { n.networks = []; }, 'networks'],
    ['a network twice', (n: any) => { n.networks = [n.networks[0], n.networks[0]]; }, 'networks'],
    ['sent_at not a number', (n: any) => { n.sent_at = 'now'; }, 'sent_at'],
    ['an unknown type', (n: any) => { n.type = 'processor.health'; }, 'type'],
  ])('malformed: %s', async (_what, spoil, field) => {
    const notice = base();
    spoil(notice);
    const answer = await postSignedNotice(t, notice);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', field });
    await unchanged();
    expect(await recorded()).toEqual([{ outcome: 'rejected', reason: expect.any(String), kind: null }]);
  });
});

it('the money notices keep their shape and their own refusal', async () => {
  const answer = await postSignedNotice(t, { id: 'ntc_1', type: 'deposit.confirmed', deposit_address: '0x' + 'ab'.repeat(20) });
  expect(answer).toMatchObject({ status: 200, body: { outcome: 'rejected', reason: 'No Live payment has this deposit address.' } });
  const unknown = await postSignedNotice(t, { id: 'ntc_2', type: 'deposit.lost', deposit_address: '0x' + 'ab'.repeat(20) });
  expect(unknown.body.error.message).toBe('type must be deposit.confirmed, settlement.completed, sweep.completed, x402.submitted, x402.refused, x402.final or processor.status.');
});
