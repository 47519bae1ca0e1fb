import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY, MINUTE, HOUR, unixSeconds } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import { eraseCustomer } from '../../src/resources/customers/erase.ts';
import { loadTargets, lockEndpoint, removeGoneEndpoint, requeueOverdue, RETRY_DELAYS_MS } from '../../src/webhooks/deliveries.ts';
import { rollWebhookSecret } from '../../src/resources/webhook-endpoints/roll-secret.ts';
import { updateWebhookEndpoint, type UpdateWebhookEndpointInput } from '../../src/resources/webhook-endpoints/update.ts';
import type { OperationContext } from '../../src/verbs/context.ts';
import { listDeliveryAttempts } from '../../src/webhooks/log/list-attempts.ts';
import { listWebhookDeliveries } from '../../src/webhooks/log/list-deliveries.ts';
import { resendWebhookDelivery } from '../../src/webhooks/log/resend.ts';
import { retryWebhookDelivery } from '../../src/webhooks/log/retry.ts';
import { sendTestWebhook } from '../../src/webhooks/log/send-test.ts';
import { asOperator, asOperatorOn } from '../support/operator.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { answer, signaturesOf, startReceiver, verifiesWith, type Receiver } from '../support/receiver.ts';
import { webhookBench } from './support.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const TLS = { key: readFileSync(new URL('webhook-receiver.key', FIXTURES), 'utf8'), cert: readFileSync(new URL('webhook-receiver.crt', FIXTURES), 'utf8') };

// Delivery end to end (spec 6.1, 6.3, 6.4): a payment changes, the pg-boss worker sends the
// stored event to a real receiver on loopback, signed; failures retry on the spec's schedule,
// moved by the test clock. Sends cut off at the time limit wait out real time, so they are in
// delivery-timeouts.slow.test.ts.

let t: TestApp;
let receiver: Receiver;
let realResolve: TestApp['context']['resolveHost'];
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off', WEBHOOK_TIMEOUT_MS: '400' }, { workers: true, webhookCa: TLS.cert });
  receiver = await startReceiver();
  realResolve = t.context.resolveHost;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

// The delivery log's actions as the operator runs them on an object (or as a caller of another business).
const OPERATOR = 'operator';
type By = typeof OPERATOR | OperationContext;
const on = async (by: By, kind: 'webhook_endpoint' | 'webhook_delivery', id: string) => (by === OPERATOR ? asOperatorOn(t.context, kind, id) : by);
const deliveryLog = async (by: By, endpointId: string) => listWebhookDeliveries.run(await on(by, 'webhook_endpoint', endpointId), { id: endpointId });
const deliveryAttempts = async (by: By, deliveryId: string) => listDeliveryAttempts.run(await on(by, 'webhook_delivery', deliveryId), { id: deliveryId });
const retryNow = async (by: By, deliveryId: string) => retryWebhookDelivery.run(await on(by, 'webhook_delivery', deliveryId), { id: deliveryId });
const resend = async (by: By, deliveryId: string) => resendWebhookDelivery.run(await on(by, 'webhook_delivery', deliveryId), { id: deliveryId });
const sendTestEvent = async (by: By, endpointId: string, type?: string) => sendTestWebhook.run(await on(by, 'webhook_endpoint', endpointId), { id: endpointId, type });
const rollSecret = async (by: By, endpointId: string, keepPrevious: boolean) => rollWebhookSecret.run(await on(by, 'webhook_endpoint', endpointId), { id: endpointId, keep_previous: keepPrevious });
const updateEndpoint = async (by: By, endpointId: string, changes: Omit<UpdateWebhookEndpointInput, 'id'>) => updateWebhookEndpoint.run(await on(by, 'webhook_endpoint', endpointId), { id: endpointId, ...changes });

const { merchant, latest, settles, respondPerPath, startPayment, at } = webhookBench(() => t, () => receiver);

/**
 * Moves time on by `ms`, then ticks a second at a time until `check` passes: the worker looks
 * for due retries when pg-boss's timers fire, and those fire only as the clock moves.
 */
async function advanceUntil(ms: number, check: () => unknown) {
  await t.jump(ms);
  await vi.waitFor(async () => {
    try {
      await check();
    } catch (error) {
      await t.tick(1_000);
      throw error;
    }
  }, { timeout: 10_000, interval: 20 });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

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
      const log = await deliveryLog(OPERATOR, m.endpointId);
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
          const [entry] = (await deliveryLog(OPERATOR, m.endpointId)).data;
          expect(entry).toMatchObject({ attempts: index + 1, status: 'pending', last_status: 503, next_retry: unixSeconds(t.clock.now()) + delay / 1000 });
        });
        await t.jump(delay - 1_000);
        await t.tick(500);
        expect(at('/down')).toHaveLength(index + 1);
        await advanceUntil(500, () => expect(at('/down')).toHaveLength(index + 2));
      }
      await vi.waitFor(async () => {
        const [entry] = (await deliveryLog(OPERATOR, m.endpointId)).data;
        expect(entry).toMatchObject({ attempts: 7, status: 'failed', next_retry: null, last_status: 503, last_error: 'the endpoint answered 503' });
      });
      const requests = at('/down');
      expect(requests).toHaveLength(7);
      expect(new Set(requests.map((request) => request.body))).toEqual(new Set([event.body]));
      expect(new Set(requests.map((request) => request.headers['service-signature'])).size).toBe(7);
      for (const request of requests) expect(request.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const attempts = await deliveryAttempts(OPERATOR, (await deliveryLog(OPERATOR, m.endpointId)).data[0]!.id);
      expect(attempts.map((attempt) => [attempt.trigger, attempt.number, attempt.status_code])).toEqual(
        [1, 2, 3, 4, 5, 6, 7].map((number) => ['automatic', number, 503]));
      // Nothing more of this delivery, ever (the session's own expiry is another event).
      await t.jump(24 * HOUR);
      await t.tick(10_000);
      expect(at('/down').filter((request) => request.body === event.body)).toHaveLength(7);
    } finally {
      receiver.respond(answer(200, 'ok'));
    }
  });
});

describe('each endpoint\'s share of the worker', () => {
  it('queues the first attempt and the retries in the endpoint\'s pg-boss group, which the per-endpoint cap counts', async () => {
    respondPerPath({ '/grouped': (response) => response.writeHead(503).end() });
    try {
      const m = await merchant('/grouped');
      await startPayment(m.key);
      await settles(m.endpointId, { attempts: 1, status: 'pending' });
      const deliveryId = (await latest(m.endpointId))!.id;
      const jobs = (await t.jobs.boss.findJobs<{ deliveryId: string; attempt: number }>('webhook-delivery')).filter((job) => job.data.deliveryId === deliveryId);
      expect(jobs.map((job) => [job.data.attempt, job.groupId]).sort()).toEqual([[1, m.endpointId], [2, m.endpointId]]);
    } finally {
      receiver.respond(answer(200, 'ok'));
    }
  });
});

describe('what counts as delivered', () => {
  afterAll(() => receiver.respond(answer(200, 'ok')));

  it.each([
    ['a 204', '/r204', { status: 'succeeded', last_status: 204, last_error: null, attempts: 1 }],
    ['a 400', '/r400', { status: 'pending', last_status: 400, last_error: 'the endpoint answered 400' }],
    ['a 500', '/r500', { status: 'pending', last_status: 500, last_error: 'the endpoint answered 500' }],
    ['a redirect (not followed, even to this machine)', '/r301', { status: 'pending', last_status: 301, last_error: 'redirect (301) not followed' }],
  ])('%s', async (_name, path, expected) => {
    respondPerPath({
      '/r204': (response) => response.writeHead(204).end(),
      '/r400': (response) => response.writeHead(400).end('bad signature'),
      '/r500': (response) => response.writeHead(500).end('oops'),
      '/r301': (response) => response.writeHead(301, { location: `${receiver.url}/internal` }).end(),
    });
    const m = await merchant(path);
    await startPayment(m.key);
    await settles(m.endpointId, expected);
    expect(at('/internal')).toHaveLength(0);
    if (expected.status === 'pending') expect((await latest(m.endpointId))!.next_retry).toBe(unixSeconds(t.clock.now()) + 60);
  });

  it('a refused connection', async () => {
    const m = await merchant('/', undefined, `http://127.0.0.1:${await closedPort()}/`);
    await startPayment(m.key);
    await settles(m.endpointId, { status: 'pending', last_status: null, last_error: 'connection refused' });
  });

  it('keeps the start of a response body for the log', async () => {
    respondPerPath({ '/excerpt': (response) => response.writeHead(422).end('x'.repeat(5_000)) });
    const m = await merchant('/excerpt');
    await startPayment(m.key);
    await settles(m.endpointId, { last_status: 422 });
    const [attempt] = await deliveryAttempts(OPERATOR, (await latest(m.endpointId))!.id);
    expect(attempt!.response_excerpt).toBe('x'.repeat(1024));
  });
});

describe('410 Gone', () => {
  afterAll(() => receiver.respond(answer(200, 'ok')));

  it('removes an endpoint added through the API instead of retrying, and stops its other retries', async () => {
    respondPerPath({ '/gone': (response) => response.writeHead(410).end() });
    const m = await merchant('/gone');
    await startPayment(m.key);
    await settles(m.endpointId, { status: 'failed', last_status: 410, next_retry: null });
    expect((await t.request('GET', `/v1/webhook_endpoints/${m.endpointId}`, { key: m.key })).status).toBe(404);
    const activity = await t.db.selectFrom('activity').selectAll().where('subject_id', '=', m.endpointId).where('action', '=', 'webhook_endpoint.removed_gone').execute();
    expect(activity).toHaveLength(1);
    const before = at('/gone').length;
    await startPayment(m.key);
    await t.jump(MINUTE);
    await t.tick(6_000);
    expect(at('/gone')).toHaveLength(before);
  });

  it('keeps retrying an endpoint added in the dashboard', async () => {
    respondPerPath({ '/gone-dash': (response) => response.writeHead(410).end() });
    const biz = await t.business();
    const key = (await biz.key()).secret;
    const endpointId = newId('we');
    await t.db.insertInto('webhook_endpoints').values({
      id: endpointId, business_id: biz.id, livemode: false, url: `${receiver.url}/gone-dash`, description: null, events: ['payment.started'],
      secret_encrypted: t.context.secrets.seal('whsec_dashboard'), added_via: 'dashboard', api_key_id: null, created_at: t.clock.now(),
    }).execute();
    await startPayment(key);
    await settles(endpointId, { status: 'pending', last_status: 410, attempts: 1 });
    await advanceUntil(MINUTE, async () => expect(await latest(endpointId)).toMatchObject({ status: 'pending', last_status: 410, attempts: 2 }));
    expect((await t.db.selectFrom('webhook_endpoints').select('deleted_at').where('id', '=', endpointId).executeTakeFirstOrThrow()).deleted_at).toBeNull();
  });
});

describe('endpoint changes between attempts', () => {
  afterAll(() => receiver.respond(answer(200, 'ok')));

  it('sends pending retries to the new address after an address edit', async () => {
    respondPerPath({ '/old': (response) => response.writeHead(500).end() });
    const m = await merchant('/old');
    const paymentId = await startPayment(m.key);
    await settles(m.endpointId, { attempts: 1, status: 'pending' });
    await updateEndpoint(OPERATOR, m.endpointId, { url: `${receiver.url}/new` });
    await advanceUntil(MINUTE, async () => expect(await latest(m.endpointId)).toMatchObject({ attempts: 2, status: 'succeeded' }));
    expect(at('/new')).toHaveLength(1);
    expect(at('/new')[0]!.body).toBe((await eventOf(paymentId, 'payment.started')).body);
    const attempts = await deliveryAttempts(OPERATOR, (await latest(m.endpointId))!.id);
    expect(attempts.map((attempt) => new URL(attempt.url).pathname)).toEqual(['/old', '/new']);
  });

  it('signs later attempts with a rolled secret only, at once', async () => {
    respondPerPath({ '/roll-now': (response) => response.writeHead(500).end() });
    const m = await merchant('/roll-now');
    await startPayment(m.key);
    await settles(m.endpointId, { attempts: 1 });
    const rolled = await rollSecret(OPERATOR, m.endpointId, false);
    expect(rolled.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(rolled.previous_secret_expires_at).toBeNull();
    await advanceUntil(MINUTE, async () => expect(await latest(m.endpointId)).toMatchObject({ attempts: 2 }));
    const [first, second] = at('/roll-now');
    const now = unixSeconds(t.clock.now());
    expect(verifiesWith(first!.headers['service-signature'] as string, m.secret, first!.body, now)).toBe(true);
    expect(signaturesOf(second!.headers['service-signature'] as string)).toHaveLength(1);
    expect(verifiesWith(second!.headers['service-signature'] as string, rolled.secret, second!.body, now)).toBe(true);
    expect(verifiesWith(second!.headers['service-signature'] as string, m.secret, second!.body, now)).toBe(false);
    // The API shows no secret, and no previous one.
    const shown = await t.request('GET', `/v1/webhook_endpoints/${m.endpointId}`, { key: m.key });
    expect(shown.body.secret).toBeUndefined();
    expect(shown.body.previous_secret_expires_at).toBeNull();
  });

  it('carries a second v1 for the previous secret for 24 hours after a roll that keeps it', async () => {
    respondPerPath({ '/roll-keep': (response) => response.writeHead(500).end() });
    const m = await merchant('/roll-keep');
    await startPayment(m.key);
    await settles(m.endpointId, { attempts: 1 });
    const rolled = await rollSecret(OPERATOR, m.endpointId, true);
    const expiresAt = unixSeconds(t.clock.now()) + DAY / 1000;
    expect(rolled.previous_secret_expires_at).toBe(expiresAt);
    expect((await t.request('GET', `/v1/webhook_endpoints/${m.endpointId}`, { key: m.key })).body.previous_secret_expires_at).toBe(expiresAt);
    await advanceUntil(MINUTE, async () => expect(await latest(m.endpointId)).toMatchObject({ attempts: 2 }));
    const overlap = at('/roll-keep')[1]!;
    const header = overlap.headers['service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifiesWith(header, rolled.secret, overlap.body, unixSeconds(t.clock.now()))).toBe(true);
    expect(verifiesWith(header, m.secret, overlap.body, unixSeconds(t.clock.now()))).toBe(true);
    // The whole schedule (about 21 hours) stays inside the 24 hours: every attempt carries both.
    for (const [index, delay] of RETRY_DELAYS_MS.slice(1).entries()) {
      await advanceUntil(delay, async () => expect(await latest(m.endpointId)).toMatchObject({ attempts: index + 3 }));
    }
    await settles(m.endpointId, { attempts: 7, status: 'failed' });
    expect(at('/roll-keep').slice(1).map((request) => signaturesOf(request.headers['service-signature'] as string).length)).toEqual([2, 2, 2, 2, 2, 2]);
    // Past the 24 hours, only the new secret signs (a resend shows it).
    await t.jump(4 * HOUR);
    receiver.respond(answer(200, 'ok'));
    const resent = await resend(OPERATOR, (await latest(m.endpointId))!.id);
    expect(resent.outcome.ok).toBe(true);
    const last = at('/roll-keep')[7]!;
    expect(signaturesOf(last.headers['service-signature'] as string)).toHaveLength(1);
    expect(verifiesWith(last.headers['service-signature'] as string, rolled.secret, last.body, unixSeconds(t.clock.now()))).toBe(true);
  });
});

describe('subscriptions', () => {
  it('sends an endpoint only its event types, and only its own mode\'s events', async () => {
    const m = await merchant('/only-paid', ['payment.paid']);
    const live = await m.biz.key({ mode: 'live' });
    t.context.resolveHost = async () => ['93.184.215.14'];
    try {
      expect((await t.request('POST', '/v1/webhook_endpoints', { key: live.secret, body: { url: 'https://hooks.shop.example/live' } })).status).toBe(201);
    } finally {
      t.context.resolveHost = realResolve;
    }
    const paymentId = await startPayment(m.key);
    expect((await t.request('POST', `/v1/payments/${paymentId}/simulate`, { key: m.key, body: { outcome: 'paid' } })).status).toBe(200);
    await vi.waitFor(() => expect(at('/only-paid')).toHaveLength(1), { timeout: 5_000 });
    expect(JSON.parse(at('/only-paid')[0]!.body).type).toBe('payment.paid');
    const deliveries = await t.db.selectFrom('webhook_deliveries as d').innerJoin('webhook_endpoints as we', 'we.id', 'd.endpoint_id')
      .select(['we.livemode']).where('we.business_id', '=', m.biz.id).execute();
    expect(deliveries).toEqual([{ livemode: false }]);
  });

  it('sends an endpoint added before 26 September 2026 only payment.paid and payment.failed until its events are edited', async () => {
    const m = await merchant('/legacy');
    await t.db.updateTable('webhook_endpoints').set({ created_at: new Date('2026-09-01T00:00:00Z') }).where('id', '=', m.endpointId).execute();
    const first = await startPayment(m.key);
    await t.request('POST', `/v1/payments/${first}/simulate`, { key: m.key, body: { outcome: 'paid' } });
    await vi.waitFor(() => expect(at('/legacy')).toHaveLength(1), { timeout: 5_000 });
    expect(JSON.parse(at('/legacy')[0]!.body).type).toBe('payment.paid');
    await updateEndpoint(OPERATOR, m.endpointId, { events: ['payment.started', 'payment.paid'] });
    await startPayment(m.key);
    await vi.waitFor(() => expect(at('/legacy').map((request) => JSON.parse(request.body).type)).toEqual(['payment.paid', 'payment.started']), { timeout: 5_000 });
  });

  it('stops a removed endpoint\'s pending retries and sends it nothing more', async () => {
    respondPerPath({ '/removed': (response) => response.writeHead(500).end() });
    try {
      const m = await merchant('/removed');
      await startPayment(m.key);
      await settles(m.endpointId, { attempts: 1, status: 'pending' });
      expect((await t.request('DELETE', `/v1/webhook_endpoints/${m.endpointId}`, { key: m.key })).status).toBe(200);
      await settles(m.endpointId, { status: 'canceled', next_retry: null });
      await startPayment(m.key);
      await t.jump(MINUTE);
      await t.tick(6_000);
      expect(at('/removed')).toHaveLength(1);
      // Its history stays readable.
      expect((await deliveryLog(OPERATOR, m.endpointId)).endpoint.removed).toBe(true);
    } finally {
      receiver.respond(answer(200, 'ok'));
    }
  });
});

describe('the log\'s operations', () => {
  afterAll(() => receiver.respond(answer(200, 'ok')));

  it('retry now sends a still-retrying delivery at once without using up its automatic retries', async () => {
    respondPerPath({ '/retry-now': (response) => response.writeHead(500).end() });
    const m = await merchant('/retry-now');
    await startPayment(m.key);
    await settles(m.endpointId, { attempts: 1, status: 'pending' });
    const delivery = (await latest(m.endpointId))!;
    const failed = await retryNow(OPERATOR, delivery.id);
    expect(failed.outcome).toMatchObject({ ok: false, statusCode: 500 });
    await settles(m.endpointId, { attempts: 1, manual_attempts: 1, status: 'pending', next_retry: delivery.next_retry });
    receiver.respond(answer(200, 'ok'));
    const succeeded = await retryNow(OPERATOR, delivery.id);
    expect(succeeded).toMatchObject({ event_id: delivery.event_id, outcome: { ok: true, statusCode: 200 } });
    await settles(m.endpointId, { attempts: 1, manual_attempts: 2, status: 'succeeded', next_retry: null });
    // The scheduled attempt 2 finds it delivered and sends nothing.
    await t.jump(MINUTE);
    await t.tick(6_000);
    expect(at('/retry-now')).toHaveLength(3);
    await expect(retryNow(OPERATOR, delivery.id)).rejects.toThrow(/not retrying; resend it instead/);
    const attempts = await deliveryAttempts(OPERATOR, delivery.id);
    expect(attempts.map((attempt) => [attempt.trigger, attempt.number, attempt.succeeded])).toEqual([['automatic', 1, false], ['retry_now', null, false], ['retry_now', null, true]]);
  });

  it('resend sends a finished delivery once more with the same event id and body; erased details stay null', async () => {
    const m = await merchant('/resend');
    const paymentId = await startPayment(m.key);
    await settles(m.endpointId, { status: 'succeeded' });
    const delivery = (await latest(m.endpointId))!;
    const customerId = JSON.parse(at('/resend')[0]!.body).data.customer.id as string;
    await eraseCustomer.run(await asOperatorOn(t.context, 'customer', customerId), { id: customerId });
    const again = await resend(OPERATOR, delivery.id);
    expect(again.outcome.ok).toBe(true);
    const [original, resent] = at('/resend');
    expect(JSON.parse(resent!.body).id).toBe(JSON.parse(original!.body).id);
    expect(resent!.body).toBe((await eventOf(paymentId, 'payment.started')).body);
    expect(resent!.body).not.toContain('buyer@example.com');
    expect(JSON.parse(resent!.body).data.customer.email).toBeNull();
    await settles(m.endpointId, { status: 'succeeded', attempts: 1, manual_attempts: 1 });
  });

  it('sends a test ping or a sample payment event to a Test endpoint, at once and never retried', async () => {
    respondPerPath({ '/samples': (response) => response.writeHead(200).end() });
    const m = await merchant('/samples');
    const ping = await sendTestEvent(OPERATOR, m.endpointId);
    expect(ping.outcome.ok).toBe(true);
    const pinged = JSON.parse(at('/samples')[0]!.body);
    expect(pinged).toEqual({ id: ping.event_id, type: 'ping', created: unixSeconds(t.clock.now()), livemode: false, data: { payment: null, order: null, customer: null } });
    expect(verifiesWith(at('/samples')[0]!.headers['service-signature'] as string, m.secret, at('/samples')[0]!.body, unixSeconds(t.clock.now()))).toBe(true);

    const sample = await sendTestEvent(OPERATOR, m.endpointId, 'payment.paid');
    const body = JSON.parse(at('/samples')[1]!.body);
    expect(body).toMatchObject({ id: sample.event_id, type: 'payment.paid', livemode: false });
    expect(body.data.payment).toMatchObject({ status: 'paid', metadata: { sample: true } });
    expect(body.data.order).toMatchObject({ id: 'ord_sample' });
    expect(body.data.order.items).toHaveLength(2);
    expect(body.data.customer).toMatchObject({ id: 'cus_sample' });
    for (const type of ['payment.started', 'payment.held', 'payment.updated', 'payment.failed', 'payment.expired', 'payment.canceled'] as const) {
      await sendTestEvent(OPERATOR, m.endpointId, type);
    }
    expect(at('/samples').map((request) => JSON.parse(request.body).type)).toEqual(
      ['ping', 'payment.paid', 'payment.started', 'payment.held', 'payment.updated', 'payment.failed', 'payment.expired', 'payment.canceled']);
    // None of it exists in the account.
    expect(await t.db.selectFrom('events').select('id').where('id', 'in', [ping.event_id, sample.event_id]).execute()).toEqual([]);

    // A failed test send is logged and never retried.
    respondPerPath({ '/samples': (response) => response.writeHead(503).end() });
    const failed = await sendTestEvent(OPERATOR, m.endpointId);
    expect(failed.outcome).toMatchObject({ ok: false, statusCode: 503 });
    await settles(m.endpointId, { kind: 'test', event_type: 'ping', status: 'failed', attempts: 0, manual_attempts: 1, next_retry: null });
    await t.jump(MINUTE);
    await t.tick(6_000);
    expect(at('/samples')).toHaveLength(9);
  });
});

describe('Live endpoints: every send checks the address again', () => {
  const HOST = 'hooks.merchant.example';
  let live: { key: string; endpointId: string };

  beforeAll(async () => {
    const biz = await t.business();
    const key = (await biz.key({ mode: 'live' })).secret;
    t.context.resolveHost = async () => ['93.184.215.14'];
    const created = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `https://${HOST}:${receiver.port}/live` } });
    t.context.resolveHost = realResolve;
    expect(created.status).toBe(201);
    live = { key, endpointId: created.body.id };
  });
  afterAll(() => { t.context.resolveHost = realResolve; });

  it('refuses a test event other than ping', async () => {
    await expect(sendTestEvent(OPERATOR, live.endpointId, 'payment.paid')).rejects.toThrow('A Live endpoint can receive a ping only.');
  });

  it.each([
    '127.0.0.1', '::1', '::ffff:127.0.0.1', '0.0.0.0', '10.1.2.3', '172.16.5.4', '172.31.255.1', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', 'fc00::1', 'fd12:3456::1', 'fe80::1', '224.0.0.1', '168.63.129.16',
  ])('refuses when the name now resolves to %s, and records it in the log', async (address) => {
    const before = receiver.received.length;
    t.context.resolveHost = async (host) => (host === HOST ? ['93.184.215.14', address] : []);
    const sent = await sendTestEvent(OPERATOR, live.endpointId);
    expect(sent.outcome).toMatchObject({ ok: false, statusCode: null, error: `refused: ${HOST} resolves to an address that is not on the public internet` });
    await settles(live.endpointId, { kind: 'test', status: 'failed', last_error: sent.outcome.error });
    expect(receiver.received.length).toBe(before);
  });

  it('refuses an address that is an internal name or a private literal, even if stored', async () => {
    for (const [url, error] of [
      [`https://10.0.0.8:${receiver.port}/`, 'refused: 10.0.0.8 is not a public internet address'],
      [`https://[::ffff:7f00:1]:${receiver.port}/`, 'refused: ::ffff:7f00:1 is not a public internet address'],
      [`https://localhost:${receiver.port}/`, 'refused: localhost is an internal host name'],
      [`https://metadata.google.internal/`, 'refused: metadata.google.internal is an internal host name'],
      [`http://${HOST}/`, 'refused: http: addresses are not sent to'],
    ]) {
      await t.db.updateTable('webhook_endpoints').set({ url }).where('id', '=', live.endpointId).execute();
      expect((await sendTestEvent(OPERATOR, live.endpointId)).outcome.error).toBe(error);
    }
  });
});

describe('the connection goes to the vetted address, with the original Host and TLS name', () => {
  it('resolves once per send, connects to that answer, and a name that rebinds to a private address is refused', async () => {
    const tls = await startReceiver({ tls: TLS, host: 'pinned.localhost' });
    try {
      const m = await merchant('/', undefined, `${tls.url}/tls`);
      let lookups = 0;
      // Test endpoints may be on this machine: the name must resolve to loopback only.
      t.context.resolveHost = async (host) => {
        if (host !== 'pinned.localhost') return [];
        lookups += 1;
        return lookups === 1 ? ['127.0.0.1'] : ['127.0.0.1', '10.0.0.1'];
      };
      const first = await sendTestEvent(OPERATOR, m.endpointId);
      expect(first.outcome).toMatchObject({ ok: true, statusCode: 200 });
      expect(lookups).toBe(1);
      expect(tls.received).toHaveLength(1);
      expect(tls.received[0]!.headers.host).toBe(`pinned.localhost:${tls.port}`);
      expect(tls.received[0]!.servername).toBe('pinned.localhost');
      const second = await sendTestEvent(OPERATOR, m.endpointId);
      expect(second.outcome.error).toBe("refused: pinned.localhost resolves to an address that is not on this machine");
      expect(tls.received).toHaveLength(1);
    } finally {
      t.context.resolveHost = realResolve;
      await tls.close();
    }
  });
});

describe('the delivery log', () => {
  it('shows an endpoint\'s latest 50 deliveries, newest first, with the exact body', async () => {
    const m = await merchant('/log');
    const ids: string[] = [];
    for (let i = 0; i < 55; i += 1) {
      const id = newId('dlv');
      ids.push(id);
      await t.db.insertInto('webhook_deliveries').values({
        id, event_id: newId('evt'), endpoint_id: m.endpointId, kind: 'test', event_type: 'ping', body: `{"n":${i}}`,
        status: 'succeeded', manual_attempts: 1, created_at: t.clock.now(), finished_at: t.clock.now(),
      }).execute();
    }
    const log = await deliveryLog(OPERATOR, m.endpointId);
    expect(log.data).toHaveLength(50);
    expect(log.data.map((entry) => entry.id)).toEqual(ids.slice(5).reverse());
    expect(log.data[0]!.body).toBe('{"n":54}');
  });

  it('is scoped to the business it is read for', async () => {
    const m = await merchant('/scoped');
    const other = await t.business();
    await expect(deliveryLog(await asOperator(t.context, other.id), m.endpointId)).rejects.toThrow(/No webhook endpoint/);
    await expect(sendTestEvent(await asOperator(t.context, other.id), m.endpointId)).rejects.toThrow(/No webhook endpoint/);
    await expect(rollSecret(await asOperator(t.context, other.id), m.endpointId, false)).rejects.toThrow(/No webhook endpoint/);
    expect((await deliveryLog(await asOperator(t.context, m.biz.id), m.endpointId)).data).toEqual([]);
  });
});

describe('review regressions', () => {
  it('a 410 from an address the endpoint no longer has removes nothing', async () => {
    const m = await merchant('/moved-away');
    const target = (await loadTargets(t.db, [(await sendTestEvent(OPERATOR, m.endpointId)).delivery_id])).get((await latest(m.endpointId))!.id)!;
    await updateEndpoint(OPERATOR, m.endpointId, { url: `${receiver.url}/moved-here` });
    await t.db.transaction().execute(async (trx) => {
      await lockEndpoint(trx, m.endpointId);
      await removeGoneEndpoint(trx, target, t.clock.now());
    });
    expect((await t.request('GET', `/v1/webhook_endpoints/${m.endpointId}`, { key: m.key })).status).toBe(200);
  });

  it('re-queues a pending delivery whose job was lost, and it is delivered', async () => {
    respondPerPath({ '/lost-job': (response) => response.writeHead(500).end() });
    try {
      const m = await merchant('/lost-job');
      await startPayment(m.key);
      await settles(m.endpointId, { attempts: 1, status: 'pending' });
      // The job of attempt 2 disappears (a crash loop used up pg-boss's retries, say).
      await t.jobs.boss.deleteAllJobs('webhook-delivery');
      receiver.respond(answer(200, 'ok'));
      await t.jump(MINUTE + 11 * MINUTE);
      expect(await requeueOverdue(t.context)).toBeGreaterThanOrEqual(1);
      await settles(m.endpointId, { attempts: 2, status: 'succeeded' });
    } finally {
      receiver.respond(answer(200, 'ok'));
    }
  });

  it('keeps a roll\'s previous secret right when two rolls happen at once', async () => {
    const m = await merchant('/double-roll');
    const [a, b] = await Promise.all([
      rollSecret(OPERATOR, m.endpointId, true),
      rollSecret(OPERATOR, m.endpointId, true),
    ]);
    await sendTestEvent(OPERATOR, m.endpointId);
    const request = at('/double-roll').at(-1)!;
    const header = request.headers['service-signature'] as string;
    const now = unixSeconds(t.clock.now());
    // The later roll signs, and the earlier roll's secret (not the original) is the previous one.
    const signedBy = [a!.secret, b!.secret, m.secret].filter((secret) => verifiesWith(header, secret, request.body, now));
    expect(signedBy).toHaveLength(2);
    expect(signedBy).not.toContain(m.secret);
  });
});
