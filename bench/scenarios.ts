import type { AppContext } from '../src/core/context.ts';
import type { RequestSpec } from './load.ts';

// The benchmark's rows. Each scenario loads one service endpoint and the baseline route doing
// the equivalent single query, with the same autocannon settings, and passes when
// service req/s / baseline req/s >= target. To add a row, append a defineScenario({...}).

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

export const scenarios: readonly Scenario<unknown>[] = [
  defineScenario({
    name: 'read: GET /v1/payment_links/:id',
    target: 0.6,
    async setup(env) {
      const created = await env.api('POST', '/v1/payment_links', SMALL_LINK);
      if (created.status !== 201) throw new Error(`Creating the link to read failed: ${created.status} ${JSON.stringify(created.body)}`);
      return { id: created.body.id as string };
    },
    service: ({ id }, env) => ({ method: 'GET', path: `/v1/payment_links/${id}`, headers: env.auth }),
    baseline: ({ id }) => ({ method: 'GET', path: `/baseline/payment_links/${id}` }),
  }),
  defineScenario({
    name: 'create: POST /v1/payment_links',
    target: 0.5,
    service: (_state, env) => ({
      method: 'POST',
      path: '/v1/payment_links',
      headers: { ...env.auth, ...JSON_HEADERS },
      body: JSON.stringify(SMALL_LINK),
    }),
    baseline: { method: 'POST', path: '/baseline/payment_links', headers: JSON_HEADERS, body: JSON.stringify(SMALL_LINK) },
  }),
];
