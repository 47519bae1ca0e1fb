import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, SECOND } from '../../src/core/clock.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { WAITING_TO_BE_FORWARDED } from '../../src/dashboard/wording.ts';
import { ProcessorKeys } from '../../src/processor/chain/keys.ts';
import { FORWARD_LATE_AFTER_MS } from '../../src/processor/forwarding/forwarding-health.ts';
import { registerForwardingMetrics } from '../../src/processor/forwarding/forwarding-metrics.ts';
import { retryFailedForwards, startForwarding, type Forwarding } from '../../src/processor/forwarding/forwarding.ts';
import { startProcessor, STATUS_EVERY_MS, type Processor } from '../../src/processor/processor.ts';
import type { Browser } from '../support/browser.ts';
import { deployMulticall } from '../support/chain-multicall.ts';
import { runCli } from '../support/cli.ts';
import { signIn } from '../support/dashboard.ts';
import { startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc, type PolygonTestChain } from '../support/processor-chain.ts';
import { startSmtpPeer, untilTicked, type SmtpPeer } from '../support/smtp.ts';

// Issue 30, must-have 5: a forward that cannot happen is seen where people look. With the gas
// wallet emptied on a real EDR chain posing as Polygon, a Live payment is paid and its forward
// fails: within a minute the merchant's payment page, home page and go-live checklist say so
// (rendered over HTTP for a signed-in owner), the operator is mailed once (a real SMTP peer), and
// `processor status` from a CLI with only the database names the forward and why. Funded again,
// it is forwarded and every sign clears by itself.

const DEPTH = 2;
const OPERATOR = 'ops@payments.example';
const rpc = { timeoutMs: 1_500, retryDelayMs: 10, rounds: 2 };

let t: TestApp;
let smtp: SmtpPeer;
let polygonChain: PolygonTestChain;
let polygon: NetworkConfig;
let forwarding: Forwarding;
let processor: Processor;
let keys: ProcessorKeys;
let owner: Browser;
let businessId: string;
let key: string;
let dataDir: string;
const logs: string[] = [];

const paymentRow = (id: string) => t.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const page = (rest: string) => `/dashboard/businesses/${businessId}/live/${rest}`;
/** The processor's forwarding series as a scraper reads them now. */
async function scrapeForwarding(): Promise<string> {
  const registry = new Registry();
  registerForwardingMetrics(registry, t.db, ['polygon'], () => t.clock.now());
  return registry.metrics();
}
const mailsToOperator = () => smtp.received.filter((mail) => mail.to.includes(OPERATOR));
/** The text a person reads, tags dropped and entities decoded. */
const readable = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, '\'').replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/\s+/g, ' ');

/** A Live session started through the API: its id and deposit address. */
async function started(amount: string): Promise<{ id: string; address: Address }> {
  const session = (await t.request('POST', '/v1/checkout_sessions', { key, body: { amount, currency: 'USD', description: 'Ethiopia Guji, 1 kg' } })).body;
  const begun = await t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key, body: { email: 'ann@buyer.example' } });
  expect(begun.status, JSON.stringify(begun.body)).toBe(200);
  const address = String(begun.body.deposit_address).toLowerCase() as Address;
  await expect.poll(() => processor.detection.watched.has(address), { timeout: 5_000, interval: 20 }).toBe(true);
  return { id: session.id as string, address };
}

/** One poll of the processor STATUS_EVERY_MS later, and its status report: the most a change waits to be told. */
async function pollAndReport(): Promise<void> {
  await t.tick(STATUS_EVERY_MS);
  await processor.poll();
  await processor.reportStatus();
}

beforeAll(async () => {
  [smtp, polygonChain, dataDir] = await Promise.all([startSmtpPeer(), startPolygonChain({ depth: DEPTH }), mkdtemp(path.join(tmpdir(), 'failures-seen-'))]);
  t = await startTestApp({
    RATE_LIMITS: 'off', SMTP_URL: smtp.url, OPERATOR_EMAIL: OPERATOR,
    POLYGON_RPC_URL: polygonChain.proxy.url, POLYGON_CONFIRMATIONS: String(DEPTH),
    POLYGON_USDC: polygonChain.tokens.address.usdc, POLYGON_USDT: polygonChain.tokens.address.usdt,
  }, { workers: true, clockStart: Date.now() });
  const { chain } = polygonChain;
  polygon = { ...polygonChain.polygon, multicall: (await deployMulticall(chain)).toLowerCase() as Address };
  keys = new ProcessorKeys(Buffer.alloc(32, 7));
  await chain.fund(keys.gasWallet.address, 10n ** 18n);
  const feeWallet = (await chain.newAccount()).address.toLowerCase() as Address;
  const payout = (await chain.newAccount()).address.toLowerCase();
  forwarding = await startForwarding({ db: t.db, clock: t.clock, networks: [polygon], keys, feeWallet }, { rpc, log: (line) => logs.push(line) });
  processor = await startProcessor({
    db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygon],
    sender: { url: `${t.url}/processor/notices`, secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
    steps: [forwarding.forwardNetwork],
  }, { manual: true, rpc, log: (line) => logs.push(line) });
  const business = await t.business({ name: 'Kestrel Coffee Roasters', payoutWallet: payout, feeBps: 150 });
  businessId = business.id;
  key = (await business.key({ mode: 'live' })).secret;
  await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: 'https://shop.kestrelcoffee.example/hooks' } });
  const ownerEmail = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', businessId).where('m.role', '=', 'owner').executeTakeFirstOrThrow()).email;
  owner = await signIn(t, ownerEmail);
  await processor.poll();
  await processor.reportStatus();
}, 120_000);

afterAll(async () => {
  await processor?.stop();
  await forwarding?.stop();
  await polygonChain?.stop();
  await t?.close();
  await smtp?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the gas wallet emptied', () => {
  let payment: { id: string; address: Address };
  let failedAt: number;

  it('a paid payment\'s forward fails: within a minute its page, the home page and the checklist say so', async () => {
    // Healthy first: the checklist is done, the home page has nothing waiting.
    expect(readable((await owner.visit(page('home'))).html)).toContain('Done: Networks watched by a healthy processor');
    payment = await started('30.00');
    await polygonChain.chain.fund(keys.gasWallet.address, 0n);
    await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, payment.address, usdc(30));
    await polygonChain.chain.mine(DEPTH);
    const finalAt = t.clock.now().getTime();
    for (let i = 0; i < 4 && (await paymentRow(payment.id)).status !== 'paid'; i += 1) await pollAndReport();
    expect((await paymentRow(payment.id)).status).toBe('paid');
    const forward = await t.db.selectFrom('processor.forwards').selectAll().where('payment_id', '=', payment.id).executeTakeFirstOrThrow();
    expect(forward.state).toBe('failed');
    expect(forward.failure).toMatch(/holds 0 of polygon's native coin .*: fund it/);
    await pollAndReport();
    failedAt = t.clock.now().getTime();
    expect(failedAt - finalAt).toBeLessThanOrEqual(MINUTE);

    const paymentPage = readable((await owner.visit(page(`payments/${payment.id}`))).html);
    expect(paymentPage).toContain(`Reached you ${WAITING_TO_BE_FORWARDED}.`);
    expect(paymentPage).toMatch(/Could not be sent since .*: the gas wallet 0x[0-9a-f]{40} holds 0 of polygon's native coin/);
    expect(paymentPage).not.toContain('Reached you –');

    const home = readable((await owner.visit(page('home'))).html);
    expect(home).toContain('Payments waiting to be forwarded');
    expect(home).toContain(`1 payment has not reached your payout wallet in time. ${WAITING_TO_BE_FORWARDED}`);
    expect(home).toContain('Ethiopia Guji, 1 kg');
    expect(home).toContain('To do: Networks watched by a healthy processor');
    const settings = readable((await owner.visit(page('settings'))).html);
    expect(settings).toContain('To do: Networks watched by a healthy processor');
    expect(await scrapeForwarding()).toContain('processor_forwarding_healthy{network="polygon"} 0');
    expect(settings).toMatch(/Polygon \(USDC\): watched, but its payments are not forwarded now; the service's operator has been told, "The gas wallet 0x[0-9a-f]{40} holds 0 of polygon's native coin, too little to pay for a forward: fund it\."/);
  });

  it('OPERATOR_EMAIL is an address, or the service refuses to start in one sentence', () => {
    expect(loadConfig({ OPERATOR_EMAIL: 'OPS@Payments.example' }).mail.operatorEmail).toBe('ops@payments.example');
    expect(() => loadConfig({ OPERATOR_EMAIL: 'ops at payments' })).toThrow('OPERATOR_EMAIL: an email address (ops@example.com)');
  });

  it('mails OPERATOR_EMAIL once, naming the payment, and not again within the hour; an hour later, again', async () => {
    const [mail] = await untilTicked(t, () => {
      expect(mailsToOperator()).toHaveLength(1);
      return mailsToOperator();
    });
    expect(mail!.subject).toBe('Forwards on polygon cannot happen');
    expect(mail!.text).toContain(`Forwards on polygon cannot happen: The gas wallet ${keys.gasWallet.address.toLowerCase()} holds 0 of polygon's native coin`);
    expect(mail!.text).toContain(`- ${payment.id} (deposit address ${payment.address}), failed, waiting since `);
    expect(mail!.text).toContain('This mail is sent at most once an hour for this cause (polygon:gas_wallet).');
    for (let i = 0; i < 3; i += 1) await pollAndReport();
    await t.tick(10 * SECOND);
    expect(mailsToOperator()).toHaveLength(1);
    expect(await t.db.selectFrom('outbox').select('recipient').where('kind', '=', 'operator_alert').execute()).toEqual([{ recipient: OPERATOR }]);

    await t.jump(HOUR);
    await pollAndReport();
    await untilTicked(t, () => expect(mailsToOperator()).toHaveLength(2));
  });

  it('processor status --json from a CLI with only DATABASE_URL names the failing forward and its reason', async () => {
    const forward = await t.db.selectFrom('processor.forwards').selectAll().where('payment_id', '=', payment.id).executeTakeFirstOrThrow();
    const { code, stdout, stderr } = await runCli(t, ['processor', 'status', '--json'], {
      DATA_DIR: dataDir, POLYGON_RPC_URL: undefined, POLYGON_CONFIRMATIONS: undefined, POLYGON_USDC: undefined, POLYGON_USDT: undefined,
      BASE_RPC_URL: undefined, ETHEREUM_RPC_URL: undefined, OPERATOR_EMAIL: undefined,
    });
    expect(code, stderr).toBe(0);
    const [shown] = JSON.parse(stdout).networks;
    expect(shown).toMatchObject({
      network: 'polygon', configured: false,
      forwards: { failed: 1, failures: [{ id: forward.id, payment_id: payment.id, deposit_address: payment.address, reason: forward.failure }] },
      forwarding: {
        healthy: false, trouble: 'gas_wallet', failed: 1,
        delayed: [{ forward_id: forward.id, payment_id: payment.id, deposit_address: payment.address, state: 'failed', reason: forward.failure }],
      },
    });
    expect(shown.forwarding.problem).toMatch(/^The gas wallet 0x[0-9a-f]{40} holds 0 of polygon's native coin, too little to pay for a forward: fund it\.$/);
    const text = (await runCli(t, ['processor', 'status'], { DATA_DIR: dataDir, POLYGON_RPC_URL: undefined, BASE_RPC_URL: undefined, ETHEREUM_RPC_URL: undefined })).stdout;
    expect(text).toContain(`  failed: ${payment.id} (${payment.address}): ${forward.failure}`);
    expect(text).toContain('  forwarding: CANNOT HAPPEN: The gas wallet ');
    expect(text).not.toContain('not configured here');
  });

  it('funded again: forwarded, and the page, the home page and the checklist clear by themselves', async () => {
    await polygonChain.chain.fund(keys.gasWallet.address, 10n ** 18n);
    // The operator's "try again now" (its back-off grew during the hour).
    expect(await retryFailedForwards(t.db, t.clock, 'polygon')).toBe(1);
    for (let i = 0; i < 12 && (await paymentRow(payment.id)).txid_out === null; i += 1) {
      await processor.poll();
      await polygonChain.chain.mine(1);
    }
    expect((await paymentRow(payment.id)).merchant_received).toBe('29.550000');
    await pollAndReport();
    const paymentPage = readable((await owner.visit(page(`payments/${payment.id}`))).html);
    expect(paymentPage).toContain('Reached you 29.55 USDC on Polygon');
    expect(paymentPage).not.toContain(WAITING_TO_BE_FORWARDED);
    const home = readable((await owner.visit(page('home'))).html);
    expect(home).not.toContain('Payments waiting to be forwarded');
    expect(home).toContain('Done: Networks watched by a healthy processor');
    expect(await scrapeForwarding()).toContain('processor_forwarding_healthy{network="polygon"} 1');
  });
});

it(`a forward not final ${FORWARD_LATE_AFTER_MS / MINUTE} minutes after it was written (its broadcasts refused) is late: shown and told the same way`, async () => {
  const late = await started('12.00');
  await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, late.address, usdc(12));
  await polygonChain.chain.mine(DEPTH);
  // The node takes no transaction: the forward is signed and waits, neither failed nor final.
  polygonChain.proxy.set({ tooManyRequests: Infinity, only: ['eth_sendRawTransaction'] });
  try {
    for (let i = 0; i < 4 && (await paymentRow(late.id)).status !== 'paid'; i += 1) await pollAndReport();
    expect((await paymentRow(late.id)).status).toBe('paid');
    const forward = await t.db.selectFrom('processor.forwards').select('state').where('payment_id', '=', late.id).executeTakeFirstOrThrow();
    expect(forward.state).toBe('sending');
    expect(readable((await owner.visit(page(`payments/${late.id}`))).html)).not.toContain(WAITING_TO_BE_FORWARDED);
    await t.tick(FORWARD_LATE_AFTER_MS);
    await pollAndReport();
    const paymentPage = readable((await owner.visit(page(`payments/${late.id}`))).html);
    expect(paymentPage).toContain(`Reached you ${WAITING_TO_BE_FORWARDED}.`);
    const scraped = await scrapeForwarding();
    expect(scraped).toContain('processor_forwards_late{network="polygon"} 1');
    expect(scraped).toContain('processor_forwarding_healthy{network="polygon"} 0');
    expect(paymentPage).toMatch(/Not confirmed yet since .*: Not confirmed on the chain after 1\d minutes\./);
    await untilTicked(t, () => expect(smtp.received.filter((mail) => mail.to.includes(OPERATOR) && mail.text.includes('(polygon:forwards_late)'))).toHaveLength(1));
  } finally {
    polygonChain.proxy.set({});
  }
});
