import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { freePort, startTestApp, TEST_SECRETS, type TestApp } from '../support/harness.ts';

// `npm run chain` as a developer runs it (docs/run-it.md, "Live on a local chain"): the script and the
// service as real processes on real time, a Live payment started through the service's API, the
// dev buyer paying it with `npm run chain -- pay`, and the payment turning paid, then forwarded.

const ROOT = path.join(import.meta.dirname, '../..');
const PAYOUT = '0x2222222222222222222222222222222222222222';

let t: TestApp;
let dataDir: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  t = await startTestApp();
  dataDir = await mkdtemp(path.join(tmpdir(), 'local-chain-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

function spawnLogged(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  children.push(child);
  return { child, output: () => output };
}

it('starts a chain posing as Polygon, and a Live deposit on it turns paid and is forwarded', async () => {
  const chainPort = await freePort();
  const chain = spawnLogged(['scripts/local-chain.ts', '--port', String(chainPort), '--block-seconds', '1'], { DATA_DIR: dataDir, HARDHAT_DISABLE_TELEMETRY: 'true' });
  await vi.waitFor(() => expect(chain.output()).toContain('Ctrl-C stops the chain'), { timeout: 60_000, interval: 100 });
  const settings = Object.fromEntries([...chain.output().matchAll(/^([A-Z_]+)=(\S+)$/gm)].map((match) => [match[1]!, match[2]!]));
  expect(Object.keys(settings)).toEqual(['POLYGON_RPC_URL', 'POLYGON_CHAIN_ID', 'POLYGON_CONFIRMATIONS', 'POLYGON_USDC', 'POLYGON_USDT', 'POLYGON_MULTICALL', 'PROCESSOR_FEE_WALLET']);
  expect(settings).toMatchObject({ POLYGON_RPC_URL: `http://127.0.0.1:${chainPort}`, POLYGON_CHAIN_ID: '137', POLYGON_CONFIRMATIONS: '2' });
  // The same contracts on every run: from fixed dev keys.
  expect(settings.POLYGON_USDC).toBe('0x2c5dc5d9D73E8Dc798F1251D5De6e3aD1AC0918d');

  // A second chain on the same port is refused in a sentence.
  const taken = await promisify(execFile)(process.execPath, ['scripts/local-chain.ts', '--port', String(chainPort)], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir } })
    .then(() => undefined, (error: { code: number; stderr: string }) => error);
  expect(taken?.code).toBe(1);
  expect(taken?.stderr).toContain(`Port ${chainPort} on 127.0.0.1 is taken`);

  const port = await freePort();
  const service = spawnLogged(['src/main.ts'], {
    ...settings, DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', FX_RATES_URL: 'off',
    SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), PORT: String(port), HOST: '127.0.0.1',
  });
  const base = `http://127.0.0.1:${port}`;
  await vi.waitFor(async () => expect((await fetch(`${base}/healthz`)).status).toBe(200), { timeout: 30_000, interval: 200 });

  const business = await t.business({ payoutWallet: PAYOUT });
  const live = (await business.key({ mode: 'live' })).secret;
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method, headers: { authorization: `Bearer ${live}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() as Record<string, any> };
  };
  const session = await api('POST', '/v1/checkout_sessions', { amount: '30.00', currency: 'USD' });
  expect(session.status).toBe(201);
  // The service offers Polygon once the processor reported it healthy (its first status follows its first scan).
  let address = '';
  await vi.waitFor(async () => {
    const started = await api('POST', `/v1/checkout_sessions/${session.body.id}/start`, { email: 'ann@buyer.example' });
    expect(started.body.deposit_address, JSON.stringify(started.body)).toMatch(/^0x[0-9a-fA-F]{40}$/);
    address = started.body.deposit_address;
  }, { timeout: 40_000, interval: 500 });

  const paid = await promisify(execFile)(process.execPath, ['scripts/local-chain.ts', 'pay', address, '30.00', '--port', String(chainPort)], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
  expect(paid.stdout).toContain(`Sent 30.00 USDC from the dev buyer to ${address}`);

  const payment = () => t.db.selectFrom('payments').select(['status', 'txid_out', 'merchant_received']).where('id', '=', String(session.body.id)).executeTakeFirstOrThrow();
  await vi.waitFor(async () => expect(await payment(), service.output()).toMatchObject({ status: 'paid' }), { timeout: 30_000, interval: 250 });
  await vi.waitFor(async () => expect((await payment()).txid_out, service.output()).toMatch(/^0x[0-9a-f]{64}$/), { timeout: 40_000, interval: 250 });
  // The net of the fee the business's terms fix (1 % by default).
  expect(Number((await payment()).merchant_received)).toBe(29.7);
}, 240_000);
