#!/usr/bin/env node
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { API_PREFIX, pathParams, restPath, type Operation } from './verbs/operation.ts';
import { operations } from './operations.ts';
import { INSTRUCTIONS, registerReference, registerTools, SERVER_INFO, toolDefinitions, type ToolCallContext, type ToolResult } from './mcp/tools.ts';
import { TOOL_WORDING_PREFERENCE } from './core/wording.ts';

// The same tools over stdio (`npm run --silent mcp`), for MCP clients that start a local process:
// each tool call is a request to a running service's REST API with the credential from the
// environment. It never opens the database. Only the tools the credential may call are listed.
//   PAYMENT_SERVICE_URL   the service's origin (default http://localhost:3000)
//   PAYMENT_SERVICE_KEY   a secret key (sk_test_…/sk_live_…) or an agent's access token for the API
// Requests prefer the tools' wording (Prefer: wording=tool), so an error names the tool and
// argument to use next, as over /mcp, never a REST path or header.

/**
 * Whether a setting is a placeholder a client passed unexpanded (a client that does not expand
 * mcp.json's `${VAR}` passes the text itself): that is no value, so it reads as unset.
 */
const isPlaceholder = (value: string | undefined) => value !== undefined && /^\$\{[^}]*\}$/.test(value.trim());

function setting(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value && !isPlaceholder(value) ? value : undefined;
}

const baseUrl = (setting('PAYMENT_SERVICE_URL') ?? 'http://localhost:3000').replace(/\/+$/, '');
const credential = setting('PAYMENT_SERVICE_KEY') ?? '';

type Json = Record<string, unknown>;

/** One REST request for a tool call: path parameters into the path, header fields into headers, the rest as query or body. */
async function callRest(operation: Operation, args: unknown, { signal }: ToolCallContext): Promise<ToolResult> {
  const rest: Json = { ...(typeof args === 'object' && args !== null ? args as Json : {}) };
  let path = restPath(operation);
  for (const name of pathParams(operation)) {
    path = path.replace(`:${name}`, encodeURIComponent(String(rest[name] ?? '')));
    delete rest[name];
  }
  const headers: Record<string, string> = { authorization: `Bearer ${credential}`, accept: 'application/json', prefer: TOOL_WORDING_PREFERENCE };
  for (const [header, field] of Object.entries(operation.http.headers ?? {})) {
    if (rest[field] !== undefined) headers[header] = String(rest[field]);
    delete rest[field];
  }
  let body: string | undefined;
  if (operation.http.method === 'GET' || operation.http.method === 'DELETE') {
    const query = new URLSearchParams(Object.entries(rest).filter(([, value]) => value !== undefined && value !== null).map(([name, value]): [string, string] => [name, String(value)]));
    if (query.size > 0) path += `?${query}`;
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(rest);
  }
  // A cancelled call closes its request: a waiting one (wait_for_payment) ends at the service at once.
  const response = await fetch(`${baseUrl}${path}`, { method: operation.http.method, headers, body, signal });
  const text = await response.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    parsed = { error: { code: 'internal_error', message: `The service answered ${response.status} without JSON.` } };
  }
  // An error's body is the text only: structuredContent must match the output schema of a success.
  return response.ok
    ? { content: [{ type: 'text', text: JSON.stringify(parsed) }], structuredContent: parsed }
    : { isError: true, content: [{ type: 'text', text: JSON.stringify(parsed) }] };
}

async function main(): Promise<void> {
  if (!credential) {
    process.stderr.write(isPlaceholder(process.env.PAYMENT_SERVICE_KEY)
      ? `PAYMENT_SERVICE_KEY arrived as the text ${process.env.PAYMENT_SERVICE_KEY}: this MCP client does not expand that in its configuration. Write the key there, or the form the client expands (Claude Code: \${PAYMENT_SERVICE_KEY}; Cursor and VS Code: \${env:PAYMENT_SERVICE_KEY}).\n`
      : 'Set PAYMENT_SERVICE_KEY to a secret key or an agent access token (and PAYMENT_SERVICE_URL to the service).\n');
    process.exit(2);
  }
  // What the credential may do decides which tools are listed (the service checks every call anyway).
  const response = await fetch(`${baseUrl}${API_PREFIX}/credential`, { headers: { authorization: `Bearer ${credential}` } }).catch((error: unknown) => {
    process.stderr.write(`Cannot reach ${baseUrl}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  const described = await response.json() as { scopes?: string[]; error?: { code: string; message: string } };
  if (!response.ok || !described.scopes) {
    process.stderr.write(`${baseUrl} refused the credential: ${described.error?.code ?? response.status} ${described.error?.message ?? ''}\n`);
    process.exit(1);
  }
  const allowed = new Set(described.scopes);
  const tools = toolDefinitions(operations.filter((operation) => allowed.has(operation.scope)));
  serveStdio(() => {
    const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
    registerReference(server);
    registerTools(server, tools, callRest);
    return server;
  });
}

await main();
