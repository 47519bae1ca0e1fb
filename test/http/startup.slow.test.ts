import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { freePort, startTestApp, TEST_SECRETS, type TestApp } from '../support/harness.ts';

// What `npm start` (src/main.ts, every role) tells the person who ran it: where the dashboard is
// and the next command; and its log at the default level: one line per request, without the query.

let t: TestApp;
let dataDir: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  t = await startTestApp();
  dataDir = await mkdtemp(path.join(tmpdir(), 'startup-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The real process on the test's database, at the default log level; its standard output as it comes. */
async function start(): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, FX_RATES_URL: 'off',
      SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => { text += chunk.toString(); });
  await vi.waitFor(() => expect(text).toContain('Dashboard: '), { timeout: 30_000, interval: 100 });
  return { child, port, output: () => text };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

it('on an empty database: the dashboard\'s address, the reference and the demo command; one log line per request, no query', async () => {
  const { child, port, output } = await start();
  const base = `http://localhost:${port}`;
  const lines = output().split('\n');
  expect(lines).toContain(`Payment Service is running at ${base} (API ${base}/v1, reference ${base}/docs).`);
  expect(lines).toContain(`Dashboard: ${base}/dashboard`);
  expect(lines).toContain('  npm run --silent cli -- demo');

  const id = 'startup-one-line-7c1d';
  const response = await fetch(`http://127.0.0.1:${port}/dashboard/sign-in?next=%2Fdashboard&email=ada%40secret.example`, { headers: { 'x-request-id': id } });
  expect(response.status).toBe(200);
  await vi.waitFor(() => expect(output()).toContain(id), { timeout: 5_000 });
  // Give a second line the time it would take to come.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const mine = output().split('\n').filter((line) => line.includes(id));
  expect(mine).toHaveLength(1);
  expect(JSON.parse(mine[0]!)).toMatchObject({ level: 30, requestId: id, method: 'GET', path: '/dashboard/sign-in', status: 200, ms: expect.any(Number), msg: 'request completed' });
  expect(output()).not.toContain('secret.example');
  expect(await stop(child)).toBe(0);
}, 60_000);

it('with a business: how to sign in, find the businesses and make a key', async () => {
  await t.business({ name: 'Already Here' });
  const { child, output } = await start();
  expect(output()).toContain('Sign in to the dashboard with a link:   npm run --silent cli -- login-link --email YOUR_EMAIL');
  expect(output()).toContain('Create an API key:                      npm run --silent cli -- keys create --business BUSINESS_ID --mode test');
  expect(output()).not.toContain('No business yet');
  expect(await stop(child)).toBe(0);
}, 60_000);
