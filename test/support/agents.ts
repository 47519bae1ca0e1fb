import { randomBytes } from 'node:crypto';
import type { KeyAccess } from '../../src/db/schema.ts';
import { API_SCOPES, READ_ONLY_SCOPES, type Scope } from '../../src/auth/scopes.ts';
import type { TestApp, TestBusiness } from './harness.ts';
import { DEFAULT_POLICY, writePolicy, type SpendPolicy } from '../../src/agents/policy.ts';

// An agent connected to a business without the browser: the connection row a person's approval
// makes, and an access token from the service's own issuer. For tests whose subject is what an
// agent does, not how it signs in (test/oauth covers that, through real clients).

/**
 * policy: what the agent may do with money; by default the approval page's defaults without the
 * person's yes for each Live change (so a test about something else can act in Live).
 */
export async function connectAgent(t: TestApp, biz: TestBusiness, options: { mode?: 'test' | 'live'; access?: KeyAccess; resource?: string; policy?: SpendPolicy; scopes?: readonly Scope[] } = {}) {
  const owner = await t.db.selectFrom('memberships').select('person_id').where('business_id', '=', biz.id).where('role', '=', 'owner').executeTakeFirstOrThrow();
  const access = options.access ?? 'full';
  const connection = await t.db.insertInto('agent_connections').values({
    id: `con_${randomBytes(12).toString('hex')}`, business_id: biz.id, livemode: options.mode === 'live', client_id: 'agc_test', client_name: 'Test Agent',
    approved_by: owner.person_id, access, scopes: [...(options.scopes ?? (access === 'full' ? API_SCOPES : READ_ONLY_SCOPES))],
    resource: options.resource ?? `${t.config.baseUrl}/v1`, created_at: t.clock.now(),
  }).returningAll().executeTakeFirstOrThrow();
  await writePolicy(t.db, connection.id, options.policy ?? { ...DEFAULT_POLICY, liveNeedsApproval: false });
  const { token } = await t.context.accessTokens.issue(connection);
  return { connection, token };
}
