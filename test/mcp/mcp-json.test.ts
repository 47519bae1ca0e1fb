import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// mcp.json takes the service's address and the credential from the environment, in the form
// Claude Code expands (`${VAR}`, `${VAR:-default}`): expanded so, both entries reach a service on
// whatever port it has; left unexpanded, the stdio server says what happened.

const config = JSON.parse(readFileSync(new URL('../../mcp.json', import.meta.url), 'utf8')) as {
  mcpServers: Record<string, { type: string; url?: string; headers?: Record<string, string>; command?: string; args?: string[]; env?: Record<string, string> }>;
};
const http = config.mcpServers['payment-service']!;
const stdio = config.mcpServers['payment-service-stdio']!;

/** A value as Claude Code expands it: `${VAR}` (left as written when unset) and `${VAR:-default}`. */
function expand(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (placeholder, name: string, fallback: string | undefined) =>
    env[name] || (fallback ?? placeholder));
}
const expandAll = (values: Record<string, string>, env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, expand(value, env)]));

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  key = (await (await t.business()).key()).secret;
});
afterAll(async () => t?.close());

async function createsALink(client: Client) {
  expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('create_payment_link');
  const created = await client.callTool({ name: 'create_payment_link', arguments: { amount: '5.00', currency: 'USD', description: 'From mcp.json' } });
  expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
  await client.close();
}

it('is JSON with an HTTP and a stdio entry, reading only PAYMENT_SERVICE_URL and PAYMENT_SERVICE_KEY, the URL defaulting to port 3000', () => {
  expect(http).toMatchObject({ type: 'http' });
  expect(stdio).toMatchObject({ type: 'stdio', command: 'npm', args: ['run', '--silent', 'mcp'] });
  const placeholders = JSON.stringify(config).match(/\$\{[^}]*\}/g) ?? [];
  expect(new Set(placeholders)).toEqual(new Set(['${PAYMENT_SERVICE_URL:-http://localhost:3000}', '${PAYMENT_SERVICE_KEY}']));
  expect(expand(http.url!, {})).toBe('http://localhost:3000/mcp');
});

it('serves the tools from its HTTP entry, expanded, on the test server\'s own port', async () => {
  expect(new URL(t.url).port).not.toBe('3000');
  const env = { PAYMENT_SERVICE_URL: t.url, PAYMENT_SERVICE_KEY: key };
  const client = new Client({ name: 'mcp-json-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(expand(http.url!, env)), { requestInit: { headers: expandAll(http.headers!, env) } }));
  await createsALink(client);
});

it('serves the tools from its stdio entry, expanded, against the test server', async () => {
  const env = expandAll(stdio.env!, { PAYMENT_SERVICE_URL: t.url, PAYMENT_SERVICE_KEY: key });
  expect(env).toEqual({ PAYMENT_SERVICE_URL: t.url, PAYMENT_SERVICE_KEY: key });
  const client = new Client({ name: 'mcp-json-stdio', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: stdio.command!, args: stdio.args!, env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' }));
  await createsALink(client);
});

it('has the stdio server say so when a client passed the key\'s placeholder unexpanded', async () => {
  const run = promisify(execFile);
  const refused = await run(stdio.command!, stdio.args!, { env: { PATH: process.env.PATH ?? '', ...stdio.env! }, timeout: 30_000 })
    .then(() => null, (error: { code?: number; stderr?: string }) => error);
  expect(refused?.code).toBe(2);
  expect(refused?.stderr).toContain('PAYMENT_SERVICE_KEY arrived as the text ${PAYMENT_SERVICE_KEY}: this MCP client does not expand that');
});
