import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The MCP endpoint through the official SDK client over real HTTP: tools from the registry,
// filtered by the caller's scopes, calling the same verbs as REST.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

async function connect(credential: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } });
  const client = new Client({ name: 'payment-service-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('tools', () => {
  it('lists every operation to a Full access key, and creates a payment link', async () => {
    const key = (await (await t.business()).key()).secret;
    const client = await connect(key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(operations.map((op) => op.name).sort());
    const created = await client.callTool({ name: 'create_payment_link', arguments: { amount: '25.00', currency: 'USD', description: 'Coffee beans' } });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ object: 'payment_link', amount: '25.00', status: 'open' });
    const read = await t.request('GET', `/v1/payment_links/${(created.structuredContent as { id: string }).id}`, { key });
    expect(read.status).toBe(200);
    await client.close();
  });

  it('shows a Read only key only read tools; a hidden tool is unknown; API errors come back as tool errors', async () => {
    const biz = await t.business();
    const client = await connect((await biz.key({ access: 'read_only' })).secret);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
    await expect(client.callTool({ name: 'create_payment_link', arguments: { amount: '25.00', currency: 'USD', description: 'x' } })).rejects.toThrow();
    const missing = await client.callTool({ name: 'retrieve_payment_link', arguments: { id: 'pay_missing' } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    await client.close();
  });

  it('refuses a request without a credential with 401 and the MCP resource metadata', async () => {
    const response = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${t.config.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    const metadata = await t.request('GET', '/.well-known/oauth-protected-resource/mcp');
    expect(metadata.body.resource).toBe(`${t.config.baseUrl}/mcp`);
  });
});
