import { expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.ts';

// The delivery worker's settings: one endpoint's share of the slots (WEBHOOK_ENDPOINT_CONCURRENCY)
// is 10 unless set, and never more than the whole (WEBHOOK_CONCURRENCY).

it.each([
  [{}, { concurrency: 100, endpointConcurrency: 10 }],
  [{ WEBHOOK_CONCURRENCY: '4' }, { concurrency: 4, endpointConcurrency: 4 }],
  [{ WEBHOOK_ENDPOINT_CONCURRENCY: '25' }, { concurrency: 100, endpointConcurrency: 25 }],
  [{ WEBHOOK_CONCURRENCY: '20', WEBHOOK_ENDPOINT_CONCURRENCY: '20' }, { concurrency: 20, endpointConcurrency: 20 }],
])('delivery concurrency from %o', (env, expected) => {
  expect(loadConfig(env).webhooks).toMatchObject(expected);
});

it('refuses an endpoint share larger than the whole, in one sentence', () => {
  expect(() => loadConfig({ WEBHOOK_CONCURRENCY: '20', WEBHOOK_ENDPOINT_CONCURRENCY: '30' })).toThrow(
    'Invalid configuration:\n  WEBHOOK_ENDPOINT_CONCURRENCY (30) must not exceed WEBHOOK_CONCURRENCY (20): it is one endpoint\'s share of the deliveries in flight.',
  );
});

it.each(['0', '-1', '2.5', 'ten', '1001'])('refuses WEBHOOK_ENDPOINT_CONCURRENCY=%s', (value) => {
  expect(() => loadConfig({ WEBHOOK_ENDPOINT_CONCURRENCY: value })).toThrow(/WEBHOOK_ENDPOINT_CONCURRENCY/);
});
