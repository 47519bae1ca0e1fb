import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The service's pool keeps the connections it made (src/db/database.ts): pg's pool would close
// one idle for 10 seconds, and the next request after a quiet moment would pay for a new
// PostgreSQL backend (connecting, its catalog caches, every statement prepared again). Under the
// bench's load that was the start's whole tail (issue 32). Real time: pg's idle timer is its own.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ DB_POOL_SIZE: '2' }); });
afterAll(async () => { await t?.close(); });

const backends = async () => (await sql<{ pid: number; started: Date }>`
  SELECT pid, backend_start AS started FROM pg_stat_activity
  WHERE datname = current_database() AND application_name = 'payment-service' ORDER BY pid`.execute(t.db)).rows;

it('keeps its connections through 12 idle seconds: the request after them runs on a backend it already had', async () => {
  // Both connections made, by two statements at once.
  await Promise.all([sql`SELECT pg_sleep(0.2)`.execute(t.db), sql`SELECT pg_sleep(0.2)`.execute(t.db)]);
  const before = await backends();
  expect(before).toHaveLength(2);
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  expect(await backends()).toEqual(before);
}, 30_000);
