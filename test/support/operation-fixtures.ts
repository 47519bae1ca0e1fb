import { randomBytes } from 'node:crypto';
import { newId } from '../../src/core/ids.ts';
import { expect } from 'vitest';
import type { TestApp } from './harness.ts';
import { reportProcessorStatus } from './processor-status.ts';

// For each operation of the registry: a valid call on objects owned by the key's business and
// mode, made as REST sees it (path and body). The shared security cases and the MCP tool table
// both run every operation through these, so a new operation cannot ship without one.

export interface Call { path: string; body?: unknown }
export type Fixture = (key: string) => Promise<Call>;

/**
 * One endpoint per key for the delivery lists, so the fixture's list and the objects made for it
 * agree (operationFixtures and listedObjects each have their makers; keys are unique secrets).
 */
const endpointsOfKeys = new Map<string, Promise<string>>();
/** One session per key whose books the transfers list reads. */
const sessionsOfKeys = new Map<string, Promise<string>>();

/** Objects made through the API for the key's business and mode; each returns the new id. */
function objectMakers(app: () => TestApp) {
  const request: TestApp['request'] = (...args) => app().request(...args);
  const db = () => app().db;

  async function created(key: string, path: string, body: unknown): Promise<string> {
    const response = await request('POST', path, { key, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.id;
  }

  const link = (key: string) => created(key, '/v1/payment_links', { amount: '10.00', currency: 'USD', description: 'Fixture', customer_email: 'buyer@shop.example' });
  const checkout = (key: string) => created(key, '/v1/checkouts', { name: 'Fixture', amount: '10.00', currency: 'USD' });
  let endpointCount = 0;
  const endpointBody = () => ({ url: `https://hooks.example.com/${++endpointCount}` });
  /** Each mode holds at most 10 endpoints: clear the way (in every business) so fixtures can always add one. */
  async function roomForEndpoint(): Promise<{ url: string }> {
    await db().updateTable('webhook_endpoints').set({ deleted_at: new Date() }).where('deleted_at', 'is', null).execute();
    return endpointBody();
  }
  const endpoint = async (key: string) => created(key, '/v1/webhook_endpoints', await roomForEndpoint());
  /** An endpoint added without clearing the way: for a business and mode known to have room. */
  const endpointBesideOthers = (key: string) => created(key, '/v1/webhook_endpoints', endpointBody());
  const session = (key: string) => created(key, '/v1/checkout_sessions', { amount: '10.00', currency: 'USD', customer_email: 'buyer@shop.example' });
  async function orderOf(key: string): Promise<string> {
    const id = await session(key);
    const row = await db().selectFrom('payments').select('order_id').where('id', '=', id).executeTakeFirstOrThrow();
    return row.order_id ?? '';
  }
  async function customer(key: string): Promise<string> {
    const id = await link(key);
    const row = await db().selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.customer_id').where('p.id', '=', id).executeTakeFirstOrThrow();
    return row.customer_id ?? '';
  }

  /** A started session: its payment.started event is written, with a delivery to each subscribed endpoint. */
  async function startedSession(key: string): Promise<string> {
    const id = await session(key);
    // A Live start needs a healthy processor's recent report.
    await reportProcessorStatus(app());
    const started = await request('POST', `/v1/checkout_sessions/${id}/start`, { key, body: { email: 'buyer@shop.example' } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    return id;
  }
  /** An event of the key's business and mode: a session's payment.started. */
  async function event(key: string): Promise<string> {
    const id = await startedSession(key);
    const row = await db().selectFrom('events').select('id').where('payment_id', '=', id).executeTakeFirstOrThrow();
    return row.id;
  }
  const endpointOfKey = (key: string) => {
    let id = endpointsOfKeys.get(key);
    if (id === undefined) {
      id = endpoint(key);
      endpointsOfKeys.set(key, id);
    }
    return id;
  };
  /** A delivery (pending: no workers run) to a new endpoint of the key's, or to `endpointId`'s when given (it must not be removed). */
  async function delivery(key: string, endpointId?: string): Promise<string> {
    const we = endpointId ?? await endpoint(key);
    const id = await startedSession(key);
    const row = await db().selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id').select('d.id')
      .where('e.payment_id', '=', id).where('d.endpoint_id', '=', we).executeTakeFirstOrThrow();
    return row.id;
  }
  /** A finished delivery (failed after its last attempt, as the schedule would leave it). */
  async function finishedDelivery(key: string): Promise<string> {
    const id = await delivery(key);
    await db().updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null, finished_at: new Date() }).where('id', '=', id).execute();
    return id;
  }
  /** A delivery on the key's own list endpoint (made again if a fixture cleared it away). */
  const sessionOfKey = (key: string) => {
    let id = sessionsOfKeys.get(key);
    if (id === undefined) {
      id = session(key);
      sessionsOfKeys.set(key, id);
    }
    return id;
  };
  /** A movement in the books of the key's session (a Live deposit's notice writes these; Test mode has none, so one is written here). */
  async function listedTransfer(key: string): Promise<string> {
    const paymentId = await sessionOfKey(key);
    const payment = await db().selectFrom('payments').select(['business_id', 'livemode']).where('id', '=', paymentId).executeTakeFirstOrThrow();
    const id = newId('mov');
    const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
    await db().insertInto('chain_movements').values({
      id, business_id: payment.business_id, livemode: payment.livemode, payment_id: paymentId, kind: 'deposit', network: 'polygon',
      tx_hash: hex(32), log_index: 0, block_number: 1, from_address: hex(20), to_address: hex(20), token: hex(20), coin: 'polygon_usdc',
      value: '10000000', decimals: 6, deposit_tx_hash: null, deposit_log_index: null, disposition: 'paid', recorded_at: new Date(),
    }).execute();
    return id;
  }

  async function listedDelivery(key: string): Promise<string> {
    let we = await endpointOfKey(key);
    const removed = await db().selectFrom('webhook_endpoints').select('deleted_at').where('id', '=', we).executeTakeFirstOrThrow();
    if (removed.deleted_at !== null) {
      endpointsOfKeys.delete(key);
      we = await endpointOfKey(key);
    }
    return delivery(key, we);
  }

  return { link, checkout, roomForEndpoint, endpoint, endpointBesideOthers, session, sessionOfKey, orderOf, customer, startedSession, event, endpointOfKey, delivery, finishedDelivery, listedDelivery, listedTransfer };
}

export function operationFixtures(app: () => TestApp): Record<string, Fixture> {
  const { link, checkout, roomForEndpoint, endpoint, session, sessionOfKey, orderOf, customer, event, endpointOfKey, delivery, finishedDelivery } = objectMakers(app);
  /** For each operation: a valid call on objects owned by the key's business and mode. */
  return {
    create_payment_link: async () => ({ path: '/v1/payment_links', body: { amount: '10.00', currency: 'USD', description: 'x' } }),
    retrieve_payment_link: async (key) => ({ path: `/v1/payment_links/${await link(key)}` }),
    list_payment_links: async () => ({ path: '/v1/payment_links' }),
    cancel_payment_link: async (key) => ({ path: `/v1/payment_links/${await link(key)}/cancel` }),
    create_checkout: async () => ({ path: '/v1/checkouts', body: { name: 'x', amount: '10.00', currency: 'USD' } }),
    retrieve_checkout: async (key) => ({ path: `/v1/checkouts/${await checkout(key)}` }),
    list_checkouts: async () => ({ path: '/v1/checkouts' }),
    retrieve_customer: async (key) => ({ path: `/v1/customers/${await customer(key)}` }),
    list_customers: async () => ({ path: '/v1/customers' }),
    create_webhook_endpoint: async () => ({ path: '/v1/webhook_endpoints', body: await roomForEndpoint() }),
    retrieve_webhook_endpoint: async (key) => ({ path: `/v1/webhook_endpoints/${await endpoint(key)}` }),
    list_webhook_endpoints: async () => ({ path: '/v1/webhook_endpoints' }),
    delete_webhook_endpoint: async (key) => ({ path: `/v1/webhook_endpoints/${await endpoint(key)}` }),
    create_checkout_session: async () => ({ path: '/v1/checkout_sessions', body: { amount: '10.00', currency: 'USD' } }),
    retrieve_checkout_session: async (key) => ({ path: `/v1/checkout_sessions/${await session(key)}` }),
    start_checkout_session: async (key) => ({ path: `/v1/checkout_sessions/${await session(key)}/start`, body: { email: 'buyer@shop.example' } }),
    retrieve_payment: async (key) => ({ path: `/v1/payments/${await session(key)}` }),
    list_payments: async () => ({ path: '/v1/payments' }),
    list_payment_transfers: async (key) => ({ path: `/v1/payments/${await sessionOfKey(key)}/transfers` }),
    simulate_payment: async (key) => ({ path: `/v1/payments/${await session(key)}/simulate`, body: { outcome: 'failed' } }),
    retrieve_order: async (key) => ({ path: `/v1/orders/${await orderOf(key)}` }),
    list_orders: async () => ({ path: '/v1/orders' }),
    update_order: async (key) => ({ path: `/v1/orders/${await orderOf(key)}`, body: { fulfillment: 'unfulfilled' } }),
    get_credential: async () => ({ path: '/v1/credential' }),
    report_order_event: async (key) => ({ path: `/v1/orders/${await orderOf(key)}/events`, body: { type: 'canceled' } }),
    // A status the payment is not in: the wait answers at once.
    wait_for_payment: async (key) => ({ path: `/v1/payments/${await session(key)}/wait?status=paid&timeout=1` }),
    list_events: async () => ({ path: '/v1/events' }),
    retrieve_event: async (key) => ({ path: `/v1/events/${await event(key)}` }),
    list_endpoint_deliveries: async (key) => ({ path: `/v1/webhook_endpoints/${await endpointOfKey(key)}/deliveries` }),
    retrieve_webhook_delivery: async (key) => ({ path: `/v1/webhook_deliveries/${await delivery(key)}` }),
    retry_delivery: async (key) => ({ path: `/v1/webhook_deliveries/${await delivery(key)}/retry` }),
    resend_delivery: async (key) => ({ path: `/v1/webhook_deliveries/${await finishedDelivery(key)}/resend` }),
  };
}

/** Makes an object that a list shows to `key`, and returns its id. */
export type ListedObject = (key: string) => Promise<string>;

/**
 * For each list operation: an object it shows to the key's business and mode, so a test can
 * make some in several businesses and modes and see which each caller is shown. Endpoints are
 * added beside the others (clearing the way would remove the other businesses' endpoints), so
 * each key must be of a business and mode with fewer than 10.
 */
export function listedObjects(app: () => TestApp): Record<string, ListedObject> {
  const { link, checkout, endpointBesideOthers, session, orderOf, customer, event, listedDelivery, listedTransfer } = objectMakers(app);
  return {
    list_payment_links: link,
    list_checkouts: checkout,
    list_customers: customer,
    list_webhook_endpoints: endpointBesideOthers,
    list_payments: session,
    list_orders: orderOf,
    list_events: event,
    list_endpoint_deliveries: listedDelivery,
    list_payment_transfers: listedTransfer,
  };
}
