import { PaymentServiceError } from './errors.ts';
import { OPERATIONS } from './operations.ts';
import type { CallOptions, ListItem, ListOperationId, OperationId, OperationInput, OperationOutput } from './operation-types.ts';

// The client's one way to the API: an operation's flat input split into path, query and JSON
// body by the generated route table, sent with fetch and the Bearer credential; a non-2xx answer
// becomes a PaymentServiceError. PaymentService (generated) adds one named method per operation.

export interface PaymentServiceOptions {
  /**
   * The credential: a secret key (`sk_test_…`, `sk_live_…`) or an agent's access token. A
   * function is asked before every request, for tokens that are renewed (agent tokens last
   * about five minutes).
   */
  apiKey: string | (() => string | Promise<string>);
  /** The service's origin, such as `https://payments.example.com` (paths start with `/v1`). */
  baseUrl: string;
  /** A fetch to send with instead of the global one (a proxy agent, a test double, logging). */
  fetch?: typeof globalThis.fetch;
}

/** A success with the facts of its answer beside the body: `status` tells a created session (201) from an idempotent replay (200). */
export interface ApiResponse<T> {
  data: T;
  status: number;
  requestId: string | undefined;
  headers: Headers;
}

type Input = Record<string, unknown>;

export class ApiClient {
  readonly #credential: PaymentServiceOptions['apiKey'];
  readonly #baseUrl: string;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: PaymentServiceOptions) {
    if (!options.apiKey) throw new TypeError('PaymentService needs an apiKey: a secret key or an agent access token.');
    if (!/^https?:\/\//.test(options.baseUrl ?? '')) throw new TypeError('PaymentService needs a baseUrl: the service origin, such as https://payments.example.com.');
    this.#credential = options.apiKey;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Called as a plain function: browsers refuse a fetch detached from its global.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Calls an operation by its operationId and returns the body of its success. */
  async call<K extends OperationId>(operationId: K, input: OperationInput<K>, options?: CallOptions<K>): Promise<OperationOutput<K>> {
    return (await this.request(operationId, input, options)).data;
  }

  /** As `call`, with the answer's status, request id and headers. */
  async request<K extends OperationId>(operationId: K, input: OperationInput<K>, options: CallOptions<K> = {}): Promise<ApiResponse<OperationOutput<K>>> {
    const route = OPERATIONS[operationId];
    const fields: Input = { ...(input as Input) };
    const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
      const value = fields[name];
      delete fields[name];
      if (value === undefined || value === null || value === '') throw new TypeError(`${operationId} needs ${name}.`);
      return encodeURIComponent(String(value));
    });
    const url = new URL(`${this.#baseUrl}${path}`);
    for (const name of route.query as readonly string[]) {
      const value = fields[name];
      delete fields[name];
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const credential = typeof this.#credential === 'function' ? await this.#credential() : this.#credential;
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${credential}` };
    for (const [option, header] of Object.entries(route.headers as Record<string, string>)) {
      const value = (options as Record<string, unknown>)[option];
      if (typeof value === 'string') headers[header] = value;
    }
    let body: string | undefined;
    if (route.body) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(fields);
    }
    let response: Response;
    try {
      response = await this.#fetch(url, { method: route.method, headers, body, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new PaymentServiceError({ status: 0, code: 'network_error', message: `No answer from ${url.origin}: ${(error as Error).message}`, cause: error });
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) throw errorOf(response, parsed, text, requestId);
    if (text !== '' && parsed === undefined) {
      throw new PaymentServiceError({ status: response.status, code: 'invalid_response', message: `${operationId} answered ${response.status} with a body that is not JSON.`, requestId });
    }
    return { data: parsed as OperationOutput<K>, status: response.status, requestId, headers: response.headers };
  }

  /**
   * Every item of a list operation, page after page (each page's `next_cursor` sent as the next
   * `starting_after`), fetched as the loop asks for them: `for await (const link of
   * client.paginate('list_payment_links', { status: 'open' }))`. Stop early with `break`.
   */
  async *paginate<K extends ListOperationId>(operationId: K, input: Omit<OperationInput<K>, 'starting_after'> = {} as Omit<OperationInput<K>, 'starting_after'>, options?: CallOptions<K>): AsyncGenerator<ListItem<K>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.call(operationId, { ...input, ...(cursor === undefined ? {} : { starting_after: cursor }) } as OperationInput<K>, options) as {
        data: ListItem<K>[];
        has_more: boolean;
        next_cursor: string | null;
      };
      yield* page.data;
      cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
    } while (cursor !== undefined);
  }
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorOf(response: Response, parsed: unknown, text: string, requestId: string | undefined): PaymentServiceError {
  const error = (parsed as { error?: { code?: unknown; message?: unknown; field?: unknown } } | undefined)?.error;
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const facts = { status: response.status, requestId, retryAfter: Number.isFinite(retryAfter) ? retryAfter : undefined };
  if (typeof error?.code === 'string' && typeof error.message === 'string') {
    return new PaymentServiceError({ ...facts, code: error.code, message: error.message, field: typeof error.field === 'string' ? error.field : undefined });
  }
  return new PaymentServiceError({ ...facts, code: 'invalid_response', message: `The service answered ${response.status} without an API error body: ${text.slice(0, 200)}` });
}
