import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from '../support/harness.ts';
import { answer, startReceiver, type Receiver } from '../support/receiver.ts';

// Stopping and crashing (issue: webhook delivery, 8): a graceful stop lets a delivery in flight
// finish; a worker killed mid-delivery loses nothing, the job comes back after its expiry and
// the event is delivered at least once. Both take real time: the delivery in flight is a
// receiver answering 300 ms late, and the killed worker is a process on the system clock.

const apps: TestApp[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function setUp(options: { workers: boolean; clockStart?: number }) {
  const t = await startTestApp({ RATE_LIMITS: 'off' }, options);
  apps.push(t);
  const receiver = await startReceiver();
  receivers.push(receiver);
  const key = (await (await t.business()).key()).secret;
  const endpoint = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `${receiver.url}/hooks` } });
  expect(endpoint.status).toBe(201);
  const start = async () => {
    const session = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '5.00', currency: 'USD', customer_email: 'buyer@example.com' } });
    expect((await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key, body: {} })).status).toBe(200);
  };
  const delivery = () => t.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.body.id).executeTakeFirstOrThrow();
  return { t, receiver, start, delivery };
}

it('a graceful stop waits for the delivery in flight, which is recorded', async () => {
  const { t, receiver, start, delivery } = await setUp({ workers: true });
  let answered = false;
  receiver.respond((_request, response) => {
    setTimeout(() => { answered = true; response.writeHead(200).end('ok'); }, 300);
  });
  await start();
  await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 5_000 });
  await t.jobs.stop();
  expect(answered).toBe(true);
  expect(await delivery()).toMatchObject({ status: 'succeeded', attempts: 1, last_status: 200 });
});

it('a worker process killed mid-delivery loses nothing: the job comes back after its expiry', async () => {
  // The worker is a real `--role worker` process on real time; the test's clock starts there too.
  const { t, receiver, start, delivery } = await setUp({ workers: false, clockStart: Date.now() });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'worker-'));
  let child: ChildProcess | undefined;
  try {
    receiver.respond(() => undefined); // never answers: the worker is mid-delivery when killed
    child = spawn(process.execPath, ['src/main.ts', '--role', 'worker'], {
      env: {
        PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', FX_RATES_URL: 'off',
        SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'),
      },
      stdio: 'ignore',
    });
    await start();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 20_000, interval: 100 });
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(await delivery()).toMatchObject({ status: 'pending', attempts: 0 });

    receiver.respond(answer(200, 'ok'));
    await t.workers();
    // Past the job's 60-second expiry, pg-boss's supervision fails it and retries it.
    for (let i = 0; i < 6 && receiver.received.length < 2; i += 1) await t.tick(MINUTE);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(2), { timeout: 10_000 });
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    await vi.waitFor(async () => expect(await delivery()).toMatchObject({ status: 'succeeded', attempts: 1 }));
  } finally {
    child?.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);
