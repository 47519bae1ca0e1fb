import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DELIVERY_CHANNEL } from '../../src/jobs/queues.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { webhookBench } from './support.ts';

// An idle delivery worker wakes when a new delivery commits (PostgreSQL LISTEN/NOTIFY), not at
// its next poll; polling stays as the fallback when notifications are lost. The poll is raised
// to 5 seconds here, so an event that arrives within one second was not found by a poll (one
// such event could be lucky, falling just before a poll; three in a row hardly).

const POLL_MS = 5_000;

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true, deliveryIdlePollMs: POLL_MS });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const { merchant, startPayment, at } = webhookBench(() => t, () => receiver);

/** Starts a payment and answers how long its event took to reach the receiver, in ms. */
async function eventTakes(key: string, path: string, withinMs: number): Promise<number> {
  const before = at(path).length;
  const sent = performance.now();
  await startPayment(key);
  await vi.waitFor(() => expect(at(path).length).toBeGreaterThan(before), { timeout: withinMs, interval: 10 });
  return performance.now() - sent;
}

/** The sessions listening for new deliveries in the test's database (last ran LISTEN, or the listener's heartbeat). */
async function listeners(): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`
    SELECT pid FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND (query = ${`LISTEN "${DELIVERY_CHANNEL}"`} OR query LIKE '%FROM pg_listening_channels()%')`.execute(t.db);
  return rows.map((row) => row.pid);
}

/** Three events, each sent to an idle worker, each delivered within a second. */
async function expectWokenAtOnce(key: string, path: string): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    // Idle again: the worker fetched after the last delivery, found nothing, and waits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventTakes(key, path, POLL_MS + 2_000)).toBeLessThan(1_000);
  }
}

it('an idle worker delivers a new event at once, well before its next poll', async () => {
  const m = await merchant('/wake');
  await expectWokenAtOnce(m.key, '/wake');
});

it('delivers by polling while notifications are lost, and wakes at once again after reconnecting', async () => {
  const m = await merchant('/lost');
  const [listener, ...others] = await listeners();
  expect(listener).toBeDefined();
  expect(others).toEqual([]);
  await sql`SELECT pg_terminate_backend(${listener})`.execute(t.db);
  await vi.waitFor(async () => expect(await listeners()).toEqual([]), { timeout: 5_000 });

  // Nobody listens: the event still goes out, at the worker's next poll.
  expect(await eventTakes(m.key, '/lost', POLL_MS + 3_000)).toBeLessThan(POLL_MS + 3_000);

  // pg-boss reconnects after a backoff on its clock (the test's, moved here), and the worker
  // looks once for what it missed; new events wake it at once again.
  await t.tick(30_000);
  await vi.waitFor(async () => expect(await listeners()).toHaveLength(1), { timeout: 5_000 });
  await expectWokenAtOnce(m.key, '/lost');
});
