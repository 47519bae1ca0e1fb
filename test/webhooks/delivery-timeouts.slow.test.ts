import { afterAll, beforeAll, expect, it } from 'vitest';
import { unixSeconds } from '../../src/core/clock.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { webhookBench } from './support.ts';

// A send cut off at the time limit counts as a failed attempt (spec 6.3), retried in a minute.
// The limit is the HTTP client's own timer on real time (undici's header and body timeouts),
// which the injected clock does not move: each case waits out the limit, 0.4 seconds here.

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off', WEBHOOK_TIMEOUT_MS: '400' }, { workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const { merchant, latest, settles, respondPerPath, startPayment } = webhookBench(() => t, () => receiver);

it.each([
  ['no answer within the time limit', '/hang', { status: 'pending', last_status: null, last_error: 'no response within 0.4 seconds' }],
  ['a 200 whose body trickles past the time limit', '/trickle', { status: 'pending', last_status: 200, last_error: 'the response body did not complete within 0.4 seconds' }],
])('%s', async (_name, path, expected) => {
  respondPerPath({
    '/hang': () => undefined,
    // A byte every 100 ms for 1.5 s: the body keeps moving, yet does not complete within the limit.
    '/trickle': (response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('a');
      const timer = setInterval(() => response.write('.'), 100);
      setTimeout(() => { clearInterval(timer); response.end(); }, 1_500);
    },
  });
  const m = await merchant(path);
  await startPayment(m.key);
  await settles(m.endpointId, expected);
  expect((await latest(m.endpointId))!.next_retry).toBe(unixSeconds(t.clock.now()) + 60);
});
