import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operations } from '../../src/operations.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The OpenAPI document is generated from the registry; it must be a valid OpenAPI 3.1
// document that every operation appears in, with its scope and its header inputs.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => t?.close());

it('is a valid OpenAPI 3.1 document', async () => {
  const document = (await t.request('GET', '/v1/openapi.json')).body;
  const validator = new Validator();
  const result = await validator.validate(document);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

it('documents the Idempotency-Key header of session creation, not a body field', async () => {
  const document = (await t.request('GET', '/v1/openapi.json')).body;
  const create = document.paths['/v1/checkout_sessions'].post;
  expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
  expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).not.toContain('idempotency_key');
  for (const operation of operations) {
    const path = `/v1${operation.http.path}`.replace(/:(\w+)/g, '{$1}');
    expect(document.paths[path][operation.http.method.toLowerCase()]['x-required-scope']).toBe(operation.scope);
  }
});
