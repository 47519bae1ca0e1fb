import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The stdio server as an MCP client starts it (`node src/mcp-stdio.ts`, what `npm run --silent
// mcp` runs): a separate process that calls the running service's REST API with the key from
// its environment.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

async function stdioClient(key: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['src/mcp-stdio.ts'],
    env: { PATH: process.env.PATH ?? '', PAYMENT_SERVICE_URL: t.url, PAYMENT_SERVICE_KEY: key },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

it('lists the credential\'s tools and calls the service\'s REST API', async () => {
  const biz = await t.business();
  const full = await stdioClient((await biz.key()).secret);
  const names = (await full.listTools()).tools.map((tool) => tool.name);
  expect(names).toContain('create_payment_link');
  expect(names).toContain('create_webhook_endpoint');
  const created = await full.callTool({ name: 'create_payment_link', arguments: { amount: '12.00', currency: 'USD', description: 'Over stdio' } });
  expect(created.isError).toBeFalsy();
  const id = (created.structuredContent as { id: string }).id;
  expect((await full.callTool({ name: 'retrieve_payment_link', arguments: { id } })).structuredContent).toMatchObject({ id, amount: '12.00' });
  expect((await full.callTool({ name: 'list_payment_links', arguments: { limit: 1 } })).structuredContent).toMatchObject({ data: [{ id }] });
  const refused = await full.callTool({ name: 'create_payment_link', arguments: { amount: 'ten', currency: 'USD', description: 'x' } });
  expect(refused.isError).toBe(true);
  expect(JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: { code: 'invalid_amount' } });
  await full.close();

  const readOnly = await stdioClient((await biz.key({ access: 'read_only' })).secret);
  const readNames = (await readOnly.listTools()).tools.map((tool) => tool.name);
  expect(readNames).toContain('retrieve_payment_link');
  expect(readNames).not.toContain('create_payment_link');
  await readOnly.close();
});
