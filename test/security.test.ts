import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopesForKey } from '../src/auth/scopes.ts';
import { pathParams, type Operation } from '../src/core/operation.ts';
import type { KeyAccess, KeyKind } from '../src/db/schema.ts';
import { operations } from '../src/operations.ts';
import { startTestApp, type TestApp, type TestBusiness } from './support/harness.ts';

// The shared security cases, run against every operation of the registry: a new operation
// cannot ship without a fixture here, so it cannot skip them.

let t: TestApp;
let owner: TestBusiness;
let ownerTestKey: string;
let ownerLiveKey: string;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  owner = await t.business();
  ownerTestKey = (await owner.key({ mode: 'test' })).secret;
  ownerLiveKey = (await owner.key({ mode: 'live' })).secret;
});
afterAll(async () => t?.close());

interface Call { path: string; body?: unknown }
type Fixture = (key: string) => Promise<Call>;

async function created(key: string, path: string, body: unknown): Promise<string> {
  const response = await t.request('POST', path, { key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

const link = (key: string) => created(key, '/v1/payment_links', { amount: '10.00', currency: 'USD', description: 'Fixture', customer_email: 'buyer@shop.example' });
const checkout = (key: string) => created(key, '/v1/checkouts', { name: 'Fixture', amount: '10.00', currency: 'USD' });
let endpointCount = 0;
/** Each mode holds at most 10 endpoints: clear the way so fixtures can always add one. */
async function roomForEndpoint(): Promise<{ url: string }> {
  await t.db.updateTable('webhook_endpoints').set({ deleted_at: new Date() }).where('deleted_at', 'is', null).execute();
  return { url: `https://hooks.example.com/${++endpointCount}` };
}
const endpoint = async (key: string) => created(key, '/v1/webhook_endpoints', await roomForEndpoint());
const session = (key: string) => created(key, '/v1/checkout_sessions', { amount: '10.00', currency: 'USD', customer_email: 'buyer@shop.example' });
async function orderOf(key: string): Promise<string> {
  const id = await session(key);
  const row = await t.db.selectFrom('payments').select('order_id').where('id', '=', id).executeTakeFirstOrThrow();
  return row.order_id ?? '';
}
async function customer(key: string): Promise<string> {
  const id = await link(key);
  const row = await t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.customer_id').where('p.id', '=', id).executeTakeFirstOrThrow();
  return row.customer_id ?? '';
}

/** For each operation: a valid call on objects owned by the key's business and mode. */
const fixtures: Record<string, Fixture> = {
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
  simulate_payment: async (key) => ({ path: `/v1/payments/${await session(key)}/simulate`, body: { outcome: 'failed' } }),
  retrieve_order: async (key) => ({ path: `/v1/orders/${await orderOf(key)}` }),
  list_orders: async () => ({ path: '/v1/orders' }),
  update_order: async (key) => ({ path: `/v1/orders/${await orderOf(key)}`, body: { fulfillment: 'unfulfilled' } }),
  report_order_event: async (key) => ({ path: `/v1/orders/${await orderOf(key)}/events`, body: { type: 'canceled' } }),
};

function call(operation: Operation, key: string | null, c: Call) {
  return t.request(operation.http.method, c.path, { key, body: c.body });
}

const hasId = (operation: Operation) => pathParams(operation).includes('id');
const isList = (operation: Operation) => operation.name.startsWith('list_');

it('every operation has a security fixture', () => {
  expect(operations.map((operation) => operation.name).filter((name) => !(name in fixtures))).toEqual([]);
});

describe.each(operations.map((operation) => [operation.name, operation] as const))('%s', (_name, operation) => {
  const fixture = (key: string) => (fixtures[operation.name] as Fixture)(key);

  it('succeeds for its owner', async () => {
    const response = await call(operation, ownerTestKey, await fixture(ownerTestKey));
    expect(response.status, JSON.stringify(response.body)).toBe(operation.http.status);
  });

  it('refuses a missing credential with 401 invalid_api_key and discovery', async () => {
    const response = await call(operation, null, await fixture(ownerTestKey));
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_api_key');
    expect(response.headers.get('www-authenticate')).toBe('Bearer resource_metadata="https://pay.example.test/.well-known/oauth-protected-resource/v1"');
  });

  it('refuses a revoked key with 401 invalid_api_key and error="invalid_token"', async () => {
    const key = await owner.key();
    const c = await fixture(key.secret);
    await key.revoke();
    const response = await call(operation, key.secret, c);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_api_key');
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it.each([
    ['api', 'full'], ['api', 'read_only'], ['plugin', 'full'], ['legacy', 'full'],
  ] as Array<[KeyKind, KeyAccess]>)('follows the scopes of a %s key with %s access', async (kind, access) => {
    const key = (await owner.key({ kind, access })).secret;
    const response = await call(operation, key, await fixture(ownerTestKey));
    if (scopesForKey(kind, access).includes(operation.scope)) {
      expect(response.status, JSON.stringify(response.body)).toBe(operation.http.status);
    } else {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('insufficient_scope');
      expect(response.body.error.message).toContain(operation.scope);
      expect(response.headers.get('www-authenticate')).toContain(`error="insufficient_scope", scope="${operation.scope}"`);
    }
  });

  it('answers 403 suspended for a suspended business, except where the spec allows', async () => {
    const business = await t.business();
    const key = (await business.key()).secret;
    const c = await fixture(key);
    await business.update({ status: 'suspended' });
    const response = await call(operation, key, c);
    if (operation.allowWhenSuspended) {
      expect(response.status).toBe(operation.http.status);
    } else {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('suspended');
    }
  });

  if (hasId(operation)) {
    it("answers 404 not_found for another business's object", async () => {
      const other = (await (await t.business()).key()).secret;
      const response = await call(operation, other, await fixture(ownerTestKey));
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    });

    it("answers 404 not_found for the other mode's object", async () => {
      const response = await call(operation, ownerLiveKey, await fixture(ownerTestKey));
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    });
  }

  if (isList(operation)) {
    it('lists only the caller\'s business and mode', async () => {
      const other = await t.business();
      const otherKey = (await other.key()).secret;
      await fixture(ownerTestKey);
      const mine = await call(operation, ownerTestKey, await fixture(ownerTestKey));
      const theirs = await call(operation, otherKey, await fixture(otherKey));
      const live = await call(operation, ownerLiveKey, await fixture(ownerLiveKey));
      const ids = (response: { body: { data: Array<{ id: string; livemode: boolean }> } }) => response.body.data.map((item) => item.id);
      expect(ids(mine).filter((id) => ids(theirs).includes(id) || ids(live).includes(id))).toEqual([]);
      expect(live.body.data.every((item: { livemode: boolean }) => item.livemode)).toBe(true);
      expect(mine.body.data.every((item: { livemode: boolean }) => !item.livemode)).toBe(true);
    });
  }
});
