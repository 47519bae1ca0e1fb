import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectAgent } from '../support/agents.ts';
import { dashboardMerchant, type DashboardMerchant } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The probes that held in issue 21, run against every dashboard route as the app registered it,
// so a new route cannot skip them: every form post checks its CSRF token before its handler, and
// every address of a business, or of an object of one, is 404 to whoever may not see it (another
// business's people, the other mode).

let t: TestApp;
let mine: DashboardMerchant;
let theirs: DashboardMerchant;
/** One object of each kind in `theirs`'s Test mode, by the route parameter that names it. */
let theirObjects: Record<string, string>;
/** The same kinds in `mine`'s Test mode. */
let myObjects: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  mine = await dashboardMerchant(t);
  theirs = await dashboardMerchant(t);
  myObjects = await objects(mine);
  theirObjects = await objects(theirs);
});
afterAll(async () => t?.close());

/** A paid session (payment, order, customer), a link, a checkout, an endpoint with a delivery, a key: each one's id. */
async function objects(m: DashboardMerchant): Promise<Record<string, string>> {
  const api = async (path: string, body: unknown) => (await t.request('POST', path, { key: m.key, body })).body;
  const endpoint = await api('/v1/webhook_endpoints', { url: 'https://hooks.example.com/every-route' });
  const session = await api('/v1/checkout_sessions', { amount: '10.00', currency: 'USD', customer_email: 'ada@buyer.example' });
  await api(`/v1/checkout_sessions/${session.id}/start`, {});
  const link = await api('/v1/payment_links', { amount: '5.00', currency: 'USD', description: 'Beans' });
  const checkout = await api('/v1/checkouts', { name: 'Beans', amount: '5.00', currency: 'USD' });
  const delivery = await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).executeTakeFirstOrThrow();
  // A connected agent over its limit: its approval request waits for a person.
  const { token, connection } = await connectAgent(t, m.biz, { policy: { liveNeedsApproval: false, limits: [{ currency: 'USD', perObjectMinor: 100, perDayMinor: 100 }] } });
  const asked = await t.request('POST', '/v1/payment_links', { key: token, body: { amount: '5.00', currency: 'USD', description: 'Beans' } });
  const approval = String(asked.body.error.approval_url).split('/').pop()!;
  return {
    payment: session.id, order: session.order_id, customer: session.customer_id, link: link.id, checkout: checkout.id,
    endpoint: endpoint.id, delivery: delivery.id, key: m.keyId, connection: connection.id, approval,
  };
}

const BUSINESS_ROUTE = '/dashboard/businesses/:business/';

/** A route's address with its parameters filled in. */
function address(url: string, business: string, mode: string, ids: Record<string, string>): string {
  return url.replace(/:(\w+)/g, (_match, name: string) => {
    if (name === 'business') return business;
    if (name === 'mode') return mode;
    if (name === 'area') return 'payments';
    const id = ids[name];
    if (!id) throw new Error(`No object for the route parameter :${name} (${url}): add one to objects().`);
    return id;
  });
}

const dashboardRoutes = (method: string) => t.routes.filter((route) => route.method === method && route.url.startsWith('/dashboard'));

it('knows every dashboard form post, and there are many', () => {
  expect(dashboardRoutes('POST').length).toBeGreaterThan(25);
});

it('every dashboard form post without the session\'s CSRF token, or with a wrong one, is refused with 403 before its handler runs', async () => {
  // Before a session exists there is nothing to forge: the sign-in form carries its own nonce.
  const beforeSession = new Set(['/dashboard/sign-in/link']);
  for (const route of dashboardRoutes('POST').filter((each) => !beforeSession.has(each.url))) {
    const path = address(route.url, mine.biz.id, 'test', myObjects);
    for (const csrf of [undefined, 'wrong']) {
      const page = await mine.owner.request('POST', path, { name: 'forged', email: 'intruder@evil.example', role: 'owner', ...(csrf ? { csrf } : {}) });
      expect(page.status, `${route.url} csrf=${csrf}`).toBe(403);
    }
  }
  expect(await t.db.selectFrom('people').select('id').where('email', '=', 'intruder@evil.example').execute()).toEqual([]);
  expect(await t.db.selectFrom('api_keys').select('id').where('name', '=', 'forged').execute()).toEqual([]);
});

it("every address of a business is 404 to a person of another business, whatever object it names", async () => {
  const routes = dashboardRoutes('GET').filter((route) => route.url.startsWith(BUSINESS_ROUTE));
  expect(routes.length).toBeGreaterThan(20);
  for (const route of routes) {
    for (const ids of [theirObjects, myObjects]) {
      const path = address(route.url, theirs.biz.id, 'test', ids);
      expect((await mine.owner.request('GET', path)).status, path).toBe(404);
    }
  }
});

it("every address of an object is 404 in its business with another business's object, and in the other mode", async () => {
  const routes = dashboardRoutes('GET').filter((route) => route.url.startsWith(BUSINESS_ROUTE) && /:(?!business|mode|area)\w+/.test(route.url));
  expect(routes.length).toBeGreaterThan(10);
  for (const route of routes) {
    // The owner's own object answers (or sends them on within the business), so the 404s below are about whose it is.
    const own = await mine.owner.request('GET', address(route.url, mine.biz.id, 'test', myObjects));
    expect(own.status, route.url).toBeLessThan(400);
    for (const [mode, ids] of [['test', theirObjects], ['live', myObjects]] as const) {
      const path = address(route.url, mine.biz.id, mode, ids);
      expect((await mine.owner.request('GET', path)).status, path).toBe(404);
    }
  }
});
