import { API_PREFIX, pathParams, type ConflictCode, type Operation } from '../verbs/operation.ts';
import type { JsonSchema } from '../verbs/json-schema.ts';
import { curlOf, loadExamples, type Examples, type Exchange } from './openapi-examples.ts';
import { SchemaBook } from './openapi-schemas.ts';
import { WEBHOOKS_TAG, webhooksSection } from './openapi-webhooks.ts';
import { X402_TAG, X402_TAG_DESCRIPTION, x402Paths } from './openapi-x402.ts';
import { ERROR_RESPONSES, errorCodeSchema, errorSchema, FORBIDDEN_OR_APPROVAL, type ErrorStatus } from './openapi-errors.ts';
import { asksApproval } from '../agents/policy.ts';
import { ERROR_MEANINGS } from '../core/error-meanings.ts';

const ERROR_REF = { $ref: '#/components/schemas/Error' };

// The OpenAPI 3.1 document, generated from the operation registry (never written by hand):
// named schemas (openapi-schemas.ts), real examples (openapi-examples.ts), the statuses each
// operation can answer, and the webhooks the service sends (openapi-webhooks.ts).

/** What a 409 means, per code (spec 7). */
const CONFLICTS: Readonly<Record<ConflictCode, string>> = ERROR_MEANINGS;

const TAGS = [
  { name: 'Payment links', description: 'A one-off request for one amount from one payer. Its id is its payment\'s id.' },
  { name: 'Checkouts', description: 'A reusable hosted page with a fixed price: every buyer who pays gets their own payment and order.' },
  { name: 'Customers', description: 'One buyer email in one mode. Customers change only through orders.' },
  { name: 'Webhook endpoints', description: 'Addresses that receive signed event deliveries of their mode (see Events).' },
  { name: 'Checkout sessions', description: 'One attempt at paying, created by your server. A session and its payment share one id; each session belongs to an order.' },
  { name: 'Payments', description: 'Every payment, whatever created it, with its money facts; and Test-mode simulations.' },
  { name: 'Orders', description: 'What was bought and where it ships. An order\'s status follows all of its payments.' },
  { name: 'Webhook deliveries', description: 'Each event sent to each endpoint, with its attempts: the delivery log, retry now and resend.' },
  { name: 'Credential', description: 'What the credential in use may do.' },
  { name: X402_TAG, description: X402_TAG_DESCRIPTION },
  { name: WEBHOOKS_TAG, description: 'What the service POSTs to your webhook endpoints, signed with the endpoint\'s secret; and the events of the last 30 days, as delivered.' },
];

const INFO_DESCRIPTION = [
  'Payment links, checkouts, customers, webhook endpoints, checkout sessions, payments and orders, for merchants\' servers.',
  '',
  '**Authentication.** Every request carries `Authorization: Bearer` followed by a secret key (`sk_test_…` or `sk_live_…`) or a connected ' +
  'agent\'s access token. The credential alone decides the account and the mode (Test or Live): objects of one mode are invisible in the other.',
  '',
  '**Conventions.** Requests and responses are JSON. Money is a decimal string such as `"25.00"`, never a number; timestamps in API objects are ' +
  'Unix seconds. Lists are newest first: pass a page\'s `next_cursor` as `starting_after` for the next one (`limit` 1 to 100, default 20). ' +
  'Unknown request fields are ignored; ignore response fields and event types you do not know, since `v1` only ever adds them.',
  '',
  '**Errors** have the shape `{"error": {"code", "message", "field"}}`: branch on the status and `code`, never on `message`; `field` names ' +
  'the parameter at fault. Over a rate limit the answer is `429 rate_limited` with `Retry-After: 60`.',
  '',
  '**Webhooks** (see Events) are signed with the `Service-Signature` header.',
].join('\n');

const pascal = (name: string) => name.split('_').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');

/** Where the operation's input fields go over HTTP: path, header, query (GET, DELETE) or body. */
function inputPlaces(operation: Operation) {
  const inPath = new Set(pathParams(operation));
  const fromHeaders = new Map(Object.entries(operation.http.headers ?? {}).map(([header, field]) => [field, header]));
  const inQuery = operation.http.method === 'GET' || operation.http.method === 'DELETE';
  return { inPath, fromHeaders, inQuery };
}

/** A parameter with its schema's description lifted to the parameter, and a recorded value as its example. */
function parameter(name: string, place: 'path' | 'query' | 'header', required: boolean, schema: JsonSchema, example: unknown) {
  const { description, ...rest } = schema;
  return {
    name, in: place, required,
    description: typeof description === 'string' ? description : `The ${name}.`,
    schema: rest,
    ...(example === undefined ? {} : { example }),
  };
}

/** The values a recorded request gave its path, query and header parameters (a number where the schema says so: limit=2). */
function recordedParameters(operation: Operation, exchange: Exchange | undefined, properties: Record<string, JsonSchema>): Record<string, unknown> {
  if (!exchange) return {};
  const url = new URL(exchange.request.path, 'http://recorded');
  const values: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const pattern = new RegExp(`^${API_PREFIX}${operation.http.path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`);
  Object.assign(values, pattern.exec(url.pathname)?.groups ?? {});
  for (const [name, value] of Object.entries(values)) {
    const type = properties[name]?.type;
    if (typeof value === 'string' && (type === 'integer' || type === 'number')) values[name] = Number(value);
  }
  for (const [header, value] of Object.entries(exchange.request.headers ?? {})) values[header] = value;
  return values;
}

const example = (summary: string, value: unknown) => ({ examples: { recorded: { summary, value } } });

function operationObject(operation: Operation, book: SchemaBook, exchanges: readonly Exchange[], baseUrl: string) {
  const input = book.use(operation.input, 'input');
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const { inPath, fromHeaders, inQuery } = inputPlaces(operation);
  const usual = exchanges.find((exchange) => exchange.status === operation.http.status);
  const recorded = recordedParameters(operation, usual, properties);
  const parameters = [...inPath].map((name) => parameter(name, 'path', true, properties[name] ?? { type: 'string' }, recorded[name]));
  for (const [field, header] of fromHeaders) parameters.push(parameter(header, 'header', false, properties[field] ?? { type: 'string' }, recorded[header]));
  let requestBody: unknown;
  if (inQuery) {
    for (const [name, schema] of Object.entries(properties)) {
      if (!inPath.has(name)) parameters.push(parameter(name, 'query', required.has(name), schema, recorded[name]));
    }
  } else {
    const bodyFields = Object.keys(properties).filter((name) => !inPath.has(name) && !fromHeaders.has(name));
    if (bodyFields.length > 0) {
      const bodyRequired = bodyFields.filter((name) => required.has(name));
      const schema = book.add(`${pascal(operation.name)}Request`, {
        type: 'object',
        description: `The body of ${operation.title.toLowerCase()}.`,
        properties: Object.fromEntries(bodyFields.map((name) => [name, properties[name]!])),
        ...(bodyRequired.length ? { required: bodyRequired } : {}),
      });
      const body = usual?.request.body;
      requestBody = {
        required: bodyRequired.length > 0,
        content: { 'application/json': { schema, ...(body === undefined ? {} : example('A real request', body)) } },
      };
    }
  }
  return {
    operationId: operation.name,
    summary: operation.title,
    description: `${operation.description}\n\nRequires the scope \`${operation.scope}\`.`,
    tags: [operation.tag],
    security: [{ bearer: [operation.scope] }],
    'x-required-scope': operation.scope,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: responsesOf(operation, book, exchanges, requestBody !== undefined),
    ...(usual ? { 'x-codeSamples': [{ lang: 'Shell', label: 'curl', source: curlOf(usual, baseUrl) }] } : {}),
  };
}

/** Every status the operation can answer, and only those. */
function statusesOf(operation: Operation, hasBody: boolean): ErrorStatus[] {
  const statuses: ErrorStatus[] = [400, 401, 403];
  // Only an object named in the path can be missing (lists and the credential have none).
  if (pathParams(operation).length > 0) statuses.push(404);
  if (operation.conflicts?.length) statuses.push(409);
  // Body errors only where there is a body to refuse.
  if (hasBody) statuses.push(413, 415);
  statuses.push(429);
  return statuses;
}

function responsesOf(operation: Operation, book: SchemaBook, exchanges: readonly Exchange[], hasBody: boolean) {
  const schema = book.use(operation.output, 'output');
  const success = (status: number, description: string) => {
    const exchange = exchanges.find((candidate) => candidate.status === status);
    return { description, content: { 'application/json': { schema, ...(exchange ? example('A real response', exchange.response) : {}) } } };
  };
  const responses: Record<string, unknown> = {
    [String(operation.http.status)]: success(operation.http.status, operation.http.status === 201 ? 'Created.' : 'OK.'),
  };
  for (const [status, when] of Object.entries(operation.http.alsoAnswers ?? {})) responses[status] = success(Number(status), when);
  for (const status of statusesOf(operation, hasBody)) {
    const own = exchanges.find((exchange) => exchange.status === status);
    const content = own ? { 'application/json': { schema: ERROR_REF, ...example('A real answer', own.response) } } : undefined;
    if (status === 409) {
      const codes = (operation.conflicts ?? []).map((code) => `\`${code}\`: ${CONFLICTS[code]}`).join('; ');
      responses[status] = { description: `Conflict. ${codes}.`, content: content ?? { 'application/json': { schema: ERROR_REF } } };
      continue;
    }
    // An answer this operation gave in the journey is its own example; otherwise the shared answer.
    const { name, ...shared } = status === 403 && asksApproval(operation) ? FORBIDDEN_OR_APPROVAL : ERROR_RESPONSES[status];
    responses[status] = content ? { ...shared, content } : { $ref: `#/components/responses/${name}` };
  }
  return responses;
}

export function openApiDocument(operations: readonly Operation[], baseUrl: string, examples: Examples = loadExamples()) {
  const book = new SchemaBook();
  book.add('ErrorCode', errorCodeSchema);
  book.add('Error', errorSchema);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const path = `${API_PREFIX}${operation.http.path}`.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][operation.http.method.toLowerCase()] = operationObject(operation, book, examples.operations[operation.name] ?? [], baseUrl);
  }
  Object.assign(paths, x402Paths());
  const usedTags = new Set([...operations.map((operation) => operation.tag), WEBHOOKS_TAG, X402_TAG]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Service API',
      version: 'v1',
      description: INFO_DESCRIPTION,
      // The repository grants no license: the honest statement is that none is granted.
      license: { name: 'Proprietary: no license is granted', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Payment Service API reference', url: `${baseUrl}/docs` },
    },
    servers: [{ url: baseUrl, description: 'This service (the API base is this address followed by /v1).' }],
    tags: TAGS.filter((tag) => usedTags.has(tag.name)),
    paths,
    webhooks: webhooksSection(examples),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A secret key (`sk_test_…` or `sk_live_…`, from the dashboard\'s API keys) or a connected agent\'s access token, ' +
            'sent as `Authorization: Bearer` followed by the credential. The scope each operation needs is listed with it; ' +
            'Read only keys hold payments:read, orders:read and customers:read.',
        },
      },
      schemas: book.components,
      responses: Object.fromEntries([...Object.entries(ERROR_RESPONSES), ['403', FORBIDDEN_OR_APPROVAL] as const].map(([status, { name, ...response }]) => {
        const recorded = examples.errors[status];
        return [name, { ...response, content: { 'application/json': { schema: ERROR_REF, ...(recorded ? example('A real answer', recorded.response) : {}) } } }];
      })),
    },
  };
}
