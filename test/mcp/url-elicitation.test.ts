import { Client, ProtocolErrorCode, StreamableHTTPClientTransport, UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personPrincipal } from '../../src/auth/people.ts';
import { decideAgentApproval } from '../../src/resources/agent-connections/policy.ts';
import { connectAgent } from '../support/agents.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';

// A connected agent's call beyond its spend policy, asked by a client of the 2025-11-25 protocol
// (the SDK client's default, initialize and all): one that declared URL elicitation gets that
// era's URL elicitation, the -32042 URLElicitationRequiredError naming the approval page, and its
// retry once a person approved is done; one that did not gets the tool error naming the page.
// (The 2026-07-28 era's input-required elicitation: test/agents/spend-policy.test.ts.)

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

const LIMITS = { liveNeedsApproval: false, limits: [{ currency: 'USD' as const, perObjectMinor: 10_000, perDayMinor: 25_000 }] };
const BIG_BAG = { amount: '150.00', currency: 'USD', description: 'Big bag' };

async function agentOf(biz: TestBusiness) {
  return connectAgent(t, biz, { resource: `${t.config.baseUrl}/mcp`, policy: LIMITS });
}

async function connect(token: string, capabilities: Record<string, unknown>) {
  const client = new Client({ name: 'agent-2025', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
  return client;
}

/** The business's owner approves the request in the dashboard (the verb its button runs). */
async function approve(biz: TestBusiness, approvalId: string): Promise<void> {
  const owner = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select(['p.id', 'p.email'])
    .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow();
  const principal = await personPrincipal(t.db, { personId: owner.id, email: owner.email }, biz.id, false);
  await decideAgentApproval.run({ ...t.context, principal }, { id: approvalId, decision: 'approve' });
}

const links = async (biz: TestBusiness) => (await t.db.selectFrom('payments').select('id').where('business_id', '=', biz.id).execute()).length;

describe('a 2025-11-25 client', () => {
  it('that declared URL elicitation gets the URL elicitation required error with the approval page; its retry is done once approved', async () => {
    const biz = await t.business({ name: 'Eliciting 2025 Roasters' });
    const { token } = await agentOf(biz);
    const client = await connect(token, { elicitation: { url: {} } });

    const refused = await client.callTool({ name: 'create_payment_link', arguments: BIG_BAG }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    const { code, elicitations, message } = refused as UrlElicitationRequiredError;
    expect(code).toBe(ProtocolErrorCode.UrlElicitationRequired);
    expect(elicitations).toHaveLength(1);
    const [elicitation] = elicitations;
    expect(elicitation).toMatchObject({ mode: 'url', elicitationId: expect.stringMatching(/^apr_/) });
    expect(elicitation!.url).toBe(`${t.config.baseUrl}/dashboard/businesses/${biz.id}/test/agents/approvals/${elicitation!.elicitationId}`);
    expect(elicitation!.message).toContain('a person who manages agents in this business approves');
    expect(message).toContain('150.00 USD is over this agent\'s limit of 100.00 USD per payment');
    expect(await links(biz)).toBe(0);

    // Asked again before anyone decided: the same elicitation.
    const again = await client.callTool({ name: 'create_payment_link', arguments: BIG_BAG }).catch((error: unknown) => error);
    expect((again as UrlElicitationRequiredError).elicitations[0]!.elicitationId).toBe(elicitation!.elicitationId);

    await approve(biz, elicitation!.elicitationId);
    const done = await client.callTool({ name: 'create_payment_link', arguments: BIG_BAG });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ object: 'payment_link', amount: '150.00' });
    expect(await links(biz)).toBe(1);

    // Within its policy the same client works unattended.
    const small = await client.callTool({ name: 'create_payment_link', arguments: { ...BIG_BAG, amount: '20.00' } });
    expect(small.structuredContent).toMatchObject({ amount: '20.00' });
    await client.close();
  });

  it('that did not declare it gets the tool error naming the page and approval_id', async () => {
    const biz = await t.business({ name: 'Plain 2025 Roasters' });
    const { token } = await agentOf(biz);
    for (const capabilities of [{}, { elicitation: { form: {} } }]) {
      const client = await connect(token, capabilities);
      const refused = await client.callTool({ name: 'create_payment_link', arguments: BIG_BAG });
      expect(refused.isError).toBe(true);
      const { error } = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text);
      expect(error.code).toBe('approval_required');
      expect(error.message).toContain(`approval_id "${error.approval_url.slice(error.approval_url.lastIndexOf('/') + 1)}"`);
      await client.close();
    }
    expect(await links(biz)).toBe(0);
  });
});

it('a secret key\'s client that declared URL elicitation is never asked: keys have no spend policy', async () => {
  const key = (await (await t.business({ name: 'Keyed Roasters' })).key()).secret;
  const client = await connect(key, { elicitation: { url: {} } });
  const created = await client.callTool({ name: 'create_payment_link', arguments: { ...BIG_BAG, amount: '900.00' } });
  expect(created.structuredContent).toMatchObject({ amount: '900.00' });
  await client.close();
});
