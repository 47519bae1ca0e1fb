import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DepositAddresses } from '../../src/core/deposit-addresses.ts';
import { freePort, startTestApp, TEST_PROCESSOR_SECRET, TEST_SECRETS, type TestApp } from '../support/harness.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Issue 31, must have 6: the API role never reads the deposit seed. The embedded default's first
// start (`npm start`) writes the seed and, beside it, its account xpub; an API process started
// where the seed is not (kept on the processor's side only) reads the xpub and serves Live starts
// whose deposit addresses are that seed's. Real processes on real time, on the test's database.

let t: TestApp;
let dataDir: string;
let elsewhere: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  t = await startTestApp({}, { clockStart: Date.now() });
  dataDir = await mkdtemp(path.join(tmpdir(), 'api-without-seed-'));
  elsewhere = await mkdtemp(path.join(tmpdir(), 'processor-side-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(elsewhere, { recursive: true, force: true });
});

/** src/main.ts with `args` on the test's database and data folder, once it answers /healthz. */
async function start(args: string[]): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['src/main.ts', ...args], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', FX_RATES_URL: 'off',
      SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), PROCESSOR_SECRET: TEST_PROCESSOR_SECRET, PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => { text += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { text += chunk.toString(); });
  const base = `http://127.0.0.1:${port}`;
  await vi.waitFor(async () => expect((await fetch(`${base}/healthz`)).status, text).toBe(200), { timeout: 30_000, interval: 200 });
  return { child, base, output: () => text };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

it('the API started without access to the seed file still serves Live starts, on the seed\'s deposit addresses', async () => {
  // The first start: the embedded default makes its wallet in DATA_DIR.
  const first = await start([]);
  expect(await stop(first.child)).toBe(0);
  const seedFile = path.join(dataDir, 'deposit-wallet.seed');
  const seed = Buffer.from((await readFile(seedFile, 'utf8')).trim(), 'hex');
  const wallet = new DepositAddresses(HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0").publicExtendedKey);

  // The seed goes where only the processor is; the API process is left the xpub.
  await rename(seedFile, path.join(elsewhere, 'deposit-wallet.seed'));
  const api = await start(['--role', 'api']);
  const business = await t.business();
  const live = (await business.key({ mode: 'live' })).secret;
  const call = async (route: string, body: unknown) => {
    const response = await fetch(`${api.base}${route}`, { method: 'POST', headers: { authorization: `Bearer ${live}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() as Record<string, any> };
  };
  await reportProcessorStatus({ url: api.base, clock: t.clock });
  const session = await call('/v1/checkout_sessions', { amount: '40.00', currency: 'USD' });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  const { rows } = await sql<{ next: string }>`SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END AS next FROM deposit_address_index`.execute(t.db);
  const started = await call(`/v1/checkout_sessions/${session.body.id}/start`, { email: 'ann@buyer.example' });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body.deposit_address).toBe(wallet.address(Number(rows[0]!.next)));
  // It made no seed of its own: it read the xpub the first start wrote beside the seed, as private as the rest of the folder.
  expect(existsSync(seedFile)).toBe(false);
  expect((await readFile(path.join(dataDir, 'deposit-wallet.xpub'), 'utf8')).trim()).toBe(wallet.xpub);
  expect((await stat(path.join(dataDir, 'deposit-wallet.xpub'))).mode & 0o777).toBe(0o600);
  expect(await stop(api.child)).toBe(0);
}, 90_000);
