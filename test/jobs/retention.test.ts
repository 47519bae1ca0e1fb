import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DAY, HOUR } from '../../src/core/clock.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Idempotency-Keys are remembered 24 hours (spec 4.6) and then forgotten by the hourly
// retention schedule on pg-boss, moved here by the test clock.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true }); });
afterAll(async () => t?.close());

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
  await t.tick(HOUR);
  await vi.waitFor(async () => expect(await keys()).toEqual(['young-key']), { timeout: 10_000 });
});
