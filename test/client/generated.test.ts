import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GENERATED_FILES, generateClient } from '../../client/scripts/generate.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The client's generated files (types, route table, methods) must be what the OpenAPI document
// the service serves gives today: a change to an operation without `npm run client:generate`
// fails here. `npm run typecheck` then checks the client against those very types.

let t: TestApp;
let served: Record<string, any>;
let generated: Awaited<ReturnType<typeof generateClient>>;
beforeAll(async () => {
  t = await startTestApp();
  const answer = await t.request('GET', '/v1/openapi.json');
  expect(answer.status).toBe(200);
  served = answer.body;
  generated = await generateClient(served);
});
afterAll(async () => t?.close());

it.each(GENERATED_FILES)('client/src/%s is what the served document gives', async (name) => {
  const committed = await readFile(new URL(`../../client/src/${name}`, import.meta.url), 'utf8');
  expect(committed, `client/src/${name} is not what the served document gives: run npm run client:generate`).toBe(generated[name]);
});

it('makes one method per operation of the API (under /v1), none for the x402 address', () => {
  const paths = Object.entries<Record<string, { operationId: string }>>(served.paths);
  const ids = paths.filter(([path]) => path.startsWith('/v1/')).flatMap(([, item]) => Object.values(item).map((operation) => operation.operationId));
  expect(paths.map(([path]) => path).filter((path) => !path.startsWith('/v1/'))).toEqual(['/x402/pay/{id}']);
  const methods = [...generated['payment-service.ts'].matchAll(/^ {2}(\w+)\(/gm)].map((match) => match[1]);
  expect(methods).toHaveLength(ids.length);
  expect(new Set(methods).size).toBe(ids.length);
  expect(methods).toContain('createCheckoutSession');
  expect(methods.filter((method) => /x402/i.test(method!))).toEqual([]);
});

it('reads named schemas, $ref parameters and bodies, path-level parameters and webhooks as well', async () => {
  const document = {
    openapi: '3.1.0',
    info: { title: 'Shapes', version: 'v1' },
    paths: {
      '/v1/things/{id}': {
        parameters: [{ $ref: '#/components/parameters/Id' }],
        get: {
          operationId: 'retrieve_thing',
          parameters: [{ $ref: '#/components/parameters/Expand' }],
          responses: { 200: { description: 'A thing', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
        post: {
          operationId: 'update_thing',
          security: [{ bearer: ['things:write'] }],
          parameters: [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } }],
          requestBody: { $ref: '#/components/requestBodies/ThingIn' },
          responses: { 200: { description: 'A thing', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
      },
    },
    webhooks: {
      'thing.changed': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, responses: { 200: { description: 'ok' } } } },
    },
    components: {
      schemas: { Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, name: { type: 'string' } } } },
      parameters: {
        Id: { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        Expand: { name: 'expand', in: 'query', schema: { type: 'string' } },
      },
      requestBodies: { ThingIn: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } } } },
    },
  };
  const shapes = await generateClient(document);
  expect(shapes['operations.ts']).toContain("retrieve_thing: { method: 'GET', path: '/v1/things/{id}', query: ['expand'], headers: {}, body: false },");
  expect(shapes['operations.ts']).toContain("update_thing: { method: 'POST', path: '/v1/things/{id}', query: [], headers: { idempotencyKey: 'Idempotency-Key' }, body: true },");
  expect(shapes['payment-service.ts']).toContain("updateThing(input: OperationInput<'update_thing'>, options?: CallOptions<'update_thing'>): Promise<OperationOutput<'update_thing'>> {");
  expect(shapes['payment-service.ts']).toContain('`POST /v1/things/{id}` (scope `things:write`)');
  expect(shapes['schema.ts']).toContain('export type SchemaThing = components[\'schemas\'][\'Thing\'];');
  expect(shapes['schema.ts']).toMatch(/export interface webhooks \{\s+"thing\.changed"/);
});
