import { randomBytes } from 'node:crypto';
import type { KeyAccess } from '../../src/db/schema.ts';
import { API_SCOPES, READ_ONLY_SCOPES } from '../../src/auth/scopes.ts';
import type { TestApp, TestBusiness } from './harness.ts';

// An agent connected to a business without the browser: the connection row a person's approval
// makes, and an access token from the service's own issuer. For tests whose subject is what an
// agent does, not how it signs in (test/oauth covers that, through real clients).

export async function connectAgent(t: TestApp, biz: TestBusiness, options: { mode?: 'test' | 'live'; access?: KeyAccess; resource?: string } = {}) {
  const owner = await t.db.selectFrom('memberships').select('person_id').where('business_id', '=', biz.id).where('role', '=', 'owner').executeTakeFirstOrThrow();
  const access = options.access ?? 'full';
  const connection = await t.db.insertInto('agent_connections').values({
    id: `con_${randomBytes(12).toString('hex')}`, business_id: biz.id, livemode: options.mode === 'live', client_id: 'agc_test', client_name: 'Test Agent',
    approved_by: owner.person_id, access, scopes: [...(access === 'full' ? API_SCOPES : READ_ONLY_SCOPES)],
    resource: options.resource ?? `${t.config.baseUrl}/v1`, created_at: t.clock.now(),
  }).returningAll().executeTakeFirstOrThrow();
  const { token } = await t.context.accessTokens.issue(connection);
  return { connection, token };
}
