import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestApp, type TestApp } from './support/harness.ts';

// The documentation's copy-paste journeys, run as a reader would run them: the README's first
// payment and the session journey in bash with curl against the running service, and the Node receiver (the typed client's
// verifyWebhook) and the Python one (standard library only) receiving that journey's real,
// signed deliveries. Each is the fenced block after its `<!-- journey: name -->` marker, in
// README.md or a guide in docs/, wherever it lives: exactly one file holds each marker, so a
// journey moved between files stays run, and a copy of it cannot go stale untested.

/** The Markdown files a journey may live in: README.md and docs/**.md. */
async function documents(): Promise<Array<{ path: string; text: string }>> {
  const { readdir } = await import('node:fs/promises');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const docs = (await readdir(path.join(root, 'docs'), { recursive: true })).filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name));
  return Promise.all(['README.md', ...docs].map(async (file) => ({ path: file, text: await readFile(path.join(root, file), 'utf8') })));
}

/** The fenced code block after `<!-- journey: name -->`, in the one file that holds it. */
async function journey(name: string): Promise<string> {
  const marker = `<!-- journey: ${name} -->`;
  const holders = (await documents()).filter((document) => document.text.includes(marker));
  expect(holders.map((holder) => holder.path), `exactly one file holds the journey ${name}`).toHaveLength(1);
  const text = holders[0]!.text;
  const block = /```\w*\n([\s\S]*?)\n```/.exec(text.slice(text.indexOf(marker)));
  return block![1]!;
}

const run = promisify(execFile);

/** A journey's script as a reader runs it, with the test service's address and a Test key in place of the placeholders. */
async function journeyFor(name: string, key: string): Promise<string> {
  return (await journey(name)).replace(/^BASE=.*$/m, `BASE=${t.url}`).replace(/^KEY=.*$/m, `KEY=${key}`);
}
const CLIENT = fileURLToPath(new URL('../client', import.meta.url));

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

/** A receiver from the README, run as its own process, printing what it accepted. */
interface Receiver {
  name: string;
  port: number;
  secret: string;
  printed: () => string;
  process: ChildProcess;
}

let t: TestApp;
let key: string;
let folder: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // The service's clock at the real time: the receivers check the signature's timestamp against
  // their own clock, as real receivers do.
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true, clockStart: Date.now() });
  key = (await (await t.business()).key({ mode: 'test' })).secret;
  folder = await mkdtemp(path.join(tmpdir(), 'readme-journeys-'));
  // The Node receiver imports the client as an installed package, as a reader's project would:
  // built here with the package's own build into the folder's node_modules (not into client/,
  // which test/client/package.test.ts packs meanwhile).
  const installed = path.join(folder, 'node_modules', '@payment-service', 'client');
  await mkdir(installed, { recursive: true });
  await copyFile(path.join(CLIENT, 'package.json'), path.join(installed, 'package.json'));
  await run(path.join(CLIENT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(CLIENT, 'tsconfig.json'), '--outDir', path.join(installed, 'dist')]);
  await writeFile(path.join(folder, 'receiver.mjs'), await journey('node-receiver'));
  await writeFile(path.join(folder, 'receiver.py'), await journey('python-receiver'));
  const programs: Array<[string, string[]]> = [['node', [process.execPath, path.join(folder, 'receiver.mjs')]]];
  if (has('python3')) programs.push(['python', ['python3', path.join(folder, 'receiver.py')]]);
  for (const [name, [command, ...args]] of programs) {
    const port = await freePort();
    const endpoint = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `http://127.0.0.1:${port}/webhooks` } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const child = spawn(command!, args, { cwd: folder, env: { ...process.env, WEBHOOK_SECRET: endpoint.body.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
    let printed = '';
    child.stdout!.on('data', (chunk) => { printed += chunk; });
    receivers.push({ name, port, secret: endpoint.body.secret, printed: () => printed, process: child });
    // Up when it answers: an unsigned POST is refused with 400.
    for (let tries = 0; ; tries += 1) {
      const answer = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body: '{}' }).catch(() => undefined);
      if (answer) { expect(answer.status).toBe(400); break; }
      if (tries > 100) throw new Error(`the ${name} receiver did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});
afterAll(async () => {
  for (const receiver of receivers) receiver.process.kill();
  await t?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const sign = (body: string, timestamp: number, secret: string) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

describe.each(['node', 'python'])('the %s receiver', (name) => {
  const receiver = () => receivers.find((candidate) => candidate.name === name);
  const post = (body: string, signature: string) =>
    fetch(`http://127.0.0.1:${receiver()!.port}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'service-signature': signature }, body });

  it.runIf(name === 'node' || has('python3'))('refuses a changed body, an old timestamp, another secret and a malformed header, and takes a second v1 (a rolled secret)', async () => {
    const { secret } = receiver()!;
    const body = JSON.stringify({ id: `evt_readme_${name}`, type: 'ping', created: Math.floor(Date.now() / 1000), data: { payment: null, order: null, customer: null } });
    const now = Math.floor(Date.now() / 1000);
    expect((await post(`${body} `, `t=${now},v1=${sign(body, now, secret)}`)).status).toBe(400);
    expect((await post(body, `t=${now - 301},v1=${sign(body, now - 301, secret)}`)).status).toBe(400);
    expect((await post(body, `t=${now},v1=${sign(body, now, 'whsec_other')}`)).status).toBe(400);
    expect((await post(body, `t=${now},v1=${sign(body, now, secret).toUpperCase()}`)).status).toBe(400);
    expect((await post(body, `v1=${sign(body, now, secret)},t=${now}`)).status).toBe(400);
    expect((await post(body, `t=${now},v1=${sign(body, now, 'whsec_old')},v1=${sign(body, now, secret)}`)).status).toBe(200);
    await until(() => receiver()!.printed().includes(`ping evt_readme_${name}`));
  });
});

describe.runIf(has('curl'))('the session journey in bash with curl', () => {
  it('creates, starts, pays and reads the order; each receiver verifies and prints payment.started and payment.paid', async () => {
    const script = await journeyFor('session', key);
    const run = await bash(script);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [started, simulated, order] = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(started.status).toBe('open');
    expect(started.started_at).toEqual(expect.any(Number));
    expect(simulated.status).toBe('paid');
    expect(order).toMatchObject({ object: 'order', status: 'paid', amount_paid: '25.00', payment_ids: [started.id] });
    for (const receiver of receivers) {
      const events = await until(() => {
        const lines = receiver.printed().split('\n').filter((line) => line.startsWith('payment.'));
        return lines.length >= 2 && lines;
      });
      expect(events.map((line) => line.split(' ')[0]).sort(), receiver.name).toEqual(['payment.paid', 'payment.started']);
    }
    // The journey run twice: the Idempotency-Key answers the same session, which is paid now.
    const again = await bash(script);
    expect(again.stdout.split('\n')[0]).toContain('"code":"invalid_state"');
  });
});

describe.runIf(has('curl'))("the README's first payment in bash with curl", () => {
  it('creates a link, prints its page, starts it and pays it by simulation; the payment and its order are paid', async () => {
    // A business of its own: the receivers' endpoints above belong to the other.
    const ownKey = (await (await t.business()).key({ mode: 'test' })).secret;
    const script = await journeyFor('first-payment', ownKey);
    const run = await bash(script);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [url, started, paid, ...rest] = run.stdout.trim().split('\n');
    expect(rest).toEqual([]);
    expect(url).toMatch(/^https?:\/\/[^/]+\/pay\/pay_[0-9A-Za-z]+$/);
    expect([started, paid]).toEqual(['open', 'paid']);
    const id = url!.slice(url!.lastIndexOf('/') + 1);
    const payment = await t.request('GET', `/v1/payments/${id}`, { key: ownKey });
    expect(payment.body).toMatchObject({ status: 'paid', source: 'payment_link', customer_email: 'ann@example.com' });
    const order = await t.request('GET', `/v1/orders/${payment.body.order_id}`, { key: ownKey });
    expect(order.body).toMatchObject({ status: 'paid', amount_paid: '25.00' });
    // The page it printed is the buyer's: it shows the receipt now.
    const page = await fetch(`${t.url}${new URL(url!).pathname}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Thank you: paid');
    expect(text).toContain('Coffee beans');
  });
});
