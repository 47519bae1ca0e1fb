import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MINUTE, HOUR, unixSeconds } from '../../src/core/clock.ts';
import { RETRY_DELAYS_MS } from '../../src/webhooks/deliveries.ts';
import { deliveryAttempts, deliveryLog } from '../../src/webhooks/manage.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { answer, signaturesOf, startReceiver, verifiesWith, type Receiver } from '../support/receiver.ts';

// Delivery end to end (spec 6.1, 6.3, 6.4): a payment changes, the pg-boss worker sends the
// stored event to a real receiver on loopback, signed; failures retry on the spec's schedule,
// moved by the test clock.

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

const OPERATOR = { actor: 'operator' };

async function merchant(path = '/hooks', events?: string[]) {
  const key = (await (await t.business()).key()).secret;
  const created = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `${receiver.url}${path}`, ...(events ? { events } : {}) } });
  expect(created.status).toBe(201);
  return { key, endpointId: created.body.id as string, secret: created.body.secret as string, path };
}

/** Creates a session and starts it: payment.started. Returns the payment id. */
async function startPayment(key: string): Promise<string> {
  const session = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '12.00', currency: 'USD', customer_email: 'buyer@example.com' } });
  expect(session.status).toBe(201);
  expect((await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key, body: {} })).status).toBe(200);
  return session.body.id;
}

const at = (path: string) => receiver.received.filter((request) => request.path === path);

async function eventOf(paymentId: string, type: string) {
  return t.db.selectFrom('events').selectAll().where('payment_id', '=', paymentId).where('type', '=', type).executeTakeFirstOrThrow();
}

describe('a payment change reaches a subscribed endpoint', () => {
  it('POSTs the stored event body with exactly the spec headers and a signature an independent verifier accepts', async () => {
    const m = await merchant('/ok');
    const paymentId = await startPayment(m.key);
    await vi.waitFor(() => expect(at('/ok')).toHaveLength(1), { timeout: 5_000 });
    const [request] = at('/ok');
    const event = await eventOf(paymentId, 'payment.started');
    expect(request!.method).toBe('POST');
    expect(request!.body).toBe(event.body);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(request!.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifiesWith(request!.headers['service-signature'] as string, m.secret, request!.body, unixSeconds(t.clock.now()))).toBe(true);
    expect(verifiesWith(request!.headers['service-signature'] as string, 'whsec_wrong', request!.body, unixSeconds(t.clock.now()))).toBe(false);
    expect(JSON.parse(request!.body)).toMatchObject({ id: event.id, type: 'payment.started', livemode: false });

    await vi.waitFor(async () => {
      const log = await deliveryLog(t.db, OPERATOR, m.endpointId);
      expect(log.data).toEqual([expect.objectContaining({ event_id: event.id, event_type: 'payment.started', status: 'succeeded', attempts: 1, last_status: 200, next_retry: null, body: event.body })]);
    });
  });
});

describe('the retry schedule', () => {
  it('retries after 1 min, 5 min, 30 min, 2 h, 6 h and 12 h, same event and body, fresh signatures; fails after the seventh', async () => {
    const m = await merchant('/down');
    receiver.respond((request, response) => {
      response.writeHead(request.path === '/down' ? 503 : 200).end('unavailable');
    });
    try {
      const paymentId = await startPayment(m.key);
      const event = await eventOf(paymentId, 'payment.started');
      await vi.waitFor(() => expect(at('/down')).toHaveLength(1), { timeout: 5_000 });
      for (const [index, delay] of RETRY_DELAYS_MS.entries()) {
        await vi.waitFor(async () => {
          const [entry] = (await deliveryLog(t.db, OPERATOR, m.endpointId)).data;
          expect(entry).toMatchObject({ attempts: index + 1, status: 'pending', last_status: 503, next_retry: unixSeconds(t.clock.now()) + delay / 1000 });
        });
        await t.jump(delay - 1_000);
        await t.tick(500);
        expect(at('/down')).toHaveLength(index + 1);
        await t.tick(6_000);
        await vi.waitFor(() => expect(at('/down')).toHaveLength(index + 2), { timeout: 5_000 });
      }
      await vi.waitFor(async () => {
        const [entry] = (await deliveryLog(t.db, OPERATOR, m.endpointId)).data;
        expect(entry).toMatchObject({ attempts: 7, status: 'failed', next_retry: null, last_status: 503, last_error: 'the endpoint answered 503' });
      });
      const requests = at('/down');
      expect(requests).toHaveLength(7);
      expect(new Set(requests.map((request) => request.body))).toEqual(new Set([event.body]));
      expect(new Set(requests.map((request) => request.headers['service-signature'])).size).toBe(7);
      for (const request of requests) expect(request.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const attempts = await deliveryAttempts(t.db, OPERATOR, (await deliveryLog(t.db, OPERATOR, m.endpointId)).data[0]!.id);
      expect(attempts.map((attempt) => [attempt.trigger, attempt.number, attempt.status_code])).toEqual(
        [1, 2, 3, 4, 5, 6, 7].map((number) => ['automatic', number, 503]));
      // Nothing more, ever.
      await t.jump(24 * HOUR);
      await t.tick(10_000);
      expect(at('/down')).toHaveLength(7);
    } finally {
      receiver.respond(answer(200, 'ok'));
    }
  });
});
