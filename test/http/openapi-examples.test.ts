import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import { CustomerSnapshot, OrderSnapshot, PaymentEvent, PaymentSnapshot, PingEvent } from '../../src/events/payloads.ts';
import { PAYMENT_EVENT_TYPES, PING } from '../../src/events/types.ts';
import { EXAMPLES_FILE, type Examples, type Exchange } from '../../src/http/openapi-examples.ts';
import { operations } from '../../src/operations.ts';
import { sendTestWebhook } from '../../src/webhooks/log/send-test.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { asOperatorOn } from '../support/operator.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// The OpenAPI document's examples are real: this journey calls every operation against the
// running service (and makes it send every webhook event to a real receiver), records each
// request and answer, and compares them with src/http/openapi-examples.json, volatile values
// (random ids, transaction hashes, slugs, the receiver's port) aside. When the API changes on
// purpose: UPDATE_EXAMPLES=1 npx vitest run test/http/openapi-examples.test.ts, and review the diff.

const UPDATE = process.env.UPDATE_EXAMPLES === '1';
const CHECKOUT_NAME = 'Coffee subscription';
/** A text that makes a body over 64 KiB. */
const TOO_LARGE = 70 * 1024;

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '2' }, { workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const recorded: Examples = { operations: {}, errors: {}, webhooks: {} };

interface Call {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Record the answer as the shared example of its status too. */
  shared?: boolean;
}

/** One request, checked for its status and recorded for `operation` (the first answer of each status). */
async function call(operation: string, method: string, path: string, status: number, options: Call = {}): Promise<any> {
  const response = await t.request(method, path, { key: options.key, body: options.body, headers: options.headers });
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status);
  const exchange: Exchange = {
    request: { method, path, ...(options.headers ? { headers: options.headers } : {}), ...(options.body === undefined ? {} : { body: options.body }) },
    status,
    response: response.body,
  };
  const list = (recorded.operations[operation] ??= []);
  if (!list.some((known) => known.status === status)) list.push(exchange);
  if (options.shared) recorded.errors[String(status)] ??= exchange;
  return response.body;
}

/** A second of the clock passes: objects made one after another never share a creation time, so lists keep one order. */
const later = () => t.jump(1000);

/** The journey: every operation, its usual answer and the others it documents. */
async function journey(): Promise<void> {
  const biz = await t.business({ name: 'Kestrel Coffee Roasters' });
  const key = (await biz.key()).secret;
  const readOnly = (await biz.key({ access: 'read_only' })).secret;
  const paused = await t.business({ name: 'Paused Roasters', commerce: 'paused' });
  const pausedKey = (await paused.key()).secret;

  await call('get_credential', 'GET', '/v1/credential', 200, { key });

  // Webhook endpoints first, so every event below is delivered.
  const hooks = `${receiver.url.replace('127.0.0.1', 'localhost')}/webhooks`;
  const endpoint = await call('create_webhook_endpoint', 'POST', '/v1/webhook_endpoints', 201, { key, body: { url: hooks, description: 'Fulfilment' } });
  await call('create_webhook_endpoint', 'POST', '/v1/webhook_endpoints', 409, { key, body: { url: hooks } });
  await later();
  const old = await call('create_webhook_endpoint', 'POST', '/v1/webhook_endpoints', 201, {
    key, body: { url: `${hooks}/old`, events: ['payment.paid', 'payment.failed'], description: 'Old shop' },
  });
  await call('retrieve_webhook_endpoint', 'GET', `/v1/webhook_endpoints/${endpoint.id}`, 200, { key });
  await call('list_webhook_endpoints', 'GET', '/v1/webhook_endpoints?limit=2', 200, { key });
  await call('delete_webhook_endpoint', 'DELETE', `/v1/webhook_endpoints/${old.id}`, 200, { key });
  await later();

  // Payment links: one to show, one canceled, one whose payer reached a card provider.
  const link = await call('create_payment_link', 'POST', '/v1/payment_links', 201, {
    key,
    body: {
      amount: '25.00', currency: 'USD', description: 'Coffee beans, 1 kg', customer_name: 'Ada Lovelace', customer_email: 'ada@example.com',
      reference: 'INV-1001', memo: 'Thanks for your order!', expires_in_days: 7, success_url: 'https://kestrel.example/thanks', collect: { phone: true },
    },
  });
  await call('create_payment_link', 'POST', '/v1/payment_links', 400, { key, body: { amount: '25.5.0', currency: 'USD', description: 'Tea' }, shared: true });
  await call('create_payment_link', 'POST', '/v1/payment_links', 409, { key: pausedKey, body: { amount: '25.00', currency: 'USD', description: 'Tea' } });
  await call('create_payment_link', 'POST', '/v1/payment_links', 403, { key: readOnly, body: { amount: '25.00', currency: 'USD', description: 'Tea' }, shared: true });
  await later();
  const canceled = await call('create_payment_link', 'POST', '/v1/payment_links', 201, { key, body: { amount: '12.00', currency: 'EUR', description: 'Espresso cups' } });
  await call('cancel_payment_link', 'POST', `/v1/payment_links/${canceled.id}/cancel`, 200, { key });
  await later();
  const reached = await call('create_payment_link', 'POST', '/v1/payment_links', 201, { key, body: { amount: '40.00', currency: 'USD', description: 'Grinder' } });
  await call('start_checkout_session', 'POST', `/v1/checkout_sessions/${reached.id}/start`, 200, { key, body: { email: 'grace@example.com' } });
  await call('simulate_payment', 'POST', `/v1/payments/${reached.id}/simulate`, 200, { key, body: { outcome: 'provider_reached', provider: 'moonpay' } });
  await call('cancel_payment_link', 'POST', `/v1/payment_links/${reached.id}/cancel`, 409, { key });
  await call('retrieve_payment_link', 'GET', `/v1/payment_links/${link.id}`, 200, { key });
  await call('retrieve_payment_link', 'GET', '/v1/payment_links/pay_missing', 404, { key, shared: true });
  await call('list_payment_links', 'GET', '/v1/payment_links?limit=2&status=open', 200, { key });
  await later();

  // Checkouts.
  const checkout = await call('create_checkout', 'POST', '/v1/checkouts', 201, {
    key,
    body: {
      name: CHECKOUT_NAME, amount: '18.00', currency: 'USD', description: '250 g of fresh beans every month.', theme: 'dark',
      button_label: 'Subscribe', success_url: 'https://kestrel.example/welcome', routing: { choice: 'smart' }, collect: { shipping_address: true },
    },
  });
  await call('create_checkout', 'POST', '/v1/checkouts', 409, { key: pausedKey, body: { name: 'Beans', amount: '18.00', currency: 'USD' } });
  await call('retrieve_checkout', 'GET', `/v1/checkouts/${checkout.id}`, 200, { key });
  await call('list_checkouts', 'GET', '/v1/checkouts?kind=page', 200, { key });
  await later();

  // A store order paid in full (started, paid, settled), with an idempotent replay and a conflict.
  const address = { name: 'Ada Lovelace', line1: '12 Harbour Street', city: 'Portland', region: 'ME', postal_code: '04101', country: 'US' };
  const order = {
    currency: 'USD', reference: 'WC-1001', metadata: { cart: 'c_7731' }, success_url: 'https://kestrel.example/orders/1001?payment={PAYMENT_ID}',
    customer: { email: 'ada@example.com', name: 'Ada Lovelace', phone: '+1 207 555 0100' },
    order: {
      id: '1001', number: '#1001', url: 'https://kestrel.example/admin/orders/1001',
      items: [
        { name: 'House blend', variant: '1 kg, whole bean', sku: 'HB-1000', quantity: 2, unit_amount: '21.00', amount: '42.00' },
        { name: 'Paper filters', variant: null, sku: 'PF-100', quantity: 1, unit_amount: '4.50', amount: '4.50' },
      ],
      subtotal: '46.50', discount: '0.00', shipping: '5.00', shipping_method: 'Standard', tax: '0.00', total: '51.50',
      ship_to: address, bill_to: address,
      store: { platform: 'woocommerce', id: 'kestrel-shop', name: 'Kestrel Coffee', url: 'https://kestrel.example' },
      customer_id: 'wc-42',
    },
  };
  const idempotency = { 'Idempotency-Key': 'order-1001-attempt-1' };
  const session = await call('create_checkout_session', 'POST', '/v1/checkout_sessions', 201, { key, body: order, headers: idempotency });
  await call('create_checkout_session', 'POST', '/v1/checkout_sessions', 200, { key, body: order, headers: idempotency });
  await call('create_checkout_session', 'POST', '/v1/checkout_sessions', 409, { key, body: { ...order, reference: 'WC-1001-B' }, headers: idempotency });
  await call('retrieve_checkout_session', 'GET', `/v1/checkout_sessions/${session.id}`, 200, { key });
  await later();
  await call('simulate_payment', 'POST', `/v1/payments/${session.id}/simulate`, 409, { key, body: { outcome: 'settled' } });
  await call('start_checkout_session', 'POST', `/v1/checkout_sessions/${session.id}/start`, 200, { key, body: { email: 'ada@example.com', country: 'US' } });
  await later();
  await call('simulate_payment', 'POST', `/v1/payments/${session.id}/simulate`, 200, { key, body: { outcome: 'paid' } });
  await later();
  await call('simulate_payment', 'POST', `/v1/payments/${session.id}/simulate`, 200, { key, body: { outcome: 'settled' } });
  await call('start_checkout_session', 'POST', `/v1/checkout_sessions/${session.id}/start`, 409, { key, body: {} });
  await later();

  // Other endings: held, failed, expired.
  const plain = (description: string) => ({ amount: '30.00', currency: 'USD', description, customer_email: 'lin@example.com' });
  const held = await call('create_checkout_session', 'POST', '/v1/checkout_sessions', 201, { key, body: plain('Espresso machine descaler') });
  await call('start_checkout_session', 'POST', `/v1/checkout_sessions/${held.id}/start`, 200, { key, body: {} });
  await call('simulate_payment', 'POST', `/v1/payments/${held.id}/simulate`, 200, { key, body: { outcome: 'underpaid', amount_received: '20.00' } });
  await later();
  const failed = await call('create_checkout_session', 'POST', '/v1/checkout_sessions', 201, { key, body: plain('Gift card') });
  await call('start_checkout_session', 'POST', `/v1/checkout_sessions/${failed.id}/start`, 200, { key, body: {} });
  await call('simulate_payment', 'POST', `/v1/payments/${failed.id}/simulate`, 200, { key, body: { outcome: 'failed' } });
  await later();
  const expired = await call('create_checkout_session', 'POST', '/v1/checkout_sessions', 201, { key, body: plain('Tasting flight') });
  await call('simulate_payment', 'POST', `/v1/payments/${expired.id}/simulate`, 200, { key, body: { outcome: 'expired' } });
  await later();

  // Reading what happened; the order fulfilled and partly refunded.
  await call('retrieve_payment', 'GET', `/v1/payments/${session.id}`, 200, { key });
  await call('list_payments', 'GET', '/v1/payments?limit=2&source=api', 200, { key });
  // A Test payment moved no money on a chain: its books are empty (a Live one's list each transfer).
  await call('list_payment_transfers', 'GET', `/v1/payments/${session.id}/transfers`, 200, { key });
  await call('retrieve_order', 'GET', `/v1/orders/${session.order_id}`, 200, { key });
  await call('list_orders', 'GET', `/v1/orders?store_order_id=1001`, 200, { key });
  await call('update_order', 'PATCH', `/v1/orders/${session.order_id}`, 200, { key, body: { fulfillment: 'fulfilled' } });
  await later();
  await call('report_order_event', 'POST', `/v1/orders/${session.order_id}/events`, 201, {
    key, body: { type: 'refunded', amount: '5.00', reason: 'One bag arrived damaged.' },
  });
  const customers = await call('list_customers', 'GET', '/v1/customers?email=ADA@example.com', 200, { key });
  await call('retrieve_customer', 'GET', `/v1/customers/${customers.data[0].id}`, 200, { key });

  // A ping, sent as the dashboard's Send test event does.
  await sendTestWebhook.run(await asOperatorOn(t.context, 'webhook_endpoint', endpoint.id), { id: endpoint.id, type: PING });

  // What happened since, and waiting for a payment (issue 24).
  await call('wait_for_payment', 'GET', `/v1/payments/${session.id}/wait?status=open&timeout=5`, 200, { key });
  const events = await call('list_events', 'GET', `/v1/events?payment_id=${session.id}&limit=2`, 200, { key });
  await call('retrieve_event', 'GET', `/v1/events/${events.data[0].id}`, 200, { key });

  // The delivery log: an endpoint that answers 503 keeps its delivery retrying; retry it now, resend a finished one.
  receiver.respond((request, response) => response.writeHead(request.path === '/refusing' ? 503 : 200).end(request.path === '/refusing' ? 'busy' : 'ok'));
  const refusing = await call('create_webhook_endpoint', 'POST', '/v1/webhook_endpoints', 201, { key, body: { url: hooks.replace('/webhooks', '/refusing') } });
  await later();
  const retried = await call('create_checkout_session', 'POST', '/v1/checkout_sessions', 201, { key, body: plain('Cold brew filters') });
  await call('start_checkout_session', 'POST', `/v1/checkout_sessions/${retried.id}/start`, 200, { key, body: {} });
  await vi.waitFor(async () => {
    const log = await t.request('GET', `/v1/webhook_endpoints/${refusing.id}/deliveries`, { key });
    expect(log.body.data[0]).toMatchObject({ status: 'pending', attempt_count: 1 });
  }, { timeout: 10_000 });
  await later();
  const pending = await call('list_endpoint_deliveries', 'GET', `/v1/webhook_endpoints/${refusing.id}/deliveries?limit=2`, 200, { key });
  await call('retrieve_webhook_delivery', 'GET', `/v1/webhook_deliveries/${pending.data[0].id}`, 200, { key });
  await call('retry_delivery', 'POST', `/v1/webhook_deliveries/${pending.data[0].id}/retry`, 200, { key });
  await call('resend_delivery', 'POST', `/v1/webhook_deliveries/${pending.data[0].id}/resend`, 409, { key });
  const delivered = await t.request('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=succeeded&limit=1`, { key });
  await call('resend_delivery', 'POST', `/v1/webhook_deliveries/${delivered.body.data[0].id}/resend`, 200, { key });
  await call('retry_delivery', 'POST', `/v1/webhook_deliveries/${delivered.body.data[0].id}/retry`, 409, { key });

  // The answers every operation can give, once each.
  await call('create_payment_link', 'POST', '/v1/payment_links', 413, { key, shared: true, body: { description: 'x'.repeat(TOO_LARGE) } });
  await call('create_payment_link', 'POST', '/v1/payment_links', 415, { key, headers: { 'Content-Type': 'text/plain' }, shared: true });
  await call('list_payments', 'GET', '/v1/payments', 401, { key: null, shared: true });
  await call('list_payments', 'GET', '/v1/payments', 401, { key: 'sk_test_not_a_key' });
  await call('list_payments', 'GET', '/v1/payments', 429, { key: 'sk_test_not_a_key', shared: true });
}

it('answers every operation as src/http/openapi-examples.json shows, and sends every event type', async () => {
  await journey();

  // Every operation has its usual answer recorded, and the others it documents.
  for (const operation of operations) {
    const statuses = (recorded.operations[operation.name] ?? []).map((exchange) => exchange.status);
    expect(statuses, operation.name).toContain(operation.http.status);
    for (const status of Object.keys(operation.http.alsoAnswers ?? {})) expect(statuses, operation.name).toContain(Number(status));
    if (operation.conflicts?.length) expect(statuses, `${operation.name} answers a 409`).toContain(409);
  }
  // The huge body is not kept: what it was is enough.
  for (const exchange of Object.values(recorded.operations).flat().concat(Object.values(recorded.errors))) {
    if (exchange.status === 413) exchange.request.body = { description: `(${TOO_LARGE} characters)` };
  }

  // Every event type arrives, each body of the published shape (as received: the exact bytes).
  const wanted = [...PAYMENT_EVENT_TYPES, PING];
  const deliveries = () => receiver.received.filter((request) => request.path === '/webhooks').map((request) => JSON.parse(request.body));
  await vi.waitFor(() => expect(new Set(deliveries().map((body) => body.type))).toEqual(new Set(wanted)), { timeout: 15_000 });
  for (const type of wanted) {
    const body = deliveries().find((delivered) => delivered.type === type && delivered.data.payment?.metadata?.sample !== true);
    expect(body, type).toBeDefined();
    if (type === PING) {
      expect(sameKeys(PingEvent, body)).toBe(true);
      PingEvent.parse(body);
    } else {
      PaymentEvent.parse(body);
      expect(sameKeys(PaymentEvent, body), type).toBe(true);
      expect(sameKeys(PaymentSnapshot, body.data.payment), `${type} payment`).toBe(true);
      if (body.data.order) expect(sameKeys(OrderSnapshot, body.data.order), `${type} order`).toBe(true);
      if (body.data.customer) expect(sameKeys(CustomerSnapshot, body.data.customer), `${type} customer`).toBe(true);
    }
    recorded.webhooks[type] = body;
  }

  const committed = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8'));
  if (UPDATE) writeFileSync(EXAMPLES_FILE, `${JSON.stringify(recorded, null, 2)}\n`);
  else {
    expect(normalised(recorded), 'The API answers differently from src/http/openapi-examples.json. If that is on purpose, run ' +
      'UPDATE_EXAMPLES=1 npx vitest run test/http/openapi-examples.test.ts and review the diff.').toEqual(normalised(committed));
  }
}, 120_000);

it('publishes the recorded examples in the served document', async () => {
  const document = (await t.request('GET', '/v1/openapi.json')).body;
  const committed = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Examples;
  const create = document.paths['/v1/payment_links'].post;
  expect(create.requestBody.content['application/json'].examples.recorded.value).toEqual(committed.operations.create_payment_link![0]!.request.body);
  expect(create.responses['201'].content['application/json'].examples.recorded.value).toEqual(committed.operations.create_payment_link![0]!.response);
  expect(document.webhooks['payment.paid'].post.requestBody.content['application/json'].examples.delivered.value).toEqual(committed.webhooks['payment.paid']);
});

/** Whether `value` has exactly the keys of the zod object `schema` (a new field must be published too). */
function sameKeys(schema: z.ZodObject, value: Record<string, unknown>): boolean {
  return JSON.stringify(Object.keys(value).sort()) === JSON.stringify(Object.keys(schema.shape).sort());
}

/** The examples with what differs from run to run replaced by what it is. */
function normalised(examples: unknown): unknown {
  const text = JSON.stringify(examples)
    .replace(/\b(pay|ord|cus|chk|we|evt|dlv|biz|key|per|con|trk)_[0-9A-Za-z]{24}\b/g, '$1_ID')
    // Deliveries an event writes take their ids from PostgreSQL (a UUID's hex); how long a send took varies.
    .replace(/\bdlv_[0-9a-f]{32}\b/g, 'dlv_ID')
    .replace(/"duration_ms":\d+/g, '"duration_ms":0')
    .replace(/\bwhsec_[0-9A-Za-z]+/g, 'whsec_SECRET')
    .replace(/\b0x[0-9a-f]{64}\b/g, '0xTRANSACTION')
    .replace(/\blocalhost:\d+/g, 'localhost:PORT')
    .replace(/\bcoffee-subscription-[0-9a-z]{8}\b/g, 'coffee-subscription-SLUG');
  return JSON.parse(text);
}
