import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PAYMENT_EVENT_TYPES, PING } from '../../src/events/types.ts';
import { jsonSchema } from '../../src/verbs/json-schema.ts';
import { pathParams } from '../../src/verbs/operation.ts';
import { operations } from '../../src/operations.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The OpenAPI document is generated from the registry: a valid OpenAPI 3.1 document, clean under
// `redocly lint` (recommended rules), with named schemas a generator turns into named types,
// a description on every operation, parameter and field, every status each operation can
// answer and only those, and the webhooks the service sends.

const ROOT = path.join(import.meta.dirname, '../..');
const run = promisify(execFile);

let t: TestApp;
let document: any;
beforeAll(async () => {
  t = await startTestApp();
  document = (await t.request('GET', '/v1/openapi.json')).body;
});
afterAll(async () => t?.close());

const pathOf = (operation: (typeof operations)[number]) => `/v1${operation.http.path}`.replace(/:(\w+)/g, '{$1}');
const operationIn = (operation: (typeof operations)[number]) => document.paths[pathOf(operation)][operation.http.method.toLowerCase()];
const resolve = (schema: any) => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').at(-1)] : schema);

it('is a valid OpenAPI 3.1 document', async () => {
  const validator = new Validator();
  const result = await validator.validate(document);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

it('passes redocly lint with the recommended rules: no error, no warning (offline)', async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'openapi-'));
  try {
    const file = path.join(folder, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // The pinned Node 24 runs it; telemetry and the update check are off, so it needs no network.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const result = await run(process.execPath, [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'], { env, cwd: folder })
      .catch((error: { stdout: string; stderr: string }) => error);
    const report = JSON.parse(result.stdout);
    expect(report.problems, result.stderr).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}, 60_000);

it('names every API object and list envelope, and responses refer to them', () => {
  for (const name of ['PaymentLink', 'PaymentLinkList', 'Checkout', 'CheckoutList', 'Customer', 'CustomerList', 'WebhookEndpoint', 'WebhookEndpointList',
    'CheckoutSession', 'Payment', 'PaymentList', 'Order', 'OrderList', 'Address', 'Error', 'PaymentEvent', 'PaymentSnapshot', 'OrderSnapshot', 'CustomerSnapshot']) {
    expect(document.components.schemas, name).toHaveProperty(name);
  }
  for (const operation of operations) {
    const success = operationIn(operation).responses[String(operation.http.status)];
    expect(success.content['application/json'].schema.$ref, operation.name).toMatch(/^#\/components\/schemas\/\w+$/);
    const body = operationIn(operation).requestBody;
    if (body) expect(body.content['application/json'].schema.$ref, operation.name).toMatch(/^#\/components\/schemas\/\w+Request$/);
  }
  expect(resolve({ $ref: '#/components/schemas/PaymentLinkList' }).properties.data.items).toEqual({ $ref: '#/components/schemas/PaymentLink' });
});

it('leaves the MCP tool schemas inline: the names are the document\'s own', () => {
  for (const operation of operations) {
    for (const schema of [jsonSchema(operation.input, 'input'), jsonSchema(operation.output, 'output')]) {
      expect(JSON.stringify(schema), operation.name).not.toMatch(/"\$ref"|"\$defs"/);
    }
  }
});

/** Every description in the document, with where it is. */
function descriptions(node: unknown, at = '#'): Array<[string, string]> {
  if (typeof node !== 'object' || node === null) return [];
  const found: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'examples' || key === 'example' || key === 'x-codeSamples') continue;
    if (key === 'description' && typeof value === 'string') found.push([at, value]);
    else found.push(...descriptions(value, `${at}/${key}`));
  }
  return found;
}

it('describes every operation, parameter and field', () => {
  for (const operation of operations) {
    const documented = operationIn(operation);
    expect(documented.operationId).toBe(operation.name);
    expect(documented.description.length, operation.name).toBeGreaterThan(40);
    for (const parameter of documented.parameters) expect(parameter.description, `${operation.name} ${parameter.name}`).toBeTruthy();
  }
  // Every property of every schema, request bodies and webhook payloads included.
  const undocumented: string[] = [];
  const visit = (node: unknown, at: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, any>;
    if (record.properties && typeof record.properties === 'object') {
      for (const [name, property] of Object.entries<any>(record.properties)) {
        const described = property.description || (property.$ref && resolve(property).description) || property.const !== undefined;
        if (!described) undocumented.push(`${at}/properties/${name}`);
      }
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'examples') visit(value, `${at}/${key}`);
  };
  visit(document.components.schemas, '#/components/schemas');
  expect(undocumented).toEqual([]);
  for (const [name, schema] of Object.entries<any>(document.components.schemas)) expect(schema.description, name).toBeTruthy();
});

it('states the spec\'s limits', () => {
  const link = resolve(operationIn(operations.find((operation) => operation.name === 'create_payment_link')!).requestBody.content['application/json'].schema);
  expect(link.properties.description).toMatchObject({ maxLength: 120, minLength: 1 });
  expect(link.properties.memo.maxLength).toBe(500);
  expect(link.properties.expires_in_days).toMatchObject({ minimum: 1, maximum: 30 });
  expect(link.properties.amount.pattern).toBeTruthy();
  const list = operationIn(operations.find((operation) => operation.name === 'list_payments')!);
  expect(list.parameters.find((parameter: any) => parameter.name === 'limit').schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
});

it('writes no markup a renderer would eat: no angle brackets in any description', () => {
  const marked = descriptions(document).filter(([, text]) => /[<>]/.test(text));
  expect(marked).toEqual([]);
  expect(document.components.securitySchemes.bearer.description).toContain('Authorization: Bearer');
});

it('has a license and a contact', () => {
  expect(document.info.license.name).toBeTruthy();
  expect(document.info.contact.url).toBe(`${t.config.baseUrl}/docs`);
});

it('documents every status an operation can answer, and only those', () => {
  for (const operation of operations) {
    const documented = operationIn(operation);
    const statuses = Object.keys(documented.responses).map(Number);
    const expected = [operation.http.status, ...Object.keys(operation.http.alsoAnswers ?? {}).map(Number), 400, 401, 403, 429];
    if (pathParams(operation).length > 0) expected.push(404);
    if (operation.conflicts?.length) expected.push(409);
    if (documented.requestBody) expected.push(413, 415);
    expect(statuses.sort(), operation.name).toEqual([...new Set(expected)].sort());
    for (const code of operation.conflicts ?? []) expect(documented.responses['409'].description, operation.name).toContain(code);
  }
  const create = document.paths['/v1/checkout_sessions'].post;
  expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['200', '201']));
  const cancel = document.paths['/v1/payment_links/{id}/cancel'].post;
  expect(cancel.requestBody).toBeUndefined();
  expect(cancel.responses).not.toHaveProperty('413');
  expect(cancel.responses).not.toHaveProperty('415');
  expect(document.paths['/v1/webhook_endpoints/{id}'].delete.responses).not.toHaveProperty('409');
  expect(document.components.responses.BadRequest.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
});

it('documents the Idempotency-Key header of session creation, not a body field', () => {
  const create = document.paths['/v1/checkout_sessions'].post;
  expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
  expect(Object.keys(resolve(create.requestBody.content['application/json'].schema).properties)).not.toContain('idempotency_key');
  for (const operation of operations) expect(operationIn(operation)['x-required-scope']).toBe(operation.scope);
});

it('gives every operation a request and a response example', () => {
  for (const operation of operations) {
    const documented = operationIn(operation);
    expect(documented['x-codeSamples']?.[0]?.source, operation.name).toMatch(/^curl -X /);
    if (documented.requestBody) expect(documented.requestBody.content['application/json'].examples.recorded.value, operation.name).toBeDefined();
    expect(documented.responses[String(operation.http.status)].content['application/json'].examples.recorded.value, operation.name).toBeDefined();
  }
});

it('documents every webhook the service sends, with its payload and signature header', () => {
  expect(Object.keys(document.webhooks).sort()).toEqual([...PAYMENT_EVENT_TYPES, PING].sort());
  for (const [type, item] of Object.entries<any>(document.webhooks)) {
    const post = item.post;
    expect(post.parameters.map((parameter: any) => parameter.name)).toContain('Service-Signature');
    expect(post.requestBody.content['application/json'].examples.delivered.value.type, type).toBe(type);
  }
  expect(document.webhooks['payment.paid'].post.requestBody.content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/PaymentEvent' });
  const payment = document.components.schemas.PaymentSnapshot;
  expect(payment.properties.createdAt.description).toContain('milliseconds');
});
