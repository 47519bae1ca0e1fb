import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { signIn } from '../support/dashboard.ts';
import { postSignedNotice, statusNotice } from '../support/processor-status.ts';
import { freePort, startTestApp, TEST_SECRETS, type TestApp } from '../support/harness.ts';

// The all-in-one (`npm start`, src/main.ts) with Polygon's RPC URL pointing at a loopback port
// where nothing listens, its API key in the path: the process keeps running and serves Test mode;
// the log, the processor.status notice, `processor status` and the metrics name the URL's origin
// and the cause, never the key; nothing of the processor's or the service's stores the key.

const SECRET = 'SECRETKEY123';

let t: TestApp;
let dataDir: string;
let child: ChildProcess;
let port: number;
let metricsPort: number;
let rpcOrigin: string;
let stdout = '';
let stderr = '';

beforeAll(async () => {
  t = await startTestApp();
  dataDir = await mkdtemp(path.join(tmpdir(), 'outage-start-'));
  [port, metricsPort] = [await freePort(), await freePort()];
  rpcOrigin = `http://127.0.0.1:${await freePort()}`;
  child = spawn(process.execPath, ['src/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, FX_RATES_URL: 'off', LOG_LEVEL: 'silent',
      SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), PORT: String(port), METRICS_PORT: String(metricsPort),
      POLYGON_RPC_URL: `${rpcOrigin}/v2/${SECRET}?apikey=${SECRET}`, PROCESSOR_FEE_WALLET: '0x2222222222222222222222222222222222222222',
      PROCESSOR_POLL_MS: '500',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  await vi.waitFor(() => expect(stdout).toContain('Watching polygon for Live deposits'), { timeout: 30_000, interval: 100 });
}, 60_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

it('keeps running with the node down, says which origin and why, and serves Test mode over HTTP', async () => {
  expect(stdout).toContain(`Payment Service is running at`);
  expect(stderr).toContain(`polygon: eth_chainId failed on every RPC URL (${rpcOrigin}: connection refused)`);
  expect(stderr).toContain('retried with backoff');

  // A Test payment link, started and simulated paid, through the child's own API.
  const key = (await (await t.business({ name: 'Outage Test Shop' })).key({ mode: 'test' })).secret;
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}/v1${route}`, {
      method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() as any };
  };
  const link = await api('POST', '/payment_links', { amount: '12.00', currency: 'USD', description: 'Beans' });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  const started = await api('POST', `/checkout_sessions/${link.body.id}/start`, { email: 'ann@buyer.example' });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const paid = await api('POST', `/payments/${link.body.id}/simulate`, { outcome: 'paid' });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  expect(paid.body.status).toBe('paid');

  // Retried with backoff: still failing, still running, a second try logged.
  await vi.waitFor(() => expect(stderr).toMatch(/polygon: scan failed \(2 in a row; next try in \d+ s\)/), { timeout: 20_000, interval: 200 });
  expect(child.exitCode).toBeNull();
}, 60_000);

it('reports the network unhealthy, with the origin and the cause, in the notice, the status command and the metrics', async () => {
  const report = await vi.waitFor(async () => {
    const row = await t.db.selectFrom('processor_networks').selectAll().where('network', '=', 'polygon').executeTakeFirst();
    expect(row).toBeDefined();
    return row!;
  }, { timeout: 20_000, interval: 200 });
  expect(report.healthy).toBe(false);
  expect(report.problem).toContain(`${rpcOrigin}: connection refused`);

  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  expect(metrics).toMatch(/processor_scan_failing\{network="polygon"\} 1/);

  const cli = spawn(process.execPath, ['src/cli.ts', 'processor', 'status'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, POLYGON_RPC_URL: `${rpcOrigin}/v2/${SECRET}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let status = '';
  cli.stdout!.on('data', (chunk: Buffer) => { status += chunk.toString(); });
  await new Promise((resolve) => cli.once('exit', resolve));
  expect(status).toContain('polygon: NOT HEALTHY');
  expect(status).toContain(`${rpcOrigin}: connection refused`);
  expect(status).not.toContain(SECRET);
}, 60_000);

it('never shows or keeps the API key in the URL: not on the go-live checklist, not in any table, not in the log', async () => {
  const business = await t.business({ name: 'Checklist Shop' });
  const owner = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', business.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow();
  // Defence in depth: a processor that did not cut its URLs (an older one) is cut by the service as it receives.
  const leaky = `base: eth_chainId failed. URL: ${rpcOrigin}/v2/${SECRET} Request body: {"method":"eth_chainId"}`;
  const at = Math.floor(t.clock.now().getTime() / 1000);
  expect((await postSignedNotice(t, statusNotice([{ network: 'base', healthy: false, problem: leaky }], at))).status).toBe(200);
  // A refused one (too old) is kept with its body: cut too.
  expect((await postSignedNotice(t, statusNotice([{ network: 'base', healthy: false, problem: leaky }], at - 3_600), at)).status).toBe(400);
  expect((await t.db.selectFrom('processor_networks').select('problem').where('network', '=', 'base').executeTakeFirstOrThrow()).problem)
    .toBe(`base: eth_chainId failed. URL: ${rpcOrigin} Request body: {"method":"eth_chainId"}`);

  const browser = await signIn(t, owner.email);
  const page = await browser.visit(`/dashboard/businesses/${business.id}/live/settings`);
  expect(page.status).toBe(200);
  expect(page.html).toContain('not healthy');
  expect(page.html).toContain(`${rpcOrigin}: connection refused`);
  expect(page.html).toContain(`URL: ${rpcOrigin} Request body`);
  expect(page.html).not.toContain(SECRET);

  // Every row of every processor table, and the service's tables the processor writes to.
  const tables = await sql<{ name: string }>`SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND (table_schema = 'processor' OR table_name LIKE 'processor%')`.execute(t.db);
  expect(tables.rows.map((table) => table.name)).toEqual(expect.arrayContaining(['processor.network_scans', 'public.processor_networks']));
  for (const { name } of tables.rows) {
    const found = await sql<{ count: string }>`SELECT count(*) AS count FROM ${sql.raw(name)} AS t WHERE t::text LIKE ${`%${SECRET}%`}`.execute(t.db);
    expect(Number(found.rows[0]!.count), name).toBe(0);
  }
  const scans = await t.db.selectFrom('processor.network_scans').selectAll().where('network', '=', 'polygon').executeTakeFirstOrThrow();
  expect(scans.last_error).toContain(`${rpcOrigin}: connection refused`);
  expect(stdout + stderr).not.toContain(SECRET);
}, 60_000);
