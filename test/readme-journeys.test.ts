import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestApp, type TestApp } from './support/harness.ts';

// The README's copy-paste journeys, run as a reader would run them: the session journey in bash
// with curl against the running service, and the Python receiver (standard library only)
// receiving that journey's real, signed deliveries. A README edit that breaks either fails here.

/** The fenced code block after `<!-- journey: name -->` in the README. */
async function journey(name: string): Promise<string> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const marker = readme.indexOf(`<!-- journey: ${name} -->`);
  expect(marker, `README has no journey ${name}`).toBeGreaterThan(-1);
  const block = /```\w*\n([\s\S]*?)\n```/.exec(readme.slice(marker));
  return block![1]!;
}

const has = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs `script` in bash, failing on the first failing command; its stdout and stderr. */
function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function until<T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let t: TestApp;
let key: string;
let folder: string;
const python = has('python3');
let receiver: ChildProcess | undefined;
let printed = '';
let receiverPort = 0;
let secret = '';

beforeAll(async () => {
  // The service's clock at the real time: the Python receiver checks the signature's timestamp
  // against its own clock, as a real receiver does.
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true, clockStart: Date.now() });
  key = (await (await t.business()).key({ mode: 'test' })).secret;
  folder = await mkdtemp(path.join(tmpdir(), 'readme-journeys-'));
});
afterAll(async () => {
  receiver?.kill();
  await t?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe.runIf(python)('the Python receiver (standard library only)', () => {
  beforeAll(async () => {
    receiverPort = await freePort();
    const endpoint = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `http://127.0.0.1:${receiverPort}/webhooks` } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    secret = endpoint.body.secret;
    await writeFile(path.join(folder, 'receiver.py'), await journey('python-receiver'));
    receiver = spawn('python3', [path.join(folder, 'receiver.py')], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(receiverPort) }, stdio: ['ignore', 'pipe', 'pipe'] });
    receiver.stdout!.on('data', (chunk) => { printed += chunk; });
    // Up when it answers: an unsigned POST is refused with 400.
    for (let tries = 0; ; tries += 1) {
      const answer = await fetch(`http://127.0.0.1:${receiverPort}/webhooks`, { method: 'POST', body: '{}' }).catch(() => undefined);
      if (answer) { expect(answer.status).toBe(400); break; }
      if (tries > 100) throw new Error('the Python receiver did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  const post = (body: string, signature: string) =>
    fetch(`http://127.0.0.1:${receiverPort}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'service-signature': signature }, body });
  const sign = (body: string, timestamp: number, withSecret = secret) => createHmac('sha256', withSecret).update(`${timestamp}.${body}`).digest('hex');

  it('refuses a changed body, an old timestamp, another secret and a malformed header, and takes a second v1 (a rolled secret)', async () => {
    const body = JSON.stringify({ id: 'evt_readme', type: 'ping' });
    const now = Math.floor(Date.now() / 1000);
    expect((await post(`${body} `, `t=${now},v1=${sign(body, now)}`)).status).toBe(400);
    expect((await post(body, `t=${now - 301},v1=${sign(body, now - 301)}`)).status).toBe(400);
    expect((await post(body, `t=${now},v1=${sign(body, now, 'whsec_other')}`)).status).toBe(400);
    expect((await post(body, `t=${now},v1=${sign(body, now).toUpperCase()}`)).status).toBe(400);
    expect((await post(body, `v1=${sign(body, now)},t=${now}`)).status).toBe(400);
    expect((await post(body, `t=${now},v1=${sign(body, now, 'whsec_old')},v1=${sign(body, now)}`)).status).toBe(200);
    await until(() => printed.includes('ping evt_readme'));
  });

  describe.runIf(has('curl'))('and the session journey in bash with curl', () => {
    it('creates, starts, pays and reads the order; the receiver verifies and prints payment.started and payment.paid', async () => {
      const script = (await journey('session'))
        .replace(/^BASE=.*$/m, `BASE=${t.url}`)
        .replace(/^KEY=.*$/m, `KEY=${key}`);
      const run = await bash(script);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const answers = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
      const [started, simulated, order] = answers;
      expect(started.status).toBe('open');
      expect(started.started_at).toEqual(expect.any(Number));
      expect(simulated.status).toBe('paid');
      expect(order).toMatchObject({ object: 'order', status: 'paid', amount_paid: '25.00', payment_ids: [started.id] });
      const lines = await until(() => {
        const events = printed.split('\n').filter((line) => line.startsWith('payment.'));
        return events.length >= 2 && events;
      });
      expect(lines.map((line) => line.split(' ')[0]).sort()).toEqual(['payment.paid', 'payment.started']);
      // The journey run twice: the Idempotency-Key answers the same session, which is paid now.
      const again = await bash(script);
      expect(again.stdout.split('\n')[0]).toContain('"code":"invalid_state"');
    });
  });
});
