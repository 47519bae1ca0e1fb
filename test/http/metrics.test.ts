import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildMetricsApp } from '../../src/app.ts';
import { DAY, MINUTE, SECOND } from '../../src/core/clock.ts';
import { readinessOf } from '../../src/health.ts';
import { LINK_BODY } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { answer, startReceiver, type Receiver } from '../support/receiver.ts';
import { webhookBench } from '../webhooks/support.ts';

// Prometheus metrics through HTTP: who may read them (a token on the main port, a listener of
// their own on METRICS_PORT), and that the series move with real traffic: requests by route
// pattern, rate-limit refusals, real deliveries to a real receiver, the delivery queue and the
// expiry lag read from the database at scrape time.

const TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

/** The value of one series (name with its labels, as written in the exposition); 0 when absent. */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describe('without METRICS_TOKEN', () => {
  let t: TestApp;
  let side: FastifyInstance;
  beforeAll(async () => {
    t = await startTestApp();
    side = await buildMetricsApp(t.context, readinessOf(t.context.db));
  });
  afterAll(async () => {
    await side?.close();
    await t?.close();
  });

  it('serves no /metrics on the main port', async () => {
    const response = await t.request('GET', '/metrics');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  it('serves /metrics, /healthz and /readyz on the METRICS_PORT listener to whoever reaches it', async () => {
    const url = await listen(side);
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE http_request_duration_seconds histogram');
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok' } });
  });
});

describe('with METRICS_TOKEN', () => {
  let t: TestApp;
  let receiver: Receiver;
  // Workers start in the delivery test, once a backlog has waited.
  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '2' }, { role: 'all' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  const { merchant, startPayment, at } = webhookBench(() => t, () => receiver);

  async function scrape(): Promise<string> {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return response.text();
  }

  it('answers 401 without the token or with another, on the main port and on METRICS_PORT', async () => {
    const side = await buildMetricsApp(t.context, readinessOf(t.context.db));
    try {
      for (const url of [t.url, await listen(side)]) {
        for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`]) {
          const response = await fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} });
          expect(response.status).toBe(401);
          expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
          expect((await response.json()).error.code).toBe('invalid_token');
        }
        expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
      }
    } finally {
      await side.close();
    }
  });

  it('names every series it promises', async () => {
    const text = await scrape();
    for (const name of [
      'http_request_duration_seconds', 'webhook_delivery_attempts_total', 'webhook_delivery_latency_seconds', 'webhook_deliveries_due',
      'webhook_oldest_due_delivery_seconds', 'payment_expiry_lag_seconds', 'rate_limit_refusals_total', 'db_pool_connections', 'db_pool_waiting', 'db_pool_max_connections',
    ]) expect(text).toContain(`# TYPE ${name} `);
    expect(valueOf(text, 'db_pool_max_connections')).toBe(5);
    expect(valueOf(text, 'db_pool_connections{state="total"}')).toBeGreaterThan(0);
  });

  it('counts requests by route pattern and status, never by the raw path', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    const link = (await t.request('POST', '/v1/payment_links', { key, body: LINK_BODY })).body;
    const series = 'http_request_duration_seconds_count{method="GET",route="/v1/payment_links/:id",status_code="200"}';
    const before = valueOf(await scrape(), series);
    for (let i = 0; i < 3; i += 1) expect((await t.request('GET', `/v1/payment_links/${link.id}`, { key })).status).toBe(200);
    expect((await t.request('GET', '/no/such/path/123')).status).toBe(404);
    const text = await scrape();
    expect(valueOf(text, series)).toBe(before + 3);
    expect(valueOf(text, 'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v1/payment_links/:id",status_code="200"}')).toBe(before + 3);
    expect(valueOf(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}')).toBe(1);
    expect(text).not.toContain(link.id);
    expect(text).not.toContain('/no/such');
  });

  it('counts rate-limit refusals by limit', async () => {
    const series = 'rate_limit_refusals_total{limit="unauthenticated"}';
    const before = valueOf(await scrape(), series);
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await t.request('GET', '/v1/payment_links', { key: 'sk_test_wrong' })).status);
    const refused = statuses.filter((status) => status === 429).length;
    expect(refused).toBeGreaterThanOrEqual(3);
    expect(valueOf(await scrape(), series)).toBe(before + refused);
  });

  it('reports the delivery queue and its oldest due delivery, then real deliveries by result and attempt, and the commit-to-send latency', async () => {
    const ok = await merchant('/ok');
    const failing = await merchant('/failing');
    receiver.respond((request, response) => (request.path === '/failing' ? answer(500) : answer(200))(request, response));
    await startPayment(ok.key);
    await startPayment(failing.key);
    // No worker yet: both deliveries wait, due since their events were written.
    await t.jump(90 * SECOND);
    let text = await scrape();
    expect(valueOf(text, 'webhook_deliveries_due')).toBe(2);
    expect(valueOf(text, 'webhook_oldest_due_delivery_seconds')).toBe(90);

    await t.workers();
    await vi.waitFor(() => expect(at('/ok').length + at('/failing').length).toBe(2), { timeout: 10_000 });
    await vi.waitFor(async () => {
      text = await scrape();
      expect(valueOf(text, 'webhook_delivery_attempts_total{result="succeeded",attempt="1"}')).toBe(1);
      expect(valueOf(text, 'webhook_delivery_attempts_total{result="failed",attempt="1"}')).toBe(1);
    }, { timeout: 10_000 });
    // Sent 90 seconds (of the test clock) after their events were committed.
    expect(valueOf(text, 'webhook_delivery_latency_seconds_count')).toBe(2);
    expect(valueOf(text, 'webhook_delivery_latency_seconds_sum')).toBe(180);
    expect(valueOf(text, 'webhook_delivery_latency_seconds_bucket{le="60"}')).toBe(0);
    expect(valueOf(text, 'webhook_delivery_latency_seconds_bucket{le="300"}')).toBe(2);
    // The failed one waits a minute for its second attempt: queued, not due. (Scraped again: a
    // scrape reads the database before it writes the counters, which may have moved meanwhile.)
    text = await scrape();
    expect(valueOf(text, 'webhook_deliveries_due')).toBe(0);
    expect(valueOf(text, 'webhook_oldest_due_delivery_seconds')).toBe(0);

    receiver.respond(answer(200));
    await t.jump(MINUTE);
    await vi.waitFor(async () => {
      await t.tick(SECOND);
      expect(valueOf(await scrape(), 'webhook_delivery_attempts_total{result="succeeded",attempt="2"}')).toBe(1);
    }, { timeout: 10_000 });
  });

  it('reports how far past its expiry the oldest unexpired payment is, until the expiry job runs', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    await startPayment(key);
    expect(valueOf(await scrape(), 'payment_expiry_lag_seconds')).toBe(0);
    // Every payment started in this file expires a day after its start: the earliest is now at
    // least 30 seconds past it, with no expiry sweep in between (a jump fires no schedule).
    await t.jump(DAY + 30 * SECOND);
    const oldest = await t.db.selectFrom('payments').select((eb) => eb.fn.min('expires_at').as('at')).where('status', 'in', ['open', 'pending']).executeTakeFirstOrThrow();
    const lag = valueOf(await scrape(), 'payment_expiry_lag_seconds');
    expect(lag).toBe((t.clock.now().getTime() - new Date(oldest.at as Date).getTime()) / 1000);
    expect(lag).toBeGreaterThanOrEqual(30);
    // The minute's sweep expires them all.
    await vi.waitFor(async () => {
      await t.tick(MINUTE);
      expect(valueOf(await scrape(), 'payment_expiry_lag_seconds')).toBe(0);
    }, { timeout: 15_000 });
  });
});
