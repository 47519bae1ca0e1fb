import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DAY, HOUR, MINUTE } from '../../src/core/clock.ts';
import { QUEUES } from '../../src/jobs/queues.ts';
import { sql } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { forgetExpired } from '../../src/runtime.ts';
import { rollWebhookSecret } from '../../src/resources/webhook-endpoints/roll-secret.ts';
import { asOperatorOn } from '../support/operator.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Idempotency-Keys are remembered 24 hours (spec 4.6) and then forgotten by the hourly
// retention schedule on pg-boss, moved here by the test clock; so are finished webhook
// deliveries after 30 days (spec 8).

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true }); });
afterAll(async () => t?.close());

/**
 * Moves both clocks to a minute before the retention schedule's next run, which must come within
 * the hour, then on through that run, firing pg-boss's timers on the way (its cron pass and its
 * worker's polls) as a tick of the whole hour would; without spending a tick on the idle rest of it.
 */
async function throughNextRetentionRun(): Promise<void> {
  const [schedule] = await t.jobs.boss.getSchedules(QUEUES.retention);
  const [next] = t.jobs.boss.previewSchedule(schedule!.cron, { from: t.clock.now(), count: 1 });
  const wait = next!.getTime() - t.clock.now().getTime();
  expect(wait).toBeLessThanOrEqual(HOUR);
  if (wait > MINUTE) await t.jump(wait - MINUTE);
  await t.tick(2 * MINUTE);
}

const keys = async () => (await t.db.selectFrom('idempotency_keys').select('key').execute()).map((row) => row.key);

it('forgets Idempotency-Keys past their 24 hours on the hourly schedule, and only those', async () => {
  const key = (await (await t.business()).key()).secret;
  const create = (idempotencyKey: string) => t.request('POST', '/v1/checkout_sessions', {
    key, body: { amount: '10.00', currency: 'USD' }, headers: { 'Idempotency-Key': idempotencyKey },
  });
  expect((await create('old-key')).status).toBe(201);
  await t.jump(DAY - HOUR);
  expect((await create('young-key')).status).toBe(201);
  await t.jump(2 * HOUR);
  await throughNextRetentionRun();
  await vi.waitFor(async () => expect(await keys()).toEqual(['young-key']), { timeout: 10_000 });
});

it('keeps finished deliveries 30 days and a removed endpoint\'s history 30 days, and drops a rolled secret\'s previous one when it expires', async () => {
  const biz = await t.business();
  const key = (await biz.key()).secret;
  const endpoint = async (path: string) => {
    const created = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `http://127.0.0.1:9/${path}` } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const kept = await endpoint('kept');
  const removed = await endpoint('removed');
  const delivery = async (endpointId: string, finished: boolean) => {
    const id = newId('dlv');
    await t.db.insertInto('webhook_deliveries').values({
      id, event_id: newId('evt'), endpoint_id: endpointId, kind: 'test', event_type: 'ping', body: '{}', created_at: t.clock.now(),
      status: finished ? 'succeeded' : 'pending', finished_at: finished ? t.clock.now() : null,
    }).execute();
    await t.db.insertInto('webhook_delivery_attempts').values({
      delivery_id: id, endpoint_id: endpointId, trigger: 'test', url: 'http://127.0.0.1:9/', sent_at: t.clock.now(), duration_ms: 1, succeeded: finished,
    }).execute();
    return id;
  };
  const oldFinished = await delivery(kept, true);
  const stillPending = await delivery(kept, false);
  const ofRemoved = await delivery(removed, true);
  await rollWebhookSecret.run(await asOperatorOn(t.context, 'webhook_endpoint', kept), { id: kept, keep_previous: true });
  expect((await t.request('DELETE', `/v1/webhook_endpoints/${removed}`, { key })).status).toBe(200);
  await t.jump(10 * DAY);
  const recent = await delivery(kept, true);

  await t.jump(20 * DAY + HOUR);
  await throughNextRetentionRun();
  await vi.waitFor(async () => {
    const left = await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', 'in', [kept, removed]).orderBy('seq').execute();
    expect(left.map((row) => row.id)).toEqual([stillPending, recent]);
  }, { timeout: 10_000 });
  const attempts = await t.db.selectFrom('webhook_delivery_attempts').select('delivery_id').where('endpoint_id', 'in', [kept, removed]).execute();
  expect(attempts.map((row) => row.delivery_id).sort()).toEqual([stillPending, recent].sort());
  expect(attempts.map((row) => row.delivery_id)).not.toContain(oldFinished);
  expect(attempts.map((row) => row.delivery_id)).not.toContain(ofRemoved);
  const endpointRow = await t.db.selectFrom('webhook_endpoints').select(['previous_secret_encrypted', 'previous_secret_expires_at']).where('id', '=', kept).executeTakeFirstOrThrow();
  expect(endpointRow).toEqual({ previous_secret_encrypted: null, previous_secret_expires_at: null });
});

it('deletes a backlog larger than one batch, attempts included', async () => {
  const biz = await t.business();
  const key = (await biz.key()).secret;
  const endpoint = (await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: 'http://127.0.0.1:9/backlog' } })).body.id as string;
  const old = new Date(t.clock.now().getTime() - 40 * DAY);
  await sql`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, kind, event_type, body, status, created_at, finished_at)
    SELECT 'dlv_backlog_' || n, 'evt_backlog_' || n, ${endpoint}, 'test', 'ping', '{}', 'succeeded', ${old}, ${old} FROM generate_series(1, 12000) n`.execute(t.db);
  await sql`INSERT INTO webhook_delivery_attempts (delivery_id, endpoint_id, trigger, url, sent_at, duration_ms, succeeded)
    SELECT 'dlv_backlog_' || n, ${endpoint}, 'test', 'http://127.0.0.1:9/', ${old}, 1, true FROM generate_series(1, 12000) n`.execute(t.db);
  await forgetExpired(t.context);
  const left = await sql<{ n: number }>`SELECT (SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ${endpoint})::int
    + (SELECT count(*) FROM webhook_delivery_attempts WHERE endpoint_id = ${endpoint})::int AS n`.execute(t.db);
  expect(left.rows[0]!.n).toBe(0);
});

it('keeps processor notices that changed nothing 30 days, and applied ones with their payment', async () => {
  const row = (id: string, outcome: 'applied' | 'rejected' | 'duplicate', daysAgo: number) => ({
    notice_id: id, kind: 'deposit.confirmed', payment_id: null, outcome, reason: null, body: '{}', body_sha256: id, body_length: 2,
    received_at: new Date(t.clock.now().getTime() - daysAgo * DAY),
  });
  await t.db.insertInto('processor_notices').values([
    row('ntc_old_rejected', 'rejected', 31), row('ntc_old_duplicate', 'duplicate', 31), row('ntc_old_applied', 'applied', 400),
    row('ntc_young_rejected', 'rejected', 29),
  ]).execute();
  await forgetExpired(t.context);
  const left = await t.db.selectFrom('processor_notices').select('notice_id').where('notice_id', 'like', 'ntc_%').orderBy('notice_id').execute();
  expect(left.map((notice) => notice.notice_id)).toEqual(['ntc_old_applied', 'ntc_young_rejected']);
});
