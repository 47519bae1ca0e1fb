import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The MCP Inspector's CLI, run as a developer runs it: against /mcp over HTTP with a Test key,
// and against the stdio server from the repository's mcp.json.

const run = promisify(execFile);
let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

async function inspector(args: string[]) {
  try {
    const { stdout, stderr } = await run('node_modules/.bin/mcp-inspector', ['--cli', ...args], { env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    return { ok: true, output: stdout, stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}`, stderr: e.stderr ?? '' };
  }
}

const http = (key: string, ...args: string[]) => inspector([`${t.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args]);

it('lists every tool for a Full access key and only read tools for a Read only key', async () => {
  const biz = await t.business();
  const full = JSON.parse((await http((await biz.key()).secret, '--method', 'tools/list')).output);
  const names = full.tools.map((tool: { name: string }) => tool.name);
  expect(names).toContain('create_payment_link');
  expect(names).toContain('simulate_payment');
  const readOnly = JSON.parse((await http((await biz.key({ access: 'read_only' })).secret, '--method', 'tools/list')).output);
  for (const tool of readOnly.tools) expect(tool.annotations.readOnlyHint).toBe(true);
  expect(readOnly.tools.map((tool: { name: string }) => tool.name)).not.toContain('create_payment_link');
});

it('passes the Inspector\'s schema-portability check in strict mode: no error, no warning, in any tool\'s input or output', async () => {
  // --strict exits 6 on an error-severity finding only; its warnings (a `type` array for "may be
  // null", a schema with no keyword) come in the JSON envelope's schemaFindings and on stderr.
  const listed = await http((await (await t.business()).key()).secret, '--method', 'tools/list', '--strict', '--format', 'json');
  expect(listed.ok, listed.output).toBe(true);
  const envelope = JSON.parse(listed.output);
  expect(envelope.result.tools.length).toBeGreaterThan(20);
  const findings = (envelope.schemaFindings ?? []).flatMap((tool: { toolName: string; findings: Array<{ schema: string; path: string; rule: string }> }) =>
    tool.findings.map((finding) => `${tool.toolName} ${finding.schema}.${finding.path}: ${finding.rule}`));
  expect(findings).toEqual([]);
  expect(listed.stderr).not.toMatch(/portability|Warning|Error/);
});

it('creates a payment link with tools/call, and refuses a tool hidden from the key', async () => {
  const biz = await t.business();
  const created = await http((await biz.key()).secret, '--method', 'tools/call', '--tool-name', 'create_payment_link',
    // Values are read as JSON: a decimal string needs its quotes.
    '--tool-arg', 'amount="25.00"', 'currency=USD', 'description=Inspector tea');
  expect(created.ok, created.output).toBe(true);
  const result = JSON.parse(created.output);
  expect(result.structuredContent).toMatchObject({ object: 'payment_link', amount: '25.00', description: 'Inspector tea' });
  const hidden = await http((await biz.key({ access: 'read_only' })).secret, '--method', 'tools/call', '--tool-name', 'create_payment_link',
    '--tool-arg', 'amount="25.00"', 'currency=USD', 'description=x');
  expect(hidden.ok).toBe(false);
  expect(hidden.output).toMatch(/create_payment_link/i);
});

it('runs the stdio server from mcp.json with a Test key from the environment', async () => {
  const key = (await (await t.business()).key()).secret;
  const listed = await inspector(['--config', 'mcp.json', '--server', 'payment-service-stdio',
    '-e', `PAYMENT_SERVICE_URL=${t.url}`, '-e', `PAYMENT_SERVICE_KEY=${key}`, '--method', 'tools/list']);
  expect(listed.ok, listed.output).toBe(true);
  expect(JSON.parse(listed.output).tools.map((tool: { name: string }) => tool.name)).toContain('create_payment_link');
});
