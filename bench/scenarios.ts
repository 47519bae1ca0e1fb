import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext } from '../src/verbs/context.ts';
import { operatorPrincipal } from '../src/auth/operator.ts';
import { API_SCOPES } from '../src/auth/scopes.ts';
import { openSession, sessionCookieName } from '../src/auth/sessions.ts';
import { createApiKey } from '../src/resources/api-keys/create.ts';
import { createBusiness } from '../src/tenancy/businesses.ts';
import type { RequestSpec } from './load.ts';

// The benchmark's rows. Each scenario loads one service endpoint and the baseline route doing
// the equivalent single query, with the same autocannon settings, and passes when
// service req/s / baseline req/s >= target. A write row also measures the same-work baseline
// (the same rows, bench/same-work.ts), with a target of its own. To add a row, append a
// defineScenario({...}).

export interface ApiResponse {
  status: number;
  body: any;
}

/** What a scenario can use: the running servers, the app's database, a tenant with a Test key. */
export interface BenchEnv {
  serviceUrl: string;
  baselineUrl: string;
  context: AppContext;
  businessId: string;
  /** A Test secret key of businessId with full access. */
  secretKey: string;
  /** Authorization header for the service, with secretKey. */
  auth: Record<string, string>;
  /** One JSON call to the service as the tenant (for setup), e.g. api('POST', '/v1/payment_links', {...}). */
  api(method: RequestSpec['method'], path: string, body?: unknown): Promise<ApiResponse>;
  /** A second service on a database of its own in the same cluster (made, migrated, served; closed at the end). */
  serveDatabase(name: string): Promise<{ url: string; databaseUrl: string; context: AppContext }>;
}

/** A request spec, or one built from the scenario's setup result. */
export type RequestFor<S> = RequestSpec | ((state: S, env: BenchEnv) => RequestSpec);

export interface Scenario<S = unknown> {
  /** The row's name in the table. */
  name: string;
  /** Minimum service/baseline ratio of req/s. */
  target: number;
  /** Runs once before the scenario's load runs; its result is passed to service/baseline builders. */
  setup?: (env: BenchEnv) => Promise<S>;
  service: RequestFor<S>;
  baseline: RequestFor<S>;
  /** Measure the baseline request against the service itself (a ratio between two credentials). */
  baselineOnService?: boolean;
  /** What the baseline column is, when it is not the baseline server. */
  baselineLabel?: string;
  /** Where the service side (and a baseline on the service) is measured when not the main service. */
  url?: (state: S) => string;
  /**
   * The same rows written by the bare server in one statement (bench/same-work.ts), so the
   * ratio against it is our overhead, not our work (issue 32); `target` is that ratio's minimum.
   */
  sameWork?: { request: RequestFor<S>; target: number };
  /** The status the service answers by design, when not a 2xx (the x402 offer's 402). */
  serviceStatus?: number;
  /** The most the service's p99 may be, in times its p50, in each half of the run: of the last request of a sequence (issue 32: the start's tail), else of every request. */
  tail?: number;
}

/** Keeps a scenario's setup result type while letting scenarios of different types share a list. */
export function defineScenario<S>(scenario: Scenario<S>): Scenario<unknown> {
  return scenario as Scenario<unknown>;
}

export function resolveRequest<S>(request: RequestFor<S>, state: S, env: BenchEnv): RequestSpec {
  return typeof request === 'function' ? request(state, env) : request;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SMALL_LINK = { amount: '25.00', currency: 'USD', description: 'Bench' };
const SESSION = {
  amount: '42.50', currency: 'USD', reference: 'bench', customer_email: 'buyer-[<id>]@bench.example',
  order: { id: 'bench-[<id>]', items: [{ name: 'Coffee beans', quantity: 1, unit_amount: '42.50', amount: '42.50' }], total: '42.50' },
};
// Every buyer their own email, as in a real shop (one shared email would queue every request
// behind the same customer row).
const SESSION_TO_START = { amount: '42.50', currency: 'USD', customer_email: 'buyer-[<id>]@bench.example' };
/** Issue 32's minimum for a write row against the same-work baseline: our overhead over the same rows. */
const SAME_WORK_TARGET = 0.85;
/** The capabilities of a chat host that renders MCP Apps (the payment card). */
const APPS_HOST = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/**
 * A 2026-07-28 tools/call of retrieve_payment_link: stateless, one POST carrying its own protocol
 * envelope; `capabilities` are the client's (a host of MCP Apps gets the payment card with it).
 */
function mcpCall(path: string, id: string, auth: Record<string, string>, capabilities: Record<string, unknown> = {}): RequestSpec {
  return {
    method: 'POST',
    path,
    headers: { ...auth, ...JSON_HEADERS, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'retrieve_payment_link' },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: {
        name: 'retrieve_payment_link', arguments: { id },
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': capabilities },
      },
    }),
  };
}

/** A payment link for the read scenarios; its id. */
async function linkToRead(env: BenchEnv): Promise<string> {
  const created = await env.api('POST', '/v1/payment_links', SMALL_LINK);
  if (created.status !== 201) throw new Error(`Creating the link to read failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

const LIST_PAYMENTS = 100_000;

interface ManyPayments {
  /** The business's dashboard list of Test payments. */
  path: string;
  /** Its owner's session cookie. */
  cookie: string;
  /** A cursor 90,000 payments deep. */
  deep: string;
  /** The business's Test key, for the REST list. */
  auth: Record<string, string>;
}

let manyPayments: Promise<ManyPayments> | undefined;

/**
 * A business with 100,000 Test payments (one link made through the API, copied by SQL with its
 * own id and an earlier creation time each: the list reads rows, whatever made them) and its
 * owner signed in to the dashboard. Made once, for both list rows.
 */
function businessWithManyPayments(env: BenchEnv): Promise<ManyPayments> {
  manyPayments ??= (async () => {
    const { context } = env;
    const { db } = context;
    const business = await createBusiness(db, context.clock, { name: 'Bench Roastery', ownerEmail: 'owner@roastery.bench.example' });
    const operator = { ...context, principal: await operatorPrincipal(db, business.id, false) };
    const auth = { authorization: `Bearer ${(await createApiKey.run(operator, { name: 'bench list' })).secret}` };
    const created = await fetch(`${env.serviceUrl}/v1/payment_links`, { method: 'POST', headers: { ...auth, ...JSON_HEADERS }, body: JSON.stringify(SMALL_LINK) });
    if (created.status !== 201) throw new Error(`Creating the link to copy failed: ${created.status} ${await created.text()}`);
    const { id } = await created.json() as { id: string };
    const columns = (await sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'payments' AND is_generated = 'NEVER' AND (identity_generation IS NULL OR identity_generation = 'BY DEFAULT')
      ORDER BY ordinal_position`.execute(db)).rows.map((row) => row.column_name);
    const copied = columns.map((column) => {
      if (column === 'id') return `'pay_' || substr(md5(g::text || random()::text), 1, 24)`;
      if (column === 'created_at') return 'created_at - make_interval(secs => g)';
      if (column === 'tracking_token') return `CASE WHEN tracking_token IS NULL THEN NULL ELSE 'trk_' || substr(md5(random()::text || g::text), 1, 24) END`;
      return `"${column}"`;
    });
    await sql.raw(`INSERT INTO payments (${columns.map((column) => `"${column}"`).join(', ')})
      SELECT ${copied.join(', ')} FROM payments, generate_series(1, ${LIST_PAYMENTS - 1}) AS g WHERE id = '${id}'`).execute(db);
    await sql`ANALYZE payments`.execute(db);
    const deep = await db.selectFrom('payments').select('id').where('business_id', '=', business.id).where('livemode', '=', false)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').offset(90_000).limit(1).executeTakeFirstOrThrow();
    const owner = await db.selectFrom('memberships').select('person_id').where('business_id', '=', business.id).executeTakeFirstOrThrow();
    const session = await openSession(context, owner.person_id);
    return { path: `/dashboard/businesses/${business.id}/test/payments`, cookie: `${sessionCookieName(context.config.baseUrl)}=${session}`, deep: deep.id, auth };
  })();
  return manyPayments;
}

const LIST_EVENTS = 20_000;
let manyEvents: Promise<ManyPayments> | undefined;

/**
 * The business of the many payments, with 20,000 events of the last hours: one payment paid
 * through the API (its payment.started and payment.paid, with their order and customer), its
 * events copied by SQL with their own ids and earlier times (the list reads stored bodies,
 * whatever wrote them). Made once.
 */
function businessWithManyEvents(env: BenchEnv): Promise<ManyPayments> {
  manyEvents ??= (async () => {
    const many = await businessWithManyPayments(env);
    const call = async (path: string, body: unknown) => {
      const response = await fetch(`${env.serviceUrl}${path}`, { method: 'POST', headers: { ...many.auth, ...JSON_HEADERS }, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return response.json() as Promise<{ id: string }>;
    };
    const { id } = await call('/v1/checkout_sessions', { ...SESSION, customer_email: 'events@bench.example', order: { ...SESSION.order, id: 'bench-events' } });
    await call(`/v1/checkout_sessions/${id}/start`, {});
    await call(`/v1/payments/${id}/simulate`, { outcome: 'paid' });
    await sql.raw(`INSERT INTO events (id, business_id, livemode, type, payment_id, order_id, customer_id, body, created_at)
      SELECT 'evt_' || substr(md5(g::text || random()::text), 1, 24), business_id, livemode, type, payment_id, order_id, customer_id, body, created_at - make_interval(secs => g)
      FROM events, generate_series(1, ${LIST_EVENTS / 2}) AS g WHERE payment_id = '${id}'`).execute(env.context.db);
    await sql`ANALYZE events`.execute(env.context.db);
    return many;
  })();
  return manyEvents;
}

let homeReady: Promise<ManyPayments> | undefined;

/**
 * The business of the many payments as its home page reads it: 5,000 of its payments paid over
 * the last two days in two currencies, 25 held, and a webhook endpoint. Changes only statuses,
 * which the list rows do not read. Made once.
 */
function businessWithBusyWeek(env: BenchEnv): Promise<ManyPayments> {
  homeReady ??= (async () => {
    const many = await businessWithManyPayments(env);
    const { db } = env.context;
    const businessId = many.path.split('/')[3]!;
    const endpoint = await fetch(`${env.serviceUrl}/v1/webhook_endpoints`, { method: 'POST', headers: { ...many.auth, ...JSON_HEADERS }, body: JSON.stringify({ url: 'http://127.0.0.1:9/bench-home' }) });
    if (endpoint.status !== 201) throw new Error(`Adding the endpoint failed: ${endpoint.status} ${await endpoint.text()}`);
    await sql`UPDATE payments SET status = 'paid', paid_at = now() - make_interval(secs => (n * 34) % 172800), currency = CASE WHEN n % 3 = 0 THEN 'EUR' ELSE 'USD' END
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM payments WHERE business_id = ${businessId} AND livemode = false LIMIT 5000) AS picked
      WHERE payments.id = picked.id`.execute(db);
    await sql`UPDATE payments SET status = 'held', hold_reason = 'Underpaid.' WHERE id IN (
      SELECT id FROM payments WHERE business_id = ${businessId} AND livemode = false AND status <> 'paid' ORDER BY created_at DESC LIMIT 25)`.execute(db);
    await sql`VACUUM ANALYZE payments`.execute(db);
    return { ...many, path: many.path.replace(/\/payments$/, '/home') };
  })();
  return homeReady;
}

const BASELINE_INSERT: RequestSpec = { method: 'POST', path: '/baseline/payment_links', headers: JSON_HEADERS, body: JSON.stringify(SMALL_LINK) };

export const scenarios: readonly Scenario<unknown>[] = [
  defineScenario({
    name: 'read: GET /v1/payment_links/:id',
    target: 0.6,
    async setup(env) {
      return { id: await linkToRead(env) };
    },
    service: ({ id }, env) => ({ method: 'GET', path: `/v1/payment_links/${id}`, headers: env.auth }),
    baseline: ({ id }) => ({ method: 'GET', path: `/baseline/payment_links/${id}` }),
  }),
  defineScenario({
    name: 'payer page: GET /pay/:id of an open link of a branded business, rendered HTML (baseline: the REST read of the same link)',
    target: 0.7,
    baselineOnService: true,
    baselineLabel: 'REST read',
    async setup(env) {
      // The business's brand colour and logo (issue 23), read in the page's one query; the logo is an asset of its own.
      await env.context.db.updateTable('businesses').set({ brand_color: '#7a3e12' }).where('id', '=', env.businessId).execute();
      const logo = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
      await env.context.db.insertInto('business_logos').values({
        business_id: env.businessId, content_type: 'image/png', byte_size: logo.length, sha256: createHash('sha256').update(logo).digest('hex'), width: 1, height: 1, content: logo, created_at: env.context.clock.now(),
      }).onConflict((conflict) => conflict.column('business_id').doNothing()).execute();
      return { id: await linkToRead(env) };
    },
    service: ({ id }) => ({ method: 'GET', path: `/pay/${id}`, headers: { accept: 'text/html', 'accept-language': 'en-GB,en;q=0.9' } }),
    baseline: ({ id }, env) => ({ method: 'GET', path: `/v1/payment_links/${id}`, headers: env.auth }),
  }),
  defineScenario({
    name: 'x402 offer: GET /x402/pay/:id of a started Test link, the 402 with PAYMENT-REQUIRED (baseline: the REST read of the same link)',
    target: 0.7,
    baselineOnService: true,
    baselineLabel: 'REST read',
    serviceStatus: 402,
    async setup(env) {
      const id = await linkToRead(env);
      // The first request starts the payment; the load measures the offer as every later one reads it.
      const first = await fetch(`${env.serviceUrl}/x402/pay/${id}`);
      if (first.status !== 402) throw new Error(`The x402 offer answered ${first.status}: ${await first.text()}`);
      return { id };
    },
    service: ({ id }) => ({ method: 'GET', path: `/x402/pay/${id}` }),
    baseline: ({ id }, env) => ({ method: 'GET', path: `/v1/payment_links/${id}`, headers: env.auth }),
  }),
  defineScenario({
    name: 'agent read: GET /v1/payment_links/:id with an agent access token (baseline: the same with a secret key)',
    target: 0.9,
    baselineOnService: true,
    baselineLabel: 'secret key',
    async setup(env) {
      const id = await linkToRead(env);
      const { db, clock, config, accessTokens } = env.context;
      const owner = await db.selectFrom('memberships').select('person_id').where('business_id', '=', env.businessId).where('role', '=', 'owner').executeTakeFirstOrThrow();
      // The connection a person's approval makes (the sign-in itself is not what is measured).
      const connection = await db.insertInto('agent_connections').values({
        id: 'con_bench', business_id: env.businessId, livemode: false, client_id: 'agc_bench', client_name: 'Bench agent', approved_by: owner.person_id,
        access: 'full', scopes: [...API_SCOPES], resource: `${config.baseUrl}/v1`, created_at: clock.now(),
      }).returningAll().executeTakeFirstOrThrow();
      return { id, token: (await accessTokens.issue(connection)).token };
    },
    service: ({ id, token }) => ({ method: 'GET', path: `/v1/payment_links/${id}`, headers: { authorization: `Bearer ${token}` } }),
    baseline: ({ id }, env) => ({ method: 'GET', path: `/v1/payment_links/${id}`, headers: env.auth }),
  }),
  defineScenario({
    name: 'MCP read: tools/call retrieve_payment_link over /mcp, 2026-07-28 (baseline: a bare server on the same SDK doing the same query)',
    target: 0.85,
    baselineLabel: 'bare SDK',
    async setup(env) {
      return { id: await linkToRead(env) };
    },
    service: ({ id }, env) => mcpCall('/mcp', id, env.auth),
    baseline: ({ id }) => mcpCall('/baseline/mcp', id, {}),
  }),
  defineScenario({
    name: 'MCP read with the payment card: tools/call retrieve_payment_link from a host of MCP Apps (baseline: the same call from a client without them)',
    target: 0.6,
    baselineLabel: 'no card',
    baselineOnService: true,
    async setup(env) {
      return { id: await linkToRead(env) };
    },
    service: ({ id }, env) => mcpCall('/mcp', id, env.auth, APPS_HOST),
    baseline: ({ id }, env) => mcpCall('/mcp', id, env.auth),
  }),
  defineScenario({
    name: 'create: POST /v1/payment_links',
    target: 0.8,
    service: (_state, env) => ({
      method: 'POST',
      path: '/v1/payment_links',
      headers: { ...env.auth, ...JSON_HEADERS },
      body: JSON.stringify(SMALL_LINK),
    }),
    baseline: BASELINE_INSERT,
    sameWork: {
      target: SAME_WORK_TARGET,
      request: { method: 'POST', path: '/same-work/payment_links', headers: JSON_HEADERS, body: JSON.stringify(SMALL_LINK) },
    },
  }),
  defineScenario({
    name: 'session create: POST /v1/checkout_sessions with Idempotency-Key',
    target: 0.55,
    service: (_state, env) => ({
      method: 'POST',
      path: '/v1/checkout_sessions',
      headers: { ...env.auth, ...JSON_HEADERS, 'idempotency-key': 'bench-[<id>]' },
      body: JSON.stringify(SESSION),
      idReplacement: true,
    }),
    baseline: BASELINE_INSERT,
    sameWork: {
      target: SAME_WORK_TARGET,
      request: {
        method: 'POST', path: '/same-work/checkout_sessions', headers: { ...JSON_HEADERS, 'idempotency-key': 'bench-[<id>]' },
        body: JSON.stringify(SESSION), idReplacement: true,
      },
    },
  }),
  defineScenario({
    name: 'create + start: POST /v1/checkout_sessions, then POST …/start (each request counted)',
    target: 0.5,
    tail: 3,
    // A subscribed endpoint, so each start writes its event, a delivery and its pg-boss job.
    async setup(env) {
      const endpoint = await env.api('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/bench-hooks' });
      if (endpoint.status !== 201) throw new Error(`Adding the endpoint failed: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    },
    service: (_state, env) => ({
      method: 'POST',
      path: '/v1/checkout_sessions',
      headers: { ...env.auth, ...JSON_HEADERS },
      body: JSON.stringify(SESSION_TO_START),
      idReplacement: true,
      then: [{ method: 'POST', path: '/v1/checkout_sessions/{id}/start', headers: { ...env.auth, ...JSON_HEADERS }, body: '{}' }],
    }),
    baseline: BASELINE_INSERT,
    sameWork: {
      target: SAME_WORK_TARGET,
      request: {
        method: 'POST', path: '/same-work/checkout_sessions', headers: JSON_HEADERS, body: JSON.stringify(SESSION_TO_START), idReplacement: true,
        then: [{ method: 'POST', path: '/same-work/checkout_sessions/{id}/start', headers: JSON_HEADERS, body: '{}' }],
      },
    },
  }),
  defineScenario({
    name: 'dashboard payments: the list page of a business with 100,000 payments, first page (baseline: GET /v1/payments of the same business)',
    target: 0.5,
    baselineOnService: true,
    baselineLabel: 'REST list',
    setup: businessWithManyPayments,
    service: ({ path, cookie }) => ({ method: 'GET', path, headers: { cookie, accept: 'text/html' } }),
    baseline: ({ auth }) => ({ method: 'GET', path: '/v1/payments?limit=20', headers: auth }),
  }),
  defineScenario({
    name: 'events: GET /v1/events, a page of 20 of a business with 20,000 events (baseline: GET /v1/payments?limit=20 of the same business)',
    target: 0.8,
    baselineOnService: true,
    baselineLabel: 'REST payments list',
    setup: businessWithManyEvents,
    service: ({ auth }) => ({ method: 'GET', path: '/v1/events?limit=20', headers: auth }),
    baseline: ({ auth }) => ({ method: 'GET', path: '/v1/payments?limit=20', headers: auth }),
  }),
  defineScenario({
    name: 'dashboard payments: a page 90,000 payments deep in the cursor (baseline: the first page; target: within 1.5× of it)',
    target: 0.67,
    baselineOnService: true,
    baselineLabel: 'first page',
    setup: businessWithManyPayments,
    service: ({ path, cookie, deep }) => ({ method: 'GET', path: `${path}?starting_after=${deep}`, headers: { cookie, accept: 'text/html' } }),
    baseline: ({ path, cookie }) => ({ method: 'GET', path, headers: { cookie, accept: 'text/html' } }),
  }),
  defineScenario({
    name: 'dashboard home: a business\'s Test home with 100,000 payments, 5,000 paid in the last two days and 25 held (baseline: GET /v1/payments of the same business)',
    target: 0.5,
    baselineOnService: true,
    baselineLabel: 'REST list',
    setup: businessWithBusyWeek,
    service: ({ path, cookie }) => ({ method: 'GET', path, headers: { cookie, accept: 'text/html' } }),
    baseline: ({ auth }) => ({ method: 'GET', path: '/v1/payments?limit=20', headers: auth }),
  }),
];
