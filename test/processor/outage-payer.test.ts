import { afterAll, beforeAll, expect, it } from 'vitest';
import { toChecksumAddress } from '../../src/core/deposit-addresses.ts';
import { startProcessor, type Processor } from '../../src/processor/processor.ts';
import { startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { startPolygonChain, usdc, type PolygonTestChain } from '../support/processor-chain.ts';

// The RPC node goes away after a buyer was shown a deposit address, on a real EDR chain behind the
// proxy: the payer page keeps the address and says confirmation may take longer (never "don't
// send any money"), new starts are refused, and the money sent meanwhile is found and the payment
// paid once the node answers again.

const DEPTH = 2;
const rpc = { timeoutMs: 1_500, retryDelayMs: 10, rounds: 2 };

let t: TestApp;
let polygonChain: PolygonTestChain;
let processor: Processor;
let key: string;
const logs: string[] = [];

beforeAll(async () => {
  polygonChain = await startPolygonChain({ depth: DEPTH });
  const { tokens, proxy } = polygonChain;
  t = await startTestApp({
    RATE_LIMITS: 'off', POLYGON_RPC_URL: proxy.url, POLYGON_CONFIRMATIONS: String(DEPTH), POLYGON_USDC: tokens.address.usdc, POLYGON_USDT: tokens.address.usdt,
  }, { clockStart: Date.now(), realOrigin: true });
  processor = await startProcessor({
    db: t.db, databaseUrl: t.config.databaseUrl!, clock: t.clock, networks: [polygonChain.polygon],
    sender: { url: `${t.url}/processor/notices`, secret: TEST_PROCESSOR_SECRET }, deposits: t.context.deposits,
  }, { manual: true, rpc, log: (line) => logs.push(line) });
  await processor.poll();
  key = (await (await t.business({ name: 'Kestrel Coffee Roasters' })).key({ mode: 'live' })).secret;
}, 120_000);

afterAll(async () => {
  await processor?.stop();
  await polygonChain?.stop();
  await t?.close();
});

async function api(method: string, path: string, body?: unknown) {
  return t.request(method, path, { key, body });
}

const payerPage = async (id: string) => {
  const response = await fetch(`${t.url}/pay/${id}`);
  expect(response.status).toBe(200);
  return response.text();
};

it('keeps a shown address valid through an outage, refuses only new starts, and pays once the node is back', async () => {
  await processor.reportStatus();
  const session = await api('POST', '/v1/checkout_sessions', { amount: '30.00', currency: 'USD' });
  const begun = await api('POST', `/v1/checkout_sessions/${session.body.id}/start`, { email: 'ann@buyer.example' });
  expect(begun.status, JSON.stringify(begun.body)).toBe(200);
  const address = String(begun.body.deposit_address).toLowerCase() as `0x${string}`;
  const shown = toChecksumAddress(address.slice(2));
  expect(await payerPage(session.body.id)).toContain(shown);
  await expect.poll(() => processor.detection.watched.has(address), { timeout: 5_000, interval: 20 }).toBe(true);

  // The node goes away: the scan fails, and the processor says so.
  polygonChain.proxy.set({ down: true });
  await processor.poll();
  await processor.reportStatus();
  const report = await t.db.selectFrom('processor_networks').selectAll().where('network', '=', 'polygon').executeTakeFirstOrThrow();
  expect(report.healthy).toBe(false);
  expect(report.problem).toContain(`${polygonChain.proxy.url}: connection closed`);

  // The buyer pays meanwhile: the chain takes it, the processor cannot see it yet.
  await polygonChain.tokens.transfer('usdc', polygonChain.chain.accounts.buyer, address, usdc(30));
  await polygonChain.chain.mine(DEPTH + 1);
  await processor.poll();

  const page = await payerPage(session.body.id);
  expect(page).not.toContain('send any money');
  expect(page).not.toContain('take payments right now');
  expect(page).toContain('Confirmation on Polygon may take longer than usual right now. This address stays valid');
  expect(page, 'the address is still shown').toContain(shown);

  // A new buyer is not given an address that nothing watches now.
  const other = await api('POST', '/v1/checkout_sessions', { amount: '5.00', currency: 'USD' });
  const refused = await api('POST', `/v1/checkout_sessions/${other.body.id}/start`, { email: 'bo@buyer.example' });
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe('payments_unavailable');
  expect(await payerPage(other.body.id)).toContain('take payments right now');

  // The node is back: the deposit made during the outage is found, and the payment paid.
  polygonChain.proxy.set({});
  await processor.poll();
  await expect.poll(async () => (await api('GET', `/v1/payments/${session.body.id}`)).body.status, { timeout: 5_000, interval: 50 }).toBe('paid');
  expect(logs.some((line) => line.includes('polygon: scanning again after'))).toBe(true);
  await processor.reportStatus();
  expect((await t.db.selectFrom('processor_networks').select(['healthy', 'problem']).where('network', '=', 'polygon').executeTakeFirstOrThrow()))
    .toEqual({ healthy: true, problem: null });
  expect(await payerPage(session.body.id)).toContain('Thank you: paid');
});
