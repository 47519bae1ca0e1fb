import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetricsApp } from '../../src/app.ts';
import { readinessOf } from '../../src/health.ts';
import { updateWebhookEndpoint } from '../../src/resources/webhook-endpoints/update.ts';
import { sendTestWebhook } from '../../src/webhooks/log/send-test.ts';
import { accountInBothModes, expectCreated, expectError } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { asOperatorOn } from '../support/operator.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { webhookBench } from './support.ts';

// Issue 31, must have 5: a Test endpoint may be http://localhost (spec 4.4), but never one of the
// service's own ports on this machine (its API, its metrics listener, its PostgreSQL): refused when
// the address is given and again at every send, so no Test key reads a listener's answer back
// through the delivery log. Ports come from the configuration (what a worker knows of the API)
// and from each listener as it binds (PORT=0 here).

let t: TestApp;
/** Stands in for the metrics listener of the configuration (METRICS_PORT): it records what reaches it. */
let configuredMetrics: Receiver;
/** A real metrics listener, on a port it picked when it bound. */
let metricsApp: FastifyInstance;
let boundMetricsPort: number;
/** Someone else's listener on this machine: a developer's receiver. */
let receiver: Receiver;
beforeAll(async () => {
  configuredMetrics = await startReceiver();
  receiver = await startReceiver();
  t = await startTestApp({ RATE_LIMITS: 'off', METRICS_PORT: String(configuredMetrics.port) });
  metricsApp = await buildMetricsApp(t.context, readinessOf(t.context.db));
  await metricsApp.listen({ port: 0, host: '127.0.0.1' });
  boundMetricsPort = (metricsApp.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await metricsApp?.close();
  await t?.close();
  await configuredMetrics?.close();
  await receiver?.close();
});

const apiPort = () => Number(new URL(t.url).port);
const pgPort = () => Number(new URL(t.config.databaseUrl!).port);
const create = (key: string, url: string) => t.request('POST', '/v1/webhook_endpoints', { key, body: { url } });
const { settles } = webhookBench(() => t, () => receiver);

describe('a Test endpoint on the service\'s own port is refused when given', () => {
  it.each([
    ['the API\'s port, as bound', () => `http://127.0.0.1:${apiPort()}/v1/webhook_endpoints`],
    ['the API\'s port by name', () => `http://localhost:${apiPort()}/healthz`],
    ['the API\'s configured PORT (what a worker process knows)', () => 'http://localhost:3000/'],
    ['the configured METRICS_PORT', () => `http://127.0.0.1:${configuredMetrics.port}/metrics`],
    ['a metrics listener\'s port, as bound', () => `http://localhost:${boundMetricsPort}/metrics`],
    ['the same over IPv6 loopback', () => `http://[::1]:${boundMetricsPort}/metrics`],
    ['the same under a .localhost name, over https', () => `https://metrics.localhost:${boundMetricsPort}/metrics`],
    ['PostgreSQL\'s port', () => `http://127.0.0.1:${pgPort()}/`],
  ])('%s: 400 invalid_url, field url', async (_name, url) => {
    const { test } = await accountInBothModes(t);
    const response = await create(test, url());
    expectError(response, 400, 'invalid_url', 'url');
    expect(response.body.error.message).toMatch(/^url must not point at this service: port \d+ on this machine is one of the service's own listeners; use your receiver's port\.$/);
  });

  it('http://localhost on another port is still accepted', async () => {
    const { test } = await accountInBothModes(t);
    for (const url of [`http://localhost:${receiver.port}/hooks`, `http://127.0.0.1:${receiver.port}/other`]) {
      expect(expectCreated(await create(test, url)).url).toBe(url);
    }
  });

  it('and an edit to one of its ports is refused too', async () => {
    const { test } = await accountInBothModes(t);
    const endpoint = expectCreated(await create(test, `http://localhost:${receiver.port}/edited`));
    const operator = await asOperatorOn(t.context, 'webhook_endpoint', endpoint.id);
    await expect(updateWebhookEndpoint.run(operator, { id: endpoint.id, url: `http://localhost:${boundMetricsPort}/metrics` }))
      .rejects.toMatchObject({ code: 'invalid_url', field: 'url' });
  });
});

describe('and again at every send', () => {
  it('an endpoint stored with an own port (given before the rule, or before a port changed) fails its send, and nothing reaches the port', async () => {
    const { test } = await accountInBothModes(t);
    const endpoint = expectCreated(await create(test, `http://localhost:${receiver.port}/moved`));
    for (const url of [`http://127.0.0.1:${configuredMetrics.port}/metrics`, `http://localhost:${boundMetricsPort}/metrics`, `http://127.0.0.1:${apiPort()}/healthz`]) {
      await t.db.updateTable('webhook_endpoints').set({ url }).where('id', '=', endpoint.id).execute();
      const sent = await sendTestWebhook.run(await asOperatorOn(t.context, 'webhook_endpoint', endpoint.id), { id: endpoint.id });
      const port = new URL(url).port;
      expect(sent.outcome).toMatchObject({ ok: false, statusCode: null, excerpt: null, error: `refused: port ${port} on this machine is one of the service's own listeners` });
      await settles(endpoint.id, { kind: 'test', status: 'failed', last_error: sent.outcome.error });
    }
    expect(configuredMetrics.received).toEqual([]);
    expect(receiver.received).toEqual([]);

    // Back on the developer's receiver, the same endpoint is sent to.
    await t.db.updateTable('webhook_endpoints').set({ url: `http://localhost:${receiver.port}/moved` }).where('id', '=', endpoint.id).execute();
    const sent = await sendTestWebhook.run(await asOperatorOn(t.context, 'webhook_endpoint', endpoint.id), { id: endpoint.id });
    expect(sent.outcome.ok).toBe(true);
    expect(receiver.received.map((request) => request.path)).toEqual(['/moved']);
  });
});
