import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// An error a tool caller gets names the tool and argument to use next, never a REST path or
// header, over /mcp and over the stdio server (which calls the REST API, asking for the tools'
// wording); a REST caller keeps the REST wording, word for word.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

type Connect = (key: string) => Promise<Client>;

const overHttp: Connect = async (key) => {
  const client = new Client({ name: 'wording-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
};

const overStdio: Connect = async (key) => {
  const client = new Client({ name: 'wording-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: process.execPath,
    args: ['src/mcp-stdio.ts'],
    env: { PATH: process.env.PATH ?? '', PAYMENT_SERVICE_URL: t.url, PAYMENT_SERVICE_KEY: key },
    stderr: 'pipe',
  }));
  return client;
};

/** A tool call that must fail: its API error object, checked to speak only in the tools' terms. */
async function toolError(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  const { error } = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { error: { code: string; message: string; field?: string } };
  expect(error.message).not.toMatch(/\/v1\/|\b(GET|POST|PATCH|DELETE) \/|Idempotency-Key|header|request body/);
  return error;
}

const SESSION = { amount: '25.00', currency: 'USD', description: 'Tea' };

describe.each([['/mcp', overHttp], ['the stdio server', overStdio]] as const)('a tool caller over %s', (_transport, connect) => {
  it('is told to start the payment first by the tool and argument, with the payment\'s id', async () => {
    const key = (await (await t.business()).key()).secret;
    const client = await connect(key);
    await client.listTools();
    const session = await client.callTool({ name: 'create_checkout_session', arguments: SESSION });
    const id = (session.structuredContent as { id: string }).id;
    expect(await toolError(client, 'simulate_payment', { id, outcome: 'paid' })).toEqual({
      code: 'invalid_state',
      message: `Start the payment first: call start_checkout_session with id "${id}"; money can only arrive after a buyer started paying.`,
    });
    await client.close();
  });

  it('has idempotency_key named as the argument it is: in the message and in field', async () => {
    const key = (await (await t.business()).key()).secret;
    const client = await connect(key);
    expect(await toolError(client, 'create_checkout_session', { ...SESSION, idempotency_key: ' ' })).toEqual({
      code: 'invalid_idempotency_key', message: 'idempotency_key must be 1 to 120 printable ASCII characters, not blank.', field: 'idempotency_key',
    });
    const first = await client.callTool({ name: 'create_checkout_session', arguments: { ...SESSION, idempotency_key: 'order-1' } });
    expect(first.isError).toBeFalsy();
    expect(await toolError(client, 'create_checkout_session', { ...SESSION, amount: '26.00', idempotency_key: 'order-1' })).toEqual({
      code: 'idempotency_conflict',
      message: 'This idempotency_key was already used with different arguments: send those arguments again for that session, or a new idempotency_key for a new attempt.',
    });
    await client.close();
  });

  it('is told which tools lead on from a duplicate webhook endpoint and from a full mode', async () => {
    const key = (await (await t.business()).key()).secret;
    const client = await connect(key);
    for (let i = 0; i < 10; i++) {
      const created = await client.callTool({ name: 'create_webhook_endpoint', arguments: { url: `http://localhost:9/hooks/${i}` } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    }
    expect(await toolError(client, 'create_webhook_endpoint', { url: 'http://localhost:9/hooks/0' })).toEqual({
      code: 'duplicate_url', field: 'url',
      message: 'An endpoint with this url already exists in this mode: find its id with list_webhook_endpoints (to add it anew, call delete_webhook_endpoint with that id first).',
    });
    expect(await toolError(client, 'create_webhook_endpoint', { url: 'http://localhost:9/hooks/10' })).toEqual({
      code: 'too_many',
      message: 'This mode already has 10 webhook endpoints: call delete_webhook_endpoint with the id of one (list_webhook_endpoints lists them) first.',
    });
    await client.close();
  });
});

describe('a REST caller', () => {
  it('keeps the REST wording of each, word for word', async () => {
    const key = (await (await t.business()).key()).secret;
    const session = await t.request('POST', '/v1/checkout_sessions', { key, body: SESSION });
    const simulated = await t.request('POST', `/v1/payments/${session.body.id}/simulate`, { key, body: { outcome: 'paid' } });
    expect(simulated.status).toBe(409);
    expect(simulated.body).toEqual({ error: { code: 'invalid_state', message: 'Start the payment first (POST /v1/checkout_sessions/:id/start): money can only arrive after a buyer started paying.' } });
    expect(simulated.headers.get('preference-applied')).toBeNull();

    const blank = await t.request('POST', '/v1/checkout_sessions', { key, body: SESSION, headers: { 'Idempotency-Key': ' ' } });
    expect(blank.body).toEqual({ error: { code: 'invalid_idempotency_key', message: 'Idempotency-Key must be 1 to 120 printable ASCII characters, not blank.', field: 'Idempotency-Key' } });
    await t.request('POST', '/v1/checkout_sessions', { key, body: SESSION, headers: { 'Idempotency-Key': 'order-1' } });
    const conflict = await t.request('POST', '/v1/checkout_sessions', { key, body: { ...SESSION, amount: '26.00' }, headers: { 'Idempotency-Key': 'order-1' } });
    expect(conflict.body).toEqual({ error: { code: 'idempotency_conflict', message: 'This Idempotency-Key was already used with a different request body.' } });

    for (let i = 0; i < 10; i++) await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `http://localhost:9/rest/${i}` } });
    const duplicate = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: 'http://localhost:9/rest/0' } });
    expect(duplicate.body).toEqual({ error: { code: 'duplicate_url', message: 'An endpoint with this url already exists in this mode.', field: 'url' } });
    const full = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: 'http://localhost:9/rest/10' } });
    expect(full.body).toEqual({ error: { code: 'too_many', message: 'This mode already has 10 webhook endpoints; delete one first.' } });
  });

  it('gets the tools\' wording only by asking for it (Prefer: wording=tool, as the stdio server does), and is told it applied', async () => {
    const key = (await (await t.business()).key()).secret;
    const session = await t.request('POST', '/v1/checkout_sessions', { key, body: SESSION });
    const simulated = await t.request('POST', `/v1/payments/${session.body.id}/simulate`, { key, body: { outcome: 'paid' }, headers: { prefer: 'return=minimal, wording=tool' } });
    expect(simulated.status).toBe(409);
    expect(simulated.body.error.message).toBe(`Start the payment first: call start_checkout_session with id "${session.body.id}"; money can only arrive after a buyer started paying.`);
    expect(simulated.headers.get('preference-applied')).toBe('wording=tool');
  });
});
