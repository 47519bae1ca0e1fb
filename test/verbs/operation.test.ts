import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations.ts';
import { defineOperation, type HttpMethod, type OperationDefinition, type ToolAnnotations } from '../../src/verbs/operation.ts';
import type { Scope } from '../../src/auth/scopes.ts';

// The tool annotations every operation advertises come from its method and scope, with
// explicit overrides; no operation may advertise a pair that contradicts itself.

const READ_SCOPES: readonly Scope[] = ['payments:read', 'orders:read', 'customers:read', 'webhooks:read'];

describe('every operation\'s annotations', () => {
  it.each(operations.map((operation) => [operation.name, operation] as const))('%s agrees with its scope and method', (_name, operation) => {
    const { annotations: hints, scope, http } = operation;
    expect(hints.readOnlyHint, 'a read scope reads only, a write scope writes').toBe(READ_SCOPES.includes(scope));
    if (http.method === 'GET') expect(hints.destructiveHint, 'a GET destroys nothing').toBe(false);
    if (hints.readOnlyHint) expect(hints.destructiveHint, 'what only reads destroys nothing').toBe(false);
    expect(Object.keys(hints).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint']);
  });
});

describe('defineOperation', () => {
  const define = (method: HttpMethod, scope: Scope, annotations?: Partial<ToolAnnotations>) => defineOperation({
    name: 'try_operation', title: 'Try', description: 'Try.', useWhen: 'trying.', tag: 'Try', scope,
    ...(READ_SCOPES.includes(scope) ? {} : { writes: 'tries' }),
    input: z.object({}), output: z.object({}),
    http: { method, path: '/try', status: 200 },
    ...(annotations ? { annotations } : {}),
    run: async () => ({}),
  } satisfies OperationDefinition);

  it('derives the hints from the method and scope', () => {
    expect(define('GET', 'payments:read').annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(define('POST', 'checkouts:write').annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(define('PATCH', 'orders:write').annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(define('DELETE', 'webhooks:write').annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  });

  it('applies an explicit override', () => {
    expect(define('POST', 'checkouts:write', { destructiveHint: true, idempotentHint: true }).annotations)
      .toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  });

  it('refuses an override that contradicts the scope or method', () => {
    expect(() => define('POST', 'checkouts:write', { readOnlyHint: true })).toThrow(/inconsistent.*readOnlyHint true with the scope checkouts:write/);
    expect(() => define('GET', 'payments:read', { readOnlyHint: false })).toThrow(/inconsistent.*readOnlyHint false with the scope payments:read/);
    expect(() => define('GET', 'payments:read', { destructiveHint: true })).toThrow(/inconsistent.*destructiveHint on a GET/);
    expect(() => define('POST', 'payments:read', { destructiveHint: true })).toThrow(/inconsistent.*readOnlyHint and destructiveHint together/);
  });

  it('takes `writes` from a change, and from nothing else', () => {
    const base = { name: 'try_operation', title: 'Try', description: 'Try.', useWhen: 'trying.', tag: 'Try', input: z.object({}), output: z.object({}), run: async () => ({}) };
    expect(() => defineOperation({ ...base, scope: 'checkouts:write', http: { method: 'POST', path: '/try', status: 200 } })).toThrow(/writes/);
    expect(() => defineOperation({ ...base, scope: 'payments:read', writes: 'reads', http: { method: 'GET', path: '/try', status: 200 } })).toThrow(/writes/);
  });

  it('refuses an override that overrides nothing', () => {
    expect(() => define('DELETE', 'webhooks:write', { destructiveHint: true })).toThrow(/overrides nothing/);
    expect(() => define('GET', 'payments:read', { idempotentHint: undefined })).toThrow(/overrides nothing/);
  });
});
