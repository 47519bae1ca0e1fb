import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations.ts';
import { connectAgent } from '../support/agents.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// What a model reads before it calls (issue 31, must have 7): every tool says what it does to
// money and data, what it costs against the caller's limits and when to use it, and the creates
// an agent can make name the spend policy and the approval flow. An approval id is offered, as
// the tool argument approval_id and the REST header Approval-Id, on the changes an agent can
// call and nowhere else (an agent never holds the webhook scopes: spec 5.3).

type Tool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

let t: TestApp;
let keyTools: Tool[];
let agentTools: Tool[];
let document: any;

async function toolsOf(credential: string): Promise<Tool[]> {
  const client = new Client({ name: 'tool-guidance', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  const biz = await t.business();
  keyTools = await toolsOf((await biz.key()).secret);
  agentTools = await toolsOf((await connectAgent(t, biz, { resource: `${t.config.baseUrl}/mcp` })).token);
  document = (await t.request('GET', '/v1/openapi.json')).body;
});
afterAll(async () => t?.close());

const named = (tools: Tool[], name: string) => tools.find((tool) => tool.name === name);
const agentCalls = (name: string) => named(agentTools, name) !== undefined;
const changes = (tool: Tool) => tool.annotations?.readOnlyHint === false;
const operationIn = (name: string) => {
  const operation = operations.find((each) => each.name === name)!;
  return document.paths[`/v1${operation.http.path}`.replace(/:(\w+)/g, '{$1}')][operation.http.method.toLowerCase()];
};

describe('every tool\'s description', () => {
  it('is listed for every operation, and an agent sees every operation but the webhook ones', () => {
    expect(keyTools.map((tool) => tool.name).sort()).toEqual(operations.map((operation) => operation.name).sort());
    expect(keyTools.filter((tool) => !agentCalls(tool.name)).map((tool) => tool.name).every((name) => /webhook|deliver/.test(name))).toBe(true);
  });

  it.each(operations.map((operation) => [operation.name, operation] as const))('%s says what it does to money and data, what it costs, and when to use it', (name, operation) => {
    const description = named(keyTools, name)!.description!;
    if (changes(named(keyTools, name)!)) {
      expect(description).toContain(`Effect: ${operation.writes}; `);
      expect(description).toMatch(operation.spends ? /; no money moves until someone pays it\./ : /; moves no money\./);
    } else {
      expect(description).toContain('Effect: reads only; moves no money.');
    }
    expect(description).toMatch(/ Cost: one request\b[^.]*\./);
    expect(description).toMatch(agentCalls(name)
      ? /spend (limits|policy)/
      : /agents cannot call it \(no webhook scopes\)/);
    expect(description).toMatch(new RegExp(` Use it when ${operation.useWhen.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    // Shown to the model with every tool list: short.
    expect(description.length).toBeLessThanOrEqual(820);
    // The OpenAPI document says the same.
    expect(operationIn(name).description).toContain(description);
  });

  it('of a create an agent can make names the spend policy and the approval flow', () => {
    const creates = agentTools.filter((tool) => tool.name.startsWith('create_'));
    expect(creates.map((tool) => tool.name).sort()).toEqual(['create_checkout', 'create_checkout_session', 'create_payment_link']);
    for (const tool of creates) {
      expect(tool.description, tool.name).toContain('an agent\'s amount counts toward its spend policy (per payment and per day, in each currency)');
      expect(tool.description, tool.name).toMatch(/Approval: over that policy, or in Live if its person asked, nothing is done until a person approves on the page approval_required names; then repeat with approval_id \(REST: Approval-Id header\)\./);
    }
  });

  it('of another change an agent can make says when it waits for a person; no other tool mentions approval', () => {
    for (const tool of keyTools) {
      const asks = agentCalls(tool.name) && changes(tool);
      expect(/approval/i.test(tool.description!), tool.name).toBe(asks);
      if (asks && !tool.name.startsWith('create_')) expect(tool.description, tool.name).toContain('Approval: in Live, if an agent\'s person asked, nothing is done');
    }
  });
});

describe('the approval id', () => {
  it('is a tool argument exactly of the changes an agent can call', () => {
    for (const tool of keyTools) {
      const properties = Object.keys((tool.inputSchema.properties ?? {}) as object);
      expect(properties.includes('approval_id'), tool.name).toBe(agentCalls(tool.name) && changes(tool));
    }
    const asked = agentTools.filter((tool) => 'approval_id' in (tool.inputSchema.properties ?? {})).map((tool) => tool.name).sort();
    expect(asked).toEqual(['cancel_payment_link', 'create_checkout', 'create_checkout_session', 'create_payment_link', 'report_order_event',
      'simulate_payment', 'start_checkout_session', 'update_order']);
  });

  /** The 403 answer an operation documents, through its reference to a shared one. */
  const forbidden = (documented: any) => {
    const answer = documented.responses['403'];
    return answer.$ref ? document.components.responses[answer.$ref.split('/').at(-1)] : answer;
  };

  it('is an Approval-Id header in the OpenAPI document exactly on those operations, and nowhere else in them', () => {
    for (const tool of keyTools) {
      const documented = operationIn(tool.name);
      const asks = agentCalls(tool.name) && changes(tool);
      const headers = documented.parameters.filter((parameter: { in: string }) => parameter.in === 'header').map((parameter: { name: string }) => parameter.name);
      expect(headers.includes('Approval-Id'), tool.name).toBe(asks);
      // Not as a query parameter or body field either (a DELETE once took it in its query).
      expect(documented.parameters.some((parameter: { name: string }) => parameter.name === 'approval_id'), tool.name).toBe(false);
      // Their 403 names the approval codes; any other operation's names neither.
      expect(/approval_required|approval_invalid|Approval-Id/.test(forbidden(documented).description), tool.name).toBe(asks);
      if (!asks) expect(JSON.stringify(documented), tool.name).not.toMatch(/approval|Approval-Id/i);
    }
  });
});
