import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SCOPES, readsOnly, scopesForKey, type Scope } from '../src/auth/scopes.ts';
import { SECOND } from '../src/core/clock.ts';
import { MAX_PAGE } from '../src/core/pagination.ts';
import { pathParams, type Operation } from '../src/verbs/operation.ts';
import type { KeyAccess, KeyKind } from '../src/db/schema.ts';
import { operations } from '../src/operations.ts';
import { startTestApp, type TestApp, type TestBusiness } from './support/harness.ts';
import { listedObjects, operationFixtures, type Call, type Fixture } from './support/operation-fixtures.ts';
import { connectAgent } from './support/agents.ts';

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

const fixtures = operationFixtures(() => t);
const listed = listedObjects(() => t);

function call(operation: Operation, key: string | null, c: Call) {
  return t.request(operation.http.method, c.path, { key, body: c.body });
}

const hasId = (operation: Operation) => pathParams(operation).includes('id');

/** The scope that reads each kind of object, by its id's prefix: what an operation may carry of another resource only to its holder. */
const READ_SCOPE_OF_PREFIX: Record<string, Scope> = { ord_: 'orders:read', cus_: 'customers:read' };

/** Where `body` holds an object (with its id) that `scopes` may not read. */
function unreadable(body: unknown, scopes: readonly Scope[], at = '$'): string[] {
  if (Array.isArray(body)) return body.flatMap((item, index) => unreadable(item, scopes, `${at}[${index}]`));
  // A body kept as JSON text (a webhook delivery's) carries the same objects.
  if (typeof body === 'string' && body.startsWith('{')) return unreadable(JSON.parse(body), scopes, `${at}(json)`);
  if (body === null || typeof body !== 'object') return [];
  const record = body as Record<string, unknown>;
  const id = typeof record.id === 'string' ? record.id : '';
  const needs = Object.entries(READ_SCOPE_OF_PREFIX).find(([prefix]) => id.startsWith(prefix))?.[1];
  if (needs !== undefined && !scopes.includes(needs)) return [`${at} (${id}) needs ${needs}`];
  return Object.entries(record).flatMap(([key, value]) => unreadable(value, scopes, `${at}.${key}`));
}
const isList = (operation: Operation) => operation.name.startsWith('list_');

it('every operation has a security fixture', () => {
  expect(operations.map((operation) => operation.name).filter((name) => !(name in fixtures))).toEqual([]);
});

it('every list operation has an object it lists', () => {
  expect(operations.filter(isList).map((operation) => operation.name).filter((name) => !(name in listed))).toEqual([]);
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

  it.runIf(readsOnly(operation.scope) && (API_SCOPES as readonly string[]).includes(operation.scope))(
    'carries another resource\'s data inside its own only to a caller holding that resource\'s scope', async () => {
      const scopes = [operation.scope];
      const { token } = await connectAgent(t, owner, { scopes });
      const response = await call(operation, token, await fixture(ownerTestKey));
      expect(response.status, JSON.stringify(response.body)).toBe(operation.http.status);
      expect(unreadable(response.body, scopes)).toEqual([]);
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

  it('on an archived business: reads, and refuses a change with 403 merchant_read_only, except where the spec allows', async () => {
    const business = await t.business();
    const key = (await business.key()).secret;
    const c = await fixture(key);
    await business.update({ status: 'archived' });
    const response = await call(operation, key, c);
    if (operation.allowWhenSuspended || readsOnly(operation.scope)) {
      expect(response.status, JSON.stringify(response.body)).toBe(operation.http.status);
    } else {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('merchant_read_only');
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
    it.each(['test', 'live'] as const)("lists only the caller's business and mode (caller in %s mode)", async (mode) => {
      // Fresh businesses, so the caller's few rows are all on one page. A second later than every
      // earlier row, so that were a filter missing, this case's other rows would head the page too.
      await t.jump(SECOND);
      const caller = await t.business();
      const stranger = await t.business();
      const callerKey = (await caller.key({ mode })).secret;
      const makeListed = listed[operation.name]!;
      const othersIds = [
        await makeListed((await stranger.key({ mode })).secret),
        await makeListed((await caller.key({ mode: mode === 'test' ? 'live' : 'test' })).secret),
      ];
      const ownId = await makeListed(callerKey);
      const { path } = await fixture(callerKey);
      const response = await call(operation, callerKey, { path: `${path}?limit=${MAX_PAGE}` });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const shown: Array<{ id: string; livemode: boolean }> = response.body.data;
      const shownIds = shown.map((item) => item.id);
      expect(shownIds).toContain(ownId);
      expect(shownIds.filter((id) => othersIds.includes(id))).toEqual([]);
      expect(shown.every((item) => item.livemode === (mode === 'live'))).toBe(true);
    });
  }
});
