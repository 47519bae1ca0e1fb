import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import { operations } from '../../src/operations.ts';
import { eraseCustomer } from '../../src/resources/customers/erase.ts';
import { resendWebhookDelivery } from '../../src/webhooks/log/resend.ts';
import { recordSuccess } from '../../src/webhooks/successes.ts';
import { Browser } from '../support/browser.ts';
import { dashboardMerchant, type DashboardMerchant } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { asOperatorOn } from '../support/operator.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// Erasing a customer (spec 2.3 rule 7) leaves the details nowhere (issue 21's finding: store
// order number, store name and address, discount code, shipping method, item SKU and reference
// kept them in the API, the dashboard, stored bodies, a resend and response excerpts). Every text
// field of the order, the session, the link and the payment is filled with the customer's email,
// name and phone; after a payment, deliveries to a receiver that echoes each request, and an
// erasure from the dashboard, none of them is in any API answer, MCP read tool, dashboard page,
// payer page, resend, or row of the database (old row versions aside: docs/accept-payments.md, Erasure).

let t: TestApp;
let m: DashboardMerchant;
let receiver: Receiver;
let mcp: Client;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true });
  receiver = await startReceiver();
  // An endpoint that echoes what it is sent: its answer is kept as the attempt's excerpt.
  receiver.respond((request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(request.body));
  m = await dashboardMerchant(t);
  mcp = new Client({ name: 'erasure-check', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${m.key}` } } }));
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
  await receiver?.close();
});

const EMAIL = 'Erase-Me.Quill@Example-Shop.test';
const email = EMAIL.toLowerCase();
const NAME = 'Ottilie Quillfeather';
const PHONE = '+44 20 7946 0958';
/** What must be nowhere after the erasure, as searched: lowercased. */
const DETAILS = [email, NAME.toLowerCase(), PHONE];
const ADDRESS = { name: NAME, line1: '12 Quillfeather Mews', city: 'London', postal_code: 'N1 9GU', country: 'GB' };

const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await t.request(method, path, { key: m.key, body, headers });
  const status = method === 'POST' ? [200, 201] : [200];
  expect(status, `${method} ${path}: ${JSON.stringify(response.body)}`).toContain(response.status);
  return response.body;
};

/** The details a text still holds, by what they are. */
const found = (text: string) => DETAILS.filter((detail) => text.toLowerCase().includes(detail.toLowerCase()));

/** Every row of every table of the app (and pg-boss's and the processor's), as JSON: `table: row` for each row holding a detail. */
async function rowsHoldingDetails(): Promise<string[]> {
  const { rows: tables } = await sql<{ schema: string; table: string }>`SELECT table_schema AS schema, table_name AS table
    FROM information_schema.tables WHERE table_schema IN (current_schema(), 'pgboss', 'processor') AND table_type = 'BASE TABLE' ORDER BY 1, 2`.execute(t.db);
  const holding: string[] = [];
  for (const { schema, table } of tables) {
    const { rows } = await sql<{ row: string }>`SELECT row_to_json(r)::text AS row FROM ${sql.table(`${schema}.${table}`)} r`.execute(t.db);
    for (const { row } of rows) if (found(row).length > 0) holding.push(`${schema}.${table}: ${row.slice(0, 300)}`);
  }
  return holding;
}

/** Every page of the business's Test dashboard reachable by links from its areas, as the owner sees them. */
async function dashboardPages(): Promise<Map<string, string>> {
  const prefix = `/dashboard/businesses/${m.biz.id}/`;
  const pages = new Map<string, string>();
  const queue = ['/dashboard', ...['payments', 'orders', 'customers', 'payment_links', 'checkouts', 'webhooks', 'settings'].map((area) => m.area(area))];
  while (queue.length > 0 && pages.size < 400) {
    const path = queue.shift()!;
    if (pages.has(path)) continue;
    const page = await m.owner.visit(path);
    expect(page.status, path).toBe(200);
    pages.set(path, page.html);
    for (const match of page.html.matchAll(/href="([^"]+)"/g)) {
      const href = match[1]!.replaceAll('&amp;', '&');
      if (href.startsWith(prefix) && !href.includes('/live/') && !pages.has(href)) queue.push(href);
    }
  }
  return pages;
}

it('leaves none of the customer\'s details anywhere, a resend included', async () => {
  const endpoint = await api('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/hooks` });
  const checkout = await api('POST', '/v1/checkouts', { name: 'Gift box', amount: '5.00', currency: 'USD' });

  // A store order with every text field naming the customer.
  const session = await api('POST', '/v1/checkout_sessions', {
    amount: '40.00', currency: 'USD', customer_email: EMAIL, customer: { name: NAME, phone: PHONE },
    description: `Gift for ${NAME}`, reference: `lref-${email}`,
    metadata: { buyer: email, note: `call ${PHONE}`, count: 2 }, success_url: `https://shop.example/thanks?for=${email}`,
    order: {
      id: `wc-${email}`, number: `#${email}`, url: `https://shop.example/orders/${email}`,
      items: [{ name: `Engraved pen for ${NAME}`, variant: `engraving ${PHONE}`, sku: `sku-${email}`, quantity: 1, unit_amount: '30.00', amount: '30.00' }],
      discount_code: `WELCOME-${email}`, shipping: '10.00', shipping_method: `Courier to ${NAME}, call ${PHONE}`,
      ship_to: ADDRESS, bill_to: ADDRESS, customer_id: `store-${email}`,
      store: { platform: 'woocommerce', id: 'shop-1', name: `${NAME}'s corner shop`, url: `https://shop.example/${email}` },
    },
  }, { 'idempotency-key': `idem-${email}` });
  const customerId: string = session.customer_id;
  await api('POST', `/v1/checkout_sessions/${session.id}/start`, {});
  await api('POST', `/v1/payments/${session.id}/simulate`, { outcome: 'paid' });
  await api('POST', `/v1/payments/${session.id}/simulate`, { outcome: 'settled' });
  await api('POST', `/v1/orders/${session.order_id}/events`, { type: 'refunded', amount: '5.00', reason: `${NAME} asked, by ${email}` });

  // A payment link for the same customer, every text field naming them.
  t.clock.advance(MINUTE);
  const link = await api('POST', '/v1/payment_links', {
    amount: '15.00', currency: 'USD', description: `Invoice for ${NAME}`, reference: `inv-${email}`, memo: `Thanks ${NAME}, we will call ${PHONE}`,
    customer_name: NAME, customer_email: EMAIL, customer_phone: PHONE, shipping_address: ADDRESS, billing_address: ADDRESS,
    success_url: `https://shop.example/paid?for=${email}`,
  });
  await api('POST', `/v1/checkout_sessions/${link.id}/start`, {});
  await api('POST', `/v1/payments/${link.id}/simulate`, { outcome: 'paid' });
  expect((await api('GET', `/v1/payments/${link.id}`)).customer_id).toBe(customerId);

  // Every event delivered to the echoing receiver, so every excerpt holds the details.
  await vi.waitFor(async () => {
    const pending = await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).where('status', '!=', 'succeeded').execute();
    const all = await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute();
    // started, paid and updated of the session; started and paid of the link.
    expect(all.length).toBe(5);
    expect(pending).toEqual([]);
  }, { timeout: 10_000 });

  // Before: the search finds the details where the finding saw them (so it can find them at all).
  const orderBefore = JSON.stringify(await api('GET', `/v1/orders/${session.order_id}`));
  for (const detail of DETAILS) expect(orderBefore.toLowerCase()).toContain(detail.toLowerCase());
  const tablesBefore = new Set((await rowsHoldingDetails()).map((row) => row.split(':')[0]));
  expect([...tablesBefore]).toEqual(expect.arrayContaining([
    'public.orders', 'public.payments', 'public.events', 'public.webhook_delivery_attempts', 'public.order_timeline', 'public.idempotency_keys', 'public.customers',
  ]));
  const orderPage = `${m.area('orders')}/${session.order_id}`;
  expect(found((await m.owner.visit(orderPage)).html)).toEqual(DETAILS);

  // Erased from the dashboard, as a person does it.
  const customerPage = `${m.area('customers')}/${customerId}`;
  const confirm = await m.owner.visit(`${customerPage}/erase`);
  const erased = await m.owner.request('POST', `${customerPage}/erase`, { ...Browser.form(confirm.html, `${customerPage}/erase`), confirm: EMAIL });
  expect(erased.status).toBe(303);
  expect((await api('GET', `/v1/customers/${customerId}`)).erased).toBe(true);

  // The API: each object and each list.
  const answers: Record<string, unknown> = {};
  for (const path of [
    `/v1/orders/${session.order_id}`, `/v1/orders/${link.order_id}`, `/v1/payments/${session.id}`, `/v1/payments/${link.id}`,
    `/v1/checkout_sessions/${session.id}`, `/v1/payment_links/${link.id}`, `/v1/customers/${customerId}`,
    '/v1/orders', '/v1/payments', '/v1/payment_links', '/v1/customers', `/v1/orders?customer_id=${customerId}`,
  ]) answers[path] = await api('GET', path);
  for (const [path, answer] of Object.entries(answers)) expect(found(JSON.stringify(answer)), path).toEqual([]);
  // The fields keep their other words.
  expect(answers[`/v1/orders/${session.order_id}`]).toMatchObject({
    display_number: '#[erased]', discount_code: 'WELCOME-[erased]', shipping_method: 'Courier to [erased], call [erased]',
    store: { name: '[erased]\'s corner shop', url: 'https://shop.example/[erased]', order_id: 'wc-[erased]', order_number: '#[erased]', customer_id: 'store-[erased]' },
    items: [{ name: 'Engraved pen for [erased]', variant: 'engraving [erased]', sku: 'sku-[erased]', amount: '30.00' }],
    total: '40.00', status: 'paid',
  });
  expect(answers[`/v1/payments/${session.id}`]).toMatchObject({
    reference: 'lref-[erased]', description: 'Gift for [erased]', metadata: { buyer: null, note: 'call [erased]', count: 2 },
    success_url: 'https://shop.example/thanks?for=[erased]', amount: '40.00', status: 'paid',
  });

  // Every MCP read tool: a new one must be given arguments here.
  const argumentsOf: Record<string, Record<string, unknown>> = {
    retrieve_payment_link: { id: link.id }, list_payment_links: {}, retrieve_checkout: { id: checkout.id }, list_checkouts: {},
    retrieve_customer: { id: customerId }, list_customers: {}, retrieve_webhook_endpoint: { id: endpoint.id }, list_webhook_endpoints: {},
    retrieve_checkout_session: { id: session.id }, retrieve_payment: { id: session.id }, list_payments: {}, list_payment_transfers: { id: session.id },
    retrieve_order: { id: session.order_id }, list_orders: {}, get_credential: {},
    // The events as delivered, and the delivery log: the stored bodies the erasure rewrote.
    wait_for_payment: { id: session.id, status: 'open', timeout: 0 }, list_events: {},
    retrieve_event: { id: (await t.db.selectFrom('events').select('id').where('payment_id', '=', session.id).executeTakeFirstOrThrow()).id },
    list_endpoint_deliveries: { id: endpoint.id },
    retrieve_webhook_delivery: { id: (await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).executeTakeFirstOrThrow()).id },
  };
  const readTools = operations.filter((operation) => operation.annotations.readOnlyHint).map((operation) => operation.name);
  expect(readTools.filter((name) => !(name in argumentsOf)), 'read tools to call').toEqual([]);
  for (const name of readTools) {
    const result = await mcp.callTool({ name, arguments: argumentsOf[name] });
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    expect(found(JSON.stringify(result)), name).toEqual([]);
  }

  // Every page of the business's dashboard, and the payer pages.
  const pages = await dashboardPages();
  expect([...pages.keys()]).toEqual(expect.arrayContaining([orderPage, customerPage, `${m.area('payments')}/${session.id}`]));
  for (const [path, html] of pages) expect(found(html), path).toEqual([]);
  const payer = new Browser(t);
  for (const url of [session.url, link.url, link.tracking_url]) expect(found((await payer.visit(url)).html), url).toEqual([]);

  // A resend of every delivery carries none of it, and neither does what the endpoint echoed.
  const before = receiver.received.length;
  const deliveries = await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute();
  for (const { id } of deliveries) {
    expect((await resendWebhookDelivery.run(await asOperatorOn(t.context, 'webhook_delivery', id), { id })).outcome.ok).toBe(true);
  }
  const resent = receiver.received.slice(before);
  expect(resent).toHaveLength(deliveries.length);
  for (const request of resent) expect(found(request.body), request.body).toEqual([]);
  expect(JSON.parse(resent.find((request) => JSON.parse(request.body).data.payment.id === session.id)!.body).data).toMatchObject({
    payment: { reference: 'lref-[erased]', customerEmail: null, amount: '40.00' },
    order: { displayNumber: '#[erased]', summary: expect.stringContaining('[erased]'), discountCode: 'WELCOME-[erased]', shipTo: null },
    customer: { id: customerId, email: null, name: null, phone: null, erased: true },
  });

  // And no row of the database holds them: stored bodies, excerpts, activity, keys, pg-boss.
  expect(await rowsHoldingDetails()).toEqual([]);
});

it('keeps no excerpt of an attempt in flight while the erasure commits: the endpoint echoed the body sent before it', async () => {
  const mail = 'in-flight.buyer@example-shop.test';
  // The endpoint holds its answer to the first request until the erasure has committed.
  let answer: (() => void) | undefined;
  const arrived = new Promise<void>((resolve) => receiver.respond((request, response) => {
    answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end(request.body);
    resolve();
  }));
  const made = await api('POST', '/v1/checkout_sessions', { amount: '9.00', currency: 'USD', customer_email: mail });
  await api('POST', `/v1/checkout_sessions/${made.id}/start`, {});
  await arrived;
  expect(receiver.received.at(-1)!.body).toContain(mail);
  await eraseCustomer.run(await asOperatorOn(t.context, 'customer', made.customer_id), { id: made.customer_id });
  receiver.respond((request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(request.body));
  answer!();

  const attempts = () => t.db.selectFrom('webhook_delivery_attempts as a').innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('events as e', 'e.id', 'd.event_id').select(['a.response_excerpt', 'a.succeeded', 'a.trigger', 'd.id as delivery_id', 'a.endpoint_id'])
    .where('e.payment_id', '=', made.id).orderBy('a.id').execute();
  await vi.waitFor(async () => expect(await attempts()).toMatchObject([{ succeeded: true, trigger: 'automatic', response_excerpt: null }]), { timeout: 5_000 });
  // A send of the body as the erasure left it keeps what the endpoint answered.
  const deliveryId = (await attempts())[0]!.delivery_id;
  await resendWebhookDelivery.run(await asOperatorOn(t.context, 'webhook_delivery', deliveryId), { id: deliveryId });
  const [, resent] = await attempts();
  expect(resent).toMatchObject({ trigger: 'resend', succeeded: true, response_excerpt: expect.stringContaining('"customerEmail":null') });
  expect(JSON.stringify(await attempts())).not.toContain(mail);

  // A job run twice records its attempt again without applying it: the count is read from the row.
  const again = { delivery_id: deliveryId, endpoint_id: resent!.endpoint_id, number: 1, url: `${receiver.url}/hooks`, sent_at: t.clock.now(),
    duration_ms: 1, status_code: 200, response_excerpt: `{"customerEmail":"${mail}"}`, finished_at: t.clock.now() };
  await recordSuccess(t.db, { ...again, erasures: 0 });
  await recordSuccess(t.db, { ...again, response_excerpt: 'sent after the erasure', erasures: 1 });
  expect((await attempts()).slice(2)).toMatchObject([{ trigger: 'automatic', response_excerpt: null }, { trigger: 'automatic', response_excerpt: 'sent after the erasure' }]);
});
