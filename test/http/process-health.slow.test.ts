import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { freePort, startTestApp, TEST_SECRETS, type TestApp } from '../support/harness.ts';

// The real process (src/main.ts) by role: a --role worker process serves no API, and answers
// /healthz, /readyz (its workers included) and /metrics (behind METRICS_TOKEN) on METRICS_PORT
// only; a --role api process has no workers to be ready for. Real processes on real time.

const TOKEN = 'process-metrics-token-0123456789abcdef';

let t: TestApp;
let dataDir: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  t = await startTestApp();
  dataDir = await mkdtemp(path.join(tmpdir(), 'process-health-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function startProcess(role: 'api' | 'worker'): Promise<{ child: ChildProcess; port: number; metricsPort: number }> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ['src/main.ts', '--role', role], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', FX_RATES_URL: 'off',
      SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), PORT: String(port), METRICS_PORT: String(metricsPort), METRICS_TOKEN: TOKEN,
    },
    stdio: 'ignore',
  });
  children.push(child);
  await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(200), { timeout: 30_000, interval: 200 });
  return { child, port, metricsPort };
}

async function stops(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

it('a worker process answers health, readiness and metrics on METRICS_PORT, and serves nothing else', async () => {
  const { child, port, metricsPort } = await startProcess('worker');
  const base = `http://127.0.0.1:${metricsPort}`;
  await vi.waitFor(async () => expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok', workers: 'ok' } }), { timeout: 10_000 });
  expect((await fetch(`${base}/metrics`)).status).toBe(401);
  const metrics = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  // The process's own metrics too.
  expect(metrics).toContain('# TYPE process_cpu_user_seconds_total counter');
  expect(metrics).toContain('# TYPE webhook_deliveries_due gauge');
  await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  expect(await stops(child)).toBe(0);
}, 60_000);

it('an API process is ready without workers, on both its listeners', async () => {
  const { child, port, metricsPort } = await startProcess('api');
  for (const base of [`http://127.0.0.1:${port}`, `http://127.0.0.1:${metricsPort}`]) {
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok' } });
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  }
  expect(await stops(child)).toBe(0);
}, 60_000);
