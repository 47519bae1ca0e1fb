import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// /healthz (the process answers) and /readyz (the database answers, its migrations are current,
// and the workers run where the role runs them), through HTTP on a real app and database: each
// reason to be unready is made for real (workers not started, a migration not applied, the
// database refusing connections), and undone.

/** Runs `text` as the cluster's superuser, outside the app's database. */
async function asAdmin(text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: inject('pgUrl') });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

const get = async (t: TestApp, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${t.url}${path}`, { headers });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
};

/** Waits until /readyz answers `status` with `checks`. */
async function readyzBecomes(t: TestApp, status: number, checks: Record<string, string>): Promise<void> {
  await vi.waitFor(async () => expect(await get(t, '/readyz')).toEqual({ status, body: { status: status === 200 ? 'ok' : 'unavailable', checks } }), { timeout: 10_000, interval: 100 });
}

describe('a process running the workers (--role all)', () => {
  let t: TestApp;
  // The workers start in a test below; the unauthenticated limit is small, to show these paths are outside it.
  beforeAll(async () => { t = await startTestApp({ RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' }, { role: 'all' }); });
  afterAll(async () => t?.close());

  it('is alive but not ready before its workers run, then ready', async () => {
    expect(await get(t, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    await readyzBecomes(t, 503, { database: 'ok', migrations: 'ok', workers: 'not_running' });
    await t.workers();
    await readyzBecomes(t, 200, { database: 'ok', migrations: 'ok', workers: 'ok' });
  });

  it('is neither rate limited nor authenticated, and answers whatever Host it is asked under', async () => {
    const unauthenticated = await Promise.all(Array.from({ length: 6 }, () => t.request('GET', '/v1/payment_links')));
    expect(unauthenticated.map((response) => response.status)).toContain(429);
    for (let i = 0; i < 30; i += 1) {
      expect((await get(t, i % 2 ? '/healthz' : '/readyz', { authorization: 'Bearer sk_test_wrong' })).status).toBe(200);
    }
    // A load balancer probes by address.
    expect((await get(t, '/healthz', { host: '10.1.2.3:3000' })).status).toBe(200);
  });

  it('is not ready while a migration this code brings is not applied', async () => {
    const [last] = await t.db.selectFrom('kysely_migration' as never).selectAll().orderBy('name' as never, 'desc').limit(1).execute() as Array<{ name: string; timestamp: string }>;
    await t.db.deleteFrom('kysely_migration' as never).where('name' as never, '=', last!.name as never).execute();
    await readyzBecomes(t, 503, { database: 'ok', migrations: 'pending', workers: 'ok' });
    await t.db.insertInto('kysely_migration' as never).values(last as never).execute();
    await readyzBecomes(t, 200, { database: 'ok', migrations: 'ok', workers: 'ok' });
  });

  it('is not ready while its database refuses connections, and ready again once it takes them', async () => {
    const database = new URL(t.config.databaseUrl!).pathname.slice(1);
    await asAdmin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await asAdmin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);
    try {
      await readyzBecomes(t, 503, { database: 'unreachable', migrations: 'unknown', workers: 'ok' });
      expect(await get(t, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      // The scrape still answers; what it reads from the database is unknown (NaN, which prom-client writes "Nan"), not stale.
      const { text } = await t.context.metrics.exposition();
      expect(text).toMatch(/^webhook_deliveries_due nan$/im);
      expect(text).toMatch(/^payment_expiry_lag_seconds nan$/im);
    } finally {
      await asAdmin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    }
    await readyzBecomes(t, 200, { database: 'ok', migrations: 'ok', workers: 'ok' });
  });
});

describe('an API-only process (--role api)', () => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp({}, { role: 'api' }); });
  afterAll(async () => t?.close());

  it('has no workers to check', async () => {
    await readyzBecomes(t, 200, { database: 'ok', migrations: 'ok' });
  });

  it('reports a database never migrated (no migration table) as pending', async () => {
    await t.db.schema.dropTable('kysely_migration').execute();
    await readyzBecomes(t, 503, { database: 'ok', migrations: 'pending' });
  });
});
