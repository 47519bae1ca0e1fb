import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectError } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Waiting for a payment (issue 24): GET /v1/payments/:id/wait and the wait_for_payment tool
// answer within a second of a change, NOTIFY payment_changed waking them; after the bound they
// answer the payment as it is; a wait holds no pool connection, and a caller that goes away
// frees its waiter at once. The bound is real time (it limits how long a request is held), so
// these tests use bounds of a second or two.

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  key = (await (await t.business()).key()).secret;
  // Listening before the first wait: a gap (the listener starting) wakes every waiter to look again.
  await vi.waitFor(() => expect(t.context.authChanges.listening).toBe(true));
});
afterAll(async () => t?.close());

const waits = () => t.context.paymentWaits;

/** A started Test payment (open), ready for a simulated outcome. */
async function openPayment(): Promise<string> {
  const session = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '12.00', currency: 'USD', customer_email: 'buyer@example.com' } });
  expect(session.status).toBe(201);
  expect((await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key, body: {} })).status).toBe(200);
  return session.body.id;
}

const simulate = (id: string, outcome: string) => t.request('POST', `/v1/payments/${id}/simulate`, { key, body: { outcome } });

/** Starts a REST wait (through `dispatcher` when given); resolves with the answer and when it arrived (performance.now()). */
function startWait(id: string, query: string, signal?: AbortSignal, dispatcher?: Agent) {
  return undiciFetch(`${t.url}/v1/payments/${id}/wait?${query}`, { headers: { authorization: `Bearer ${key}` }, signal, ...(dispatcher ? { dispatcher } : {}) })
    .then(async (response) => ({ status: response.status, body: await response.json() as any, at: performance.now() }));
}

/** Connections of the app's pool doing anything right now (the asking one aside). */
async function busyPoolConnections(): Promise<number> {
  const { rows } = await sql<{ busy: number }>`SELECT count(*)::int AS busy FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'payment-service' AND state <> 'idle' AND pid <> pg_backend_pid()`.execute(t.db);
  return rows[0]!.busy;
}

describe('REST long poll', () => {
  it('answers within a second of a simulated payment, with the paid payment', async () => {
    const id = await openPayment();
    const waiting = startWait(id, 'status=open&timeout=10');
    await vi.waitFor(() => expect(waits().size).toBe(1), { timeout: 5_000 });
    expect(await busyPoolConnections()).toBe(0);
    const paid = await simulate(id, 'paid');
    const changedAt = performance.now();
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id, object: 'payment', status: 'paid' });
    expect(answer.at - changedAt).toBeLessThan(1_000);
    expect(waits().size).toBe(0);
  });

  it('is woken by a status change from any connection (the trigger, not this process\'s verbs)', async () => {
    const id = await openPayment();
    const waiting = startWait(id, 'status=open&timeout=10');
    await vi.waitFor(() => expect(waits().size).toBe(1));
    await t.db.updateTable('payments').set({ status: 'pending' }).where('id', '=', id).execute();
    const changedAt = performance.now();
    const answer = await waiting;
    expect(answer.body.status).toBe('pending');
    expect(answer.at - changedAt).toBeLessThan(1_000);
  });

  it('answers at once when the status already differs, and after the bound with the payment unchanged', async () => {
    const id = await openPayment();
    const started = performance.now();
    expect((await startWait(id, 'status=paid&timeout=5')).body.status).toBe('open');
    expect(performance.now() - started).toBeLessThan(1_000);
    const bounded = performance.now();
    const answer = await startWait(id, 'status=open&timeout=1');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id, status: 'open' });
    expect(answer.at - bounded).toBeGreaterThanOrEqual(950);
    expect(answer.at - bounded).toBeLessThan(3_000);
    expect(waits().size).toBe(0);
  });

  it('refuses a status or timeout it cannot take, and another business\'s payment', async () => {
    const id = await openPayment();
    const ask = (query: string, as = key) => t.request('GET', `/v1/payments/${id}/wait?${query}`, { key: as });
    expectError(await ask('timeout=1'), 400, 'invalid_status', 'status');
    expectError(await ask('status=lost'), 400, 'invalid_status', 'status');
    expectError(await ask('status=open&timeout=26'), 400, 'invalid_value', 'timeout');
    expectError(await ask('status=open&timeout=-1'), 400, 'invalid_value', 'timeout');
    const stranger = (await (await t.business()).key()).secret;
    expectError(await ask('status=open&timeout=1', stranger), 404, 'not_found');
    expect(waits().size).toBe(0);
  });

  it('frees the waiters of 1,000 abandoned waits at once, holding no pool connection, without growing', async () => {
    const id = await openPayment();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
    const round = async () => {
      // Clients of their own, closed after: a connection aborted before its request was sent would otherwise stay open until the server's header timeout.
      const clients = new Agent({ connections: 1_000 });
      const controllers = Array.from({ length: 1_000 }, () => new AbortController());
      const settled = controllers.map((controller) => startWait(id, 'status=open&timeout=25', controller.signal, clients).catch(() => 'aborted'));
      // (Within the waits' 25 s bound, on a busy machine too.)
      await vi.waitFor(() => expect(waits().size).toBe(1_000), { timeout: 22_000, interval: 50 });
      expect(await busyPoolConnections()).toBe(0);
      for (const controller of controllers) controller.abort();
      const abandoned = performance.now();
      // "At once": well inside the waits' own 25 s bound, allowing for 1,000 sockets closed on a loaded runner.
      await vi.waitFor(() => expect(waits().size).toBe(0), { timeout: 10_000, interval: 10 });
      expect(performance.now() - abandoned).toBeLessThan(6_000);
      expect(await Promise.all(settled)).toEqual(controllers.map(() => 'aborted'));
      await clients.destroy();
    };
    await round();
    const before = heap();
    await round();
    const grown = heap() - before;
    expect(grown, `heap grew ${Math.round(grown / 1024)} KiB`).toBeLessThan(8 * 1024 * 1024);
  }, 180_000);
});

describe('wait_for_payment (MCP)', () => {
  const ERAS = { '2025-era': undefined, '2026-07-28': { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } };

  async function connect(era: keyof typeof ERAS) {
    const client = new Client({ name: 'waiting-agent', version: '1.0.0' }, ERAS[era]);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    return client;
  }

  it.each(Object.keys(ERAS) as Array<keyof typeof ERAS>)('answers when the payment changes, as over REST (%s client)', async (era) => {
    const client = await connect(era);
    await client.listTools();
    const id = await openPayment();
    const waiting = client.callTool({ name: 'wait_for_payment', arguments: { id, status: 'open', timeout: null } });
    await vi.waitFor(() => expect(waits().size).toBe(1), { timeout: 5_000 });
    await simulate(id, 'failed');
    const changedAt = performance.now();
    const result = await waiting;
    expect(performance.now() - changedAt).toBeLessThan(1_000);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id, status: 'failed' });
    await client.close();
  });

  it.each(Object.keys(ERAS) as Array<keyof typeof ERAS>)('frees its waiter when the client cancels the call (%s client)', async (era) => {
    const client = await connect(era);
    await client.listTools();
    const id = await openPayment();
    const controller = new AbortController();
    const waiting = client.callTool({ name: 'wait_for_payment', arguments: { id, status: 'open', timeout: 25 } }, { signal: controller.signal });
    await vi.waitFor(() => expect(waits().size).toBe(1), { timeout: 5_000 });
    controller.abort();
    await expect(waiting).rejects.toThrow();
    await vi.waitFor(() => expect(waits().size).toBe(0), { timeout: 1_000, interval: 10 });
    await client.close();
  });
});
