import type { ServerResponse } from 'node:http';
import { expect, vi } from 'vitest';
import { listWebhookDeliveries } from '../../src/webhooks/log/list-deliveries.ts';
import { asOperatorOn } from '../support/operator.ts';
import type { TestApp } from '../support/harness.ts';
import type { Receiver } from '../support/receiver.ts';

// What the delivery tests share: a merchant with an endpoint on the test receiver, a payment
// started to make an event, and the endpoint's newest delivery as the log shows it. Functions
// of the app and receiver getters, because a test file makes both only in its beforeAll.

export function webhookBench(app: () => TestApp, receiver: () => Receiver) {
  /** A new business with a secret key and one endpoint (on the receiver at `path` unless `url` is given). */
  async function merchant(path = '/hooks', events?: string[], url = `${receiver().url}${path}`) {
    const biz = await app().business();
    const key = (await biz.key()).secret;
    const created = await app().request('POST', '/v1/webhook_endpoints', { key, body: { url, ...(events ? { events } : {}) } });
    expect(created.status).toBe(201);
    return { biz, key, endpointId: created.body.id as string, secret: created.body.secret as string, path };
  }

  /** The endpoint's newest delivery in the log. */
  async function latest(endpointId: string) {
    const operator = await asOperatorOn(app().context, 'webhook_endpoint', endpointId);
    return (await listWebhookDeliveries.run(operator, { id: endpointId })).data[0];
  }

  /** Waits until the endpoint's newest delivery matches. */
  async function settles(endpointId: string, expected: Record<string, unknown>) {
    await vi.waitFor(async () => expect(await latest(endpointId)).toMatchObject(expected), { timeout: 5_000 });
  }

  /** Answers per path; anything else 200. */
  function respondPerPath(table: Record<string, (response: ServerResponse) => void>) {
    receiver().respond((request, response) => {
      const handler = table[request.path];
      if (handler) handler(response);
      else response.writeHead(200).end('ok');
    });
  }

  /** Creates a session and starts it: payment.started. Returns the payment id. */
  async function startPayment(key: string): Promise<string> {
    const session = await app().request('POST', '/v1/checkout_sessions', { key, body: { amount: '12.00', currency: 'USD', customer_email: 'buyer@example.com' } });
    expect(session.status).toBe(201);
    expect((await app().request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key, body: {} })).status).toBe(200);
    return session.body.id;
  }

  /** The requests the receiver got at `path`. */
  const at = (path: string) => receiver().received.filter((request) => request.path === path);

  return { merchant, latest, settles, respondPerPath, startPayment, at };
}
