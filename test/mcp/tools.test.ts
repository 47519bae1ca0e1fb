import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operations } from '../../src/operations.ts';
import { restPath } from '../../src/verbs/operation.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { operationFixtures } from '../support/operation-fixtures.ts';

// Every tool, one table: each operation's valid call made as a tool call, its arguments
// accepted by the operation's input schema and its structured result by the output schema, and
// the same JSON as text. A new operation cannot ship without a working tool.

let t: TestApp;
let key: string;
let client: Client;
const fixtures = operationFixtures(() => t);

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  key = (await (await t.business()).key()).secret;
  client = new Client({ name: 'tool-table', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

/** A REST call as tool arguments: the path's parameters, the query's and the body's fields together. */
function argumentsOf(operation: (typeof operations)[number], target: string, body: unknown): Record<string, unknown> {
  const [path = '', query = ''] = target.split('?');
  const pattern = new RegExp(`^${restPath(operation).replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`);
  const params = pattern.exec(path)?.groups ?? {};
  return { ...params, ...Object.fromEntries(new URLSearchParams(query)), ...(typeof body === 'object' && body !== null ? body : {}) };
}

it('lists a tool for every operation, with its annotations and schemas', async () => {
  const { tools } = await client.listTools();
  for (const operation of operations) {
    const tool = tools.find((candidate) => candidate.name === operation.name);
    expect(tool, operation.name).toBeDefined();
    expect(tool!.title).toBe(operation.title);
    expect(tool!.description).toBe(operation.description);
    expect(tool!.annotations).toMatchObject(operation.annotations);
    expect(tool!.inputSchema.type).toBe('object');
    expect(tool!.outputSchema?.type).toBe('object');
  }
});

it.each(operations.map((operation) => [operation.name, operation] as const))('%s works as a tool', async (_name, operation) => {
  const call = await fixtures[operation.name]!(key);
  const args = argumentsOf(operation, call.path, call.body);
  expect(operation.input.safeParse(args).success, JSON.stringify(args)).toBe(true);
  const result = await client.callTool({ name: operation.name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const parsed = operation.output.safeParse(result.structuredContent);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  const text = (result.content as Array<{ type: string; text: string }>)[0]!;
  expect(text.type).toBe('text');
  expect(JSON.parse(text.text)).toEqual(result.structuredContent);
});

/** The optional arguments of an operation that do not take null (null for them means "none"). */
function optionalWithoutNull(operation: (typeof operations)[number]): string[] {
  return Object.entries(operation.input.shape as Record<string, { safeParse(value: unknown): { success: boolean } }>)
    .filter(([, field]) => field.safeParse(undefined).success && !field.safeParse(null).success)
    .map(([name]) => name);
}

it.each(operations.map((operation) => [operation.name, operation] as const))('%s takes null for each optional argument it was not given as absent', async (_name, operation) => {
  const call = await fixtures[operation.name]!(key);
  const args = argumentsOf(operation, call.path, call.body);
  const nulls = Object.fromEntries(optionalWithoutNull(operation).filter((name) => !(name in args)).map((name) => [name, null]));
  const result = await client.callTool({ name: operation.name, arguments: { ...args, ...nulls } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(operation.output.safeParse(result.structuredContent).success).toBe(true);
});

it.each(['create_payment_link', 'create_checkout_session'])('%s answers the x402 address an agent that buys pays at, after the object', async (name) => {
  const operation = operations.find((candidate) => candidate.name === name)!;
  const call = await fixtures[name]!(key);
  const result = await client.callTool({ name, arguments: argumentsOf(operation, call.path, call.body) });
  const content = result.content as Array<{ type: string; text: string }>;
  expect(content).toHaveLength(2);
  const id = (result.structuredContent as { id: string }).id;
  expect(content[1]).toEqual({ type: 'text', text: `An agent that buys pays it over HTTP 402 (x402 version 2, USDC, EIP-3009) at ${t.config.baseUrl}/x402/pay/${id} (docs/x402.md).` });
  // The address answers the protocol's 402.
  const res = await fetch(`${t.url}/x402/pay/${id}`);
  expect(res.status).toBe(402);
  expect(res.headers.get('payment-required')).toEqual(expect.any(String));
});
