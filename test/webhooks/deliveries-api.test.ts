import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DeliveryDetailOut, DeliveryList } from '../../src/webhooks/log/api-schemas.ts';
import { connectAgent } from '../support/agents.ts';
import { expectError } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { answer, startReceiver, verifiesWith, type Receiver } from '../support/receiver.ts';
import { webhookBench } from './support.ts';

// An endpoint's deliveries and their attempts over the API, with retry now and resend (issue 24):
// the dashboard's rules through the same verbs, the webhook scopes, and agents never seeing them.

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

const { merchant, startPayment, respondPerPath, at } = webhookBench(() => t, () => receiver);
const get = (key: string, path: string) => t.request('GET', path, { key });
const post = (key: string, path: string) => t.request('POST', path, { key });

describe('reading the log', () => {
  it('lists an endpoint\'s deliveries newest first with their exact bodies; one delivery with its attempts', async () => {
    const shop = await merchant('/log-read');
    const first = await startPayment(shop.key);
    await t.jump(1_000);
    const second = await startPayment(shop.key);
    await vi.waitFor(() => expect(at('/log-read')).toHaveLength(2), { timeout: 10_000 });
    await vi.waitFor(async () => {
      const listed = await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries`);
      expect(listed.body.data.map((delivery: { status: string }) => delivery.status)).toEqual(['succeeded', 'succeeded']);
    });
    const listed = await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries`);
    expect(DeliveryList.safeParse(listed.body).success).toBe(true);
    const [newest, oldest] = listed.body.data;
    expect(JSON.parse(newest.body).data.payment.id).toBe(second);
    expect(JSON.parse(oldest.body).data.payment.id).toBe(first);
    expect(newest).toMatchObject({ object: 'webhook_delivery', endpoint_id: shop.endpointId, event_type: 'payment.started', kind: 'event', livemode: false, attempt_count: 1, last_status_code: 200 });
    expect(at('/log-read').map((request) => request.body)).toContain(newest.body);
    const one = await get(shop.key, `/v1/webhook_deliveries/${newest.id}`);
    expect(one.status).toBe(200);
    expect(DeliveryDetailOut.safeParse(one.body).success).toBe(true);
    expect(one.body.attempts).toEqual([expect.objectContaining({ trigger: 'automatic', number: 1, succeeded: true, status_code: 200, url: `${receiver.url}/log-read` })]);
    // Pages of one, by next_cursor; a status filter.
    const page = await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries?limit=1`);
    expect(page.body).toMatchObject({ has_more: true, next_cursor: newest.id });
    const next = await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries?limit=1&starting_after=${newest.id}`);
    expect(next.body.data.map((delivery: { id: string }) => delivery.id)).toEqual([oldest.id]);
    expect((await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries?status=failed`)).body.data).toEqual([]);
    expectError(await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries?status=lost`), 400, 'invalid_filter', 'status');
  });

  it('refuses what the webhook scopes do not allow: a Read only key reads nothing of it; a plugin key neither', async () => {
    const shop = await merchant('/log-scopes');
    const readOnly = (await shop.biz.key({ access: 'read_only' })).secret;
    const plugin = (await shop.biz.key({ kind: 'plugin' })).secret;
    for (const key of [readOnly, plugin]) {
      const listed = await get(key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries`);
      expectError(listed, 403, 'insufficient_scope');
      expect(listed.body.error.message).toContain('webhooks:read');
      expectError(await post(key, '/v1/webhook_deliveries/dlv_x/retry'), 403, 'insufficient_scope');
    }
  });
});

describe('retry now and resend, by the dashboard\'s rules', () => {
  it('retries a delivery still being retried at once, keeping its schedule; refuses to retry a finished one (resend it)', async () => {
    const shop = await merchant('/log-retry');
    respondPerPath({ '/log-retry': (response) => response.writeHead(503).end('busy') });
    await startPayment(shop.key);
    let pending: { id: string; next_retry_at: number; attempt_count: number } | undefined;
    await vi.waitFor(async () => {
      pending = (await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries`)).body.data[0];
      expect(pending).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: 503 });
    }, { timeout: 10_000 });
    const stillFailing = await post(shop.key, `/v1/webhook_deliveries/${pending!.id}/retry`);
    expect(stillFailing.status, JSON.stringify(stillFailing.body)).toBe(200);
    expect(stillFailing.body).toMatchObject({ id: pending!.id, status: 'pending', attempt_count: 1, manual_attempt_count: 1, next_retry_at: pending!.next_retry_at });
    respondPerPath({});
    const retried = await post(shop.key, `/v1/webhook_deliveries/${pending!.id}/retry`);
    expect(retried.body).toMatchObject({ status: 'succeeded', attempt_count: 1, manual_attempt_count: 2, last_status_code: 200, next_retry_at: null });
    const attempts = (await get(shop.key, `/v1/webhook_deliveries/${pending!.id}`)).body.attempts;
    expect(attempts.map((attempt: { trigger: string }) => attempt.trigger)).toEqual(['automatic', 'retry_now', 'retry_now']);
    // The received bodies are identical: the same event on every attempt, freshly signed.
    const bodies = at('/log-retry').map((request) => request.body);
    expect(new Set(bodies).size).toBe(1);
    expect(verifiesWith(at('/log-retry').at(-1)!.headers['service-signature'] as string, shop.secret, bodies[0]!, Math.floor(t.clock.now().getTime() / 1000))).toBe(true);
    expectError(await post(shop.key, `/v1/webhook_deliveries/${pending!.id}/retry`), 409, 'invalid_state');
  });

  it('resends a finished delivery once with the same event id; refuses to resend one still retrying', async () => {
    const shop = await merchant('/log-resend');
    receiver.respond(answer(200));
    await startPayment(shop.key);
    let done: { id: string; event_id: string } | undefined;
    await vi.waitFor(async () => {
      done = (await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries`)).body.data[0];
      expect(done).toMatchObject({ status: 'succeeded' });
    }, { timeout: 10_000 });
    const before = at('/log-resend').length;
    const resent = await post(shop.key, `/v1/webhook_deliveries/${done!.id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ id: done!.id, status: 'succeeded', manual_attempt_count: 1 });
    expect(at('/log-resend')).toHaveLength(before + 1);
    expect(JSON.parse(at('/log-resend').at(-1)!.body).id).toBe(done!.event_id);

    respondPerPath({ '/log-resend': (response) => response.writeHead(500).end() });
    await startPayment(shop.key);
    let pending: { id: string } | undefined;
    await vi.waitFor(async () => {
      pending = (await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries?status=pending`)).body.data[0];
      expect(pending).toBeDefined();
    }, { timeout: 10_000 });
    expectError(await post(shop.key, `/v1/webhook_deliveries/${pending!.id}/resend`), 409, 'invalid_state');
    respondPerPath({});
  });

  it("answers 404 for another business's delivery and the other mode's", async () => {
    const shop = await merchant('/log-tenancy');
    const other = await merchant('/log-tenancy-other');
    const live = (await shop.biz.key({ mode: 'live' })).secret;
    await startPayment(shop.key);
    let id = '';
    await vi.waitFor(async () => {
      id = (await get(shop.key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries`)).body.data[0]?.id;
      expect(id).toBeTruthy();
    }, { timeout: 10_000 });
    for (const key of [other.key, live]) {
      expectError(await get(key, `/v1/webhook_deliveries/${id}`), 404, 'not_found');
      expectError(await get(key, `/v1/webhook_endpoints/${shop.endpointId}/deliveries`), 404, 'not_found');
      expectError(await post(key, `/v1/webhook_deliveries/${id}/resend`), 404, 'not_found');
    }
  });
});

it('shows an agent the events tools, never the deliveries ones', async () => {
  const biz = await t.business();
  const { token } = await connectAgent(t, biz, { resource: `${t.config.baseUrl}/mcp` });
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  expect(names).toEqual(expect.arrayContaining(['list_events', 'retrieve_event', 'wait_for_payment']));
  for (const hidden of ['list_endpoint_deliveries', 'retrieve_webhook_delivery', 'retry_delivery', 'resend_delivery']) expect(names).not.toContain(hidden);
  await expect(client.callTool({ name: 'retry_delivery', arguments: { id: 'dlv_x' } })).rejects.toThrow();
  await client.close();
  // Over REST the agent's token is refused the webhook scope too.
  const rest = await connectAgent(t, biz);
  expectError(await get(rest.token, '/v1/webhook_deliveries/dlv_x'), 403, 'insufficient_scope');
});
