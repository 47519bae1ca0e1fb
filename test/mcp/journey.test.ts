import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { localFetch, MemoryOAuthProvider } from '../support/mcp-oauth.ts';

// An agent's whole journey as an MCP client: a 401 from /mcp leads it to sign in (OAuth with
// the SDK), a person approves it in the dashboard, and through tools it creates a payment link,
// simulates its payment in Test, reads the paid order; disconnected, its next call is refused.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());


it('signs in from a 401, creates a link, simulates its payment, reads the paid order, and is refused once disconnected', async () => {
  const fetchFn = localFetch(t);
  const serverUrl = `${t.config.baseUrl}/mcp`;
  const agent = new MemoryOAuthProvider('Journey Agent');

  // Without a token the endpoint answers 401 pointing at its resource metadata.
  const first = await fetchFn(serverUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  expect(first.status).toBe(401);
  const resourceMetadata = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate') ?? '')?.[1];
  expect(resourceMetadata).toBe(`${t.config.baseUrl}/.well-known/oauth-protected-resource/mcp`);

  expect(await auth(agent, { serverUrl, fetchFn, resourceMetadataUrl: new URL(resourceMetadata!) })).toBe('REDIRECT');
  expect(agent.authorizationUrl!.searchParams.get('resource')).toBe(serverUrl);
  const biz = await t.business();
  const owner = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email').where('m.business_id', '=', biz.id).executeTakeFirstOrThrow();
  const person = new Browser(t);
  await person.signInWith((await createSignInLink(t.context, owner.email))!.url);
  const approvePage = await person.visit(agent.authorizationUrl!.href);
  const decided = await person.request('POST', '/dashboard/approve', { ...Browser.form(approvePage.html, '/dashboard/approve'), business: biz.id, mode: 'test', access: 'full', decision: 'approve' });
  const callback = new URL(decided.location!);
  expect(await auth(agent, { serverUrl, fetchFn, authorizationCode: callback.searchParams.get('code')!, iss: callback.searchParams.get('iss')! })).toBe('AUTHORIZED');

  const client = new Client({ name: 'journey', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: agent, fetch: fetchFn }));
  const { tools } = await client.listTools();
  expect(tools.some((tool) => tool.name.includes('webhook'))).toBe(false);

  const link = (await client.callTool({ name: 'create_payment_link', arguments: { amount: '18.00', currency: 'USD', description: 'Tea', customer_email: 'buyer@example.com' } })).structuredContent as { id: string };
  await client.callTool({ name: 'start_checkout_session', arguments: { id: link.id } });
  const paid = await client.callTool({ name: 'simulate_payment', arguments: { id: link.id, outcome: 'paid' } });
  expect(paid.isError, JSON.stringify(paid.content)).toBeFalsy();
  expect(paid.structuredContent).toMatchObject({ id: link.id, status: 'paid' });
  const orders = (await client.callTool({ name: 'list_orders', arguments: {} })).structuredContent as { data: Array<{ id: string; status: string; payment_ids: string[] }> };
  const order = orders.data.find((candidate) => candidate.payment_ids.includes(link.id));
  expect(order, JSON.stringify(orders.data)).toBeDefined();
  const read = await client.callTool({ name: 'retrieve_order', arguments: { id: order!.id } });
  expect(read.structuredContent).toMatchObject({ id: order!.id, status: 'paid' });

  // The person disconnects the agent: the very next call is refused.
  const connectionId = JSON.parse(Buffer.from(agent.savedTokens.access_token.split('.')[1], 'base64url').toString()).connection_id as string;
  const agentsPage = await person.visit(`/dashboard/businesses/${biz.id}/test/agents`);
  const action = `/dashboard/businesses/${biz.id}/test/agents/${connectionId}/disconnect`;
  await person.request('POST', action, Browser.form(agentsPage.html, action));
  await expect(client.callTool({ name: 'list_orders', arguments: {} })).rejects.toThrow();
  const raw = await fetchFn(serverUrl, { method: 'POST', headers: { authorization: `Bearer ${agent.savedTokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  expect(raw.status).toBe(401);
  expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('agent_disconnected');
});
