import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { connectAgent } from '../support/agents.ts';
import { disconnectConnection } from '../../src/agents/connections.ts';

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
    expect(JSON.parse((missing.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: { code: 'not_found' } });
    expect(missing.structuredContent).toBeUndefined();
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

describe('protocol eras', () => {
  const post = (credential: string, body: unknown, headers: Record<string, string> = {}) => fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  async function json(response: Response) {
    const text = await response.text();
    // A streamed answer carries its JSON-RPC message in a data: line.
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    return JSON.parse(data ? data.slice(6) : text);
  }

  it('serves a 2025-era client statelessly: initialize, then calls without a session; GET and DELETE are 405', async () => {
    const key = (await (await t.business()).key()).secret;
    const init = await post(key, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old-client', version: '1' } } });
    expect(init.status).toBe(200);
    const initialized = await json(init);
    expect(initialized.result.protocolVersion).toBe('2025-06-18');
    expect(initialized.result.serverInfo.name).toBe('payment-service');
    const list = await post(key, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { 'mcp-protocol-version': '2025-06-18' });
    expect((await json(list)).result.tools.length).toBeGreaterThan(10);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${t.url}/mcp`, { method, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
    }
  });

  it('refuses a browser page of another site (Origin) and a foreign Host', async () => {
    const key = (await (await t.business()).key()).secret;
    expect((await post(key, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'https://evil.example' })).status).toBe(403);
    const foreignHost = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(`${t.url}/mcp`, { method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
      }, reject);
    });
    expect(foreignHost).toBe(403);
  });
});

describe('agents', () => {
  it('an agent token for the MCP endpoint works there, not on the API; a disconnect ends it at once', async () => {
    const biz = await t.business();
    const { token, connection } = await connectAgent(t, biz, { resource: `${t.config.baseUrl}/mcp` });
    const client = await connect(token);
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name.includes('webhook'))).toBe(false);
    expect((await client.callTool({ name: 'list_payment_links', arguments: {} })).isError).toBeFalsy();
    expect((await t.request('GET', '/v1/payment_links', { key: token })).body.error.code).toBe('invalid_token');
    await disconnectConnection(t.context, connection, 'test', 'person:test');
    await expect(client.callTool({ name: 'list_payment_links', arguments: {} })).rejects.toThrow();
    const raw = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(raw.status).toBe(401);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('agent_disconnected');
  });

  it('an API token is not valid at the MCP endpoint', async () => {
    const { token } = await connectAgent(t, await t.business());
    const raw = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('reference resources', () => {
  it('offers the error codes and the event types', async () => {
    const client = await connect((await (await t.business()).key()).secret);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(['payment-service://reference/error-codes', 'payment-service://reference/event-types']);
    const errors = await client.readResource({ uri: 'payment-service://reference/error-codes' });
    const codes = JSON.parse((errors.contents[0] as { text: string }).text) as Array<{ code: string; status: number }>;
    expect(codes).toContainEqual({ code: 'agent_disconnected', status: 401 });
    const events = await client.readResource({ uri: 'payment-service://reference/event-types' });
    expect(JSON.parse((events.contents[0] as { text: string }).text).payment_events).toContain('payment.paid');
    await client.close();
  });
});

describe('the 2026-07-28 protocol', () => {
  it('serves a client pinned to the stateless 2026-07-28 revision', async () => {
    const key = (await (await t.business()).key()).secret;
    const seen: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string') seen.push(init.body);
      return fetch(input, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } }, fetch: recording });
    const client = new Client({ name: 'modern-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('create_payment_link');
    const created = await client.callTool({ name: 'create_payment_link', arguments: { amount: '9.00', currency: 'USD', description: 'Modern' } });
    expect(created.structuredContent).toMatchObject({ object: 'payment_link', amount: '9.00' });
    expect(seen.some((body) => body.includes('"initialize"'))).toBe(false);
    await client.close();
  });
});
