import type { z } from 'zod';
import { toolJsonSchema } from '../verbs/json-schema.ts';
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, UrlElicitationRequiredError, type InputRequiredResult, type McpServer } from '@modelcontextprotocol/server';
import type { Principal } from '../auth/principal.ts';
import { ApiError, ERROR_STATUS, errorBody } from '../core/errors.ts';
import { PAYMENT_EVENT_TYPES, PING } from '../events/types.ts';
import { Answer, type Operation } from '../verbs/operation.ts';
import { parseOrThrow } from '../core/validation.ts';
import { holdsJsonText, stringifyWithText } from '../core/json-text.ts';
import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { CARD_TOOL_META, CARD_TOOLS } from './apps/app.ts';
import type { LegacyClient } from './legacy-sessions.ts';

// The MCP tools: one per registry operation, nothing written by hand beside the registry. A
// tool's arguments are advertised with the operation's JSON Schema and checked with its zod
// schema by us (not by the SDK), so a bad argument is the same API error as over REST.

type JsonObject = Record<string, unknown>;

/**
 * A Standard Schema that advertises `schema`'s JSON Schema and lets every value through, for the
 * operation to check itself (its refusals carry the API's error codes).
 */
export function advertised(schema: z.ZodType, io: 'input' | 'output') {
  const json = toolJsonSchema(schema, io);
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'payment-service',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: JsonObject;
  isError?: boolean;
}

/**
 * An API error as a tool result: isError, with the API's error object as its text, its message
 * in the tools' terms (a next step names the tool and argument). No structuredContent: that
 * must match the tool's output schema, which describes success.
 */
export function errorResult(error: ApiError): ToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(error, 'tool')) }] };
}

/** Whether a caller holding these scopes may see and call the operation. */
export function visibleTo(operation: Operation, principal: Principal): boolean {
  return principal.scopes.has(operation.scope);
}

/** The shape of the object a schema takes (through optional, nullable, default and transforms), if it takes one. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let inner: any = schema;
  for (let depth = 0; inner !== undefined && depth < 8; depth += 1) {
    if (inner.def?.type === 'object') return inner.shape as Record<string, z.ZodType>;
    inner = inner.def?.innerType ?? inner.def?.in;
  }
  return undefined;
}

/** The element schema of an array schema (through optional, nullable, default), if it is one. */
function elementOf(schema: z.ZodType): z.ZodType | undefined {
  let inner: any = schema;
  for (let depth = 0; inner !== undefined && depth < 8; depth += 1) {
    if (inner.def?.type === 'array') return inner.def.element as z.ZodType;
    inner = inner.def?.innerType ?? inner.def?.in;
  }
  return undefined;
}

/** Whether a schema declares null a value of its own (`.nullable()`, `.nullish()`), through optional, default and transforms. */
function declaresNull(schema: z.ZodType): boolean {
  let inner: any = schema;
  for (let depth = 0; inner !== undefined && depth < 8; depth += 1) {
    if (inner.def?.type === 'nullable') return true;
    inner = inner.def?.innerType ?? inner.def?.in;
  }
  return false;
}

/**
 * The arguments with every null given for an optional field that does not declare null left
 * out: models often send null for "none", and that is what absent means (a number read from a
 * query string would otherwise read null as 0). A field that declares null (a description to
 * clear) keeps it. Applied through nested objects and arrays of objects.
 */
export function nullsAsAbsent(schema: z.ZodType, value: unknown): unknown {
  const element = Array.isArray(value) ? elementOf(schema) : undefined;
  if (element) return (value as unknown[]).map((item) => nullsAsAbsent(element, item));
  const shape = typeof value === 'object' && value !== null && !Array.isArray(value) ? shapeOf(schema) : undefined;
  if (!shape) return value;
  const kept: JsonObject = {};
  for (const [name, item] of Object.entries(value as JsonObject)) {
    // (An assignment must never set a prototype: an argument may be named __proto__.)
    if (name === '__proto__') continue;
    const field = Object.hasOwn(shape, name) ? shape[name] : undefined;
    if (field === undefined) {
      kept[name] = item;
    } else if (item === null) {
      if (declaresNull(field) || !field.safeParse(undefined).success) kept[name] = null;
    } else {
      kept[name] = nullsAsAbsent(field, item);
    }
  }
  return kept;
}

/** Runs the operation for the caller: the arguments checked by its schema, the answer as structured content and text. */
export async function callOperation(operation: Operation, run: (input: unknown) => Promise<unknown>, args: unknown,
  refused: (error: ApiError) => ToolResult | InputRequiredResult = errorResult): Promise<ToolResult | InputRequiredResult> {
  try {
    const input = parseOrThrow(operation.input, args ?? {});
    const result = await run(input);
    const answer = result instanceof Answer ? result.body : result;
    // structuredContent is objects: stored JSON (events as delivered) is parsed here.
    const body = (holdsJsonText(answer) ? JSON.parse(stringifyWithText(answer)) : answer) as JsonObject;
    const note = operation.agentNote?.(body);
    return { content: [{ type: 'text', text: JSON.stringify(body) }, ...(note ? [{ type: 'text' as const, text: note }] : [])], structuredContent: body };
  } catch (error) {
    if (error instanceof ApiError) return refused(error);
    throw error;
  }
}

/** An operation with its tool schemas, converted to JSON Schema once. */
export interface ToolDefinition {
  operation: Operation;
  input: ReturnType<typeof advertised>;
  output: ReturnType<typeof advertised>;
}

export function toolDefinitions(operations: readonly Operation[]): ToolDefinition[] {
  return operations.map((operation) => ({ operation, input: advertised(operation.input, 'input'), output: advertised(operation.output, 'output') }));
}

/** What a tool call knows of its client besides the arguments. */
export interface ToolCallContext {
  /** Aborts when the call is cancelled. */
  signal: AbortSignal;
  /**
   * How the client takes a URL elicitation, when it declared URL-mode elicitation: a call
   * waiting for a person's approval then sends the user to the approval page, in the way of
   * the client's protocol era. `input_required`: a 2026-07-28 client, which declares it on the
   * request; `error`: a 2025-11-25 client, which declared it at initialize; null: neither.
   */
  urlElicitation: 'input_required' | 'error' | null;
  /** Whether this is the client's retry after the user answered that elicitation (2026-07-28). */
  answeredApproval: boolean;
}

/** How a tool call reaches the operation: its arguments (nulls for absent options left out) and its context. */
export type ToolCall = (operation: Operation, args: unknown, call: ToolCallContext) => Promise<ToolResult | InputRequiredResult>;

/** The key of the approval elicitation among a tool call's input requests. */
export const APPROVAL_INPUT = 'approval';

/** What the client declared: at initialize for a request of the 2025 era (legacy), and whether it shows MCP Apps. */
export interface DeclaredClient {
  legacy?: LegacyClient;
  apps?: boolean;
}

/**
 * Registers `tools` on `server`; each call goes to `call` (the service's own verbs, or its REST
 * API). For a client that shows MCP Apps, the tools about one payment, link, checkout or session
 * name the payment card (apps/app.ts); for any other, nothing differs.
 */
export function registerTools(server: McpServer, tools: readonly ToolDefinition[], call: ToolCall, client: DeclaredClient = {}): void {
  const legacy = client.legacy ?? { declaredUrlElicitation: false, declaredApps: false };
  for (const { operation, input, output } of tools) {
    const config = {
      title: operation.title,
      description: operation.description,
      inputSchema: input,
      outputSchema: output,
      annotations: { title: operation.title, ...operation.annotations },
    };
    const handler = async (args: unknown, ctx: Parameters<Parameters<McpServer['registerTool']>[2]>[1]) => {
      // A 2026-07-28 request carries the envelope, with the client's capabilities; a 2025-era one has none.
      // (The SDK types the envelope as an empty record: its keys are read as the wire names them.)
      const envelope = ctx.mcpReq.envelope as Record<string, { elicitation?: { url?: unknown } } | undefined> | undefined;
      const urlElicitation = envelope === undefined
        ? (legacy.declaredUrlElicitation ? 'error' : null)
        : (envelope[CLIENT_CAPABILITIES_META_KEY]?.elicitation?.url === undefined ? null : 'input_required');
      return call(operation, nullsAsAbsent(operation.input, args), {
        signal: ctx.mcpReq.signal,
        urlElicitation,
        answeredApproval: ctx.mcpReq.inputResponses?.[APPROVAL_INPUT] !== undefined,
      });
    };
    if (client.apps && CARD_TOOLS.has(operation.name)) registerAppTool(server, operation.name, { ...config, _meta: CARD_TOOL_META }, handler);
    else server.registerTool(operation.name, config, handler);
  }
}

const APPROVAL_MESSAGE = 'This payment operation goes beyond what the agent may do on its own. Open the page to review it; a person who manages agents in this business approves or declines it there. Then the agent retries it.';

/**
 * A call waiting for a person's approval, for a client that can send its user to a page: a URL
 * elicitation of the approval page, as the client's era defines it; the client's retry with the
 * same arguments then uses the approval once a person gave it. Otherwise (or when the user
 * already went there and the approval is still not given) the tool error, which names the page
 * and the next step.
 *
 * A 2025-11-25 client gets that era's URLElicitationRequiredError (-32042), thrown for the SDK to
 * answer with, not a server-to-client elicitation/create: we serve that era statelessly, so the
 * client's answer to a request of ours would reach an instance that never sent it (the SDK says
 * as much, refusing input requests on per-request legacy serving). The error needs nothing back:
 * the SDK client raises it as UrlElicitationRequiredError with the page, and its host retries.
 */
export function approvalAnswer(error: ApiError, call: ToolCallContext): ToolResult | InputRequiredResult {
  if (error.code !== 'approval_required' || error.approvalUrl === undefined || call.urlElicitation === null || call.answeredApproval) return errorResult(error);
  if (call.urlElicitation === 'error') {
    // The approval's id names the elicitation: the same call asked again is the same elicitation.
    const elicitationId = error.approvalUrl.slice(error.approvalUrl.lastIndexOf('/') + 1);
    throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId, url: error.approvalUrl, message: APPROVAL_MESSAGE }], error.wording.tool);
  }
  return inputRequired({
    inputRequests: { [APPROVAL_INPUT]: inputRequired.elicitUrl({ message: APPROVAL_MESSAGE, url: error.approvalUrl }) },
  });
}

/** The server's name and the guidance every MCP client receives. */
export const SERVER_INFO = { name: 'payment-service', version: '1.0.0' };
export const INSTRUCTIONS = 'Payment links, checkouts, checkout sessions, payments, orders and customers of one business in one mode (Test or Live, fixed by the credential). Money is a decimal string such as "25.00". In Test mode simulate_payment plays out what a buyer and the money would do. get_credential tells what this credential may do. A connected agent\'s create or change beyond what the person who connected it allows (an amount, a daily total, a currency, or any Live change when they asked for that) is not done: it answers approval_required with an approval_url; ask the user to approve it there, then call the same tool again with the same arguments and approval_id. list_events tells what happened since; wait_for_payment waits for a payment to change instead of polling.';

/**
 * Reference an agent can read while working: the API's error codes with their HTTP status, and
 * the webhook event types. Nothing else: the tools' own descriptions carry the rest.
 */
export function registerReference(server: McpServer): void {
  const json = (uri: string, value: unknown) => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] });
  server.registerResource('error-codes', 'payment-service://reference/error-codes', {
    title: 'API error codes',
    description: 'Every error code the API and the tools answer with, and its HTTP status. Branch on the code, never on the message.',
    mimeType: 'application/json',
  }, async (uri) => json(uri.href, Object.entries(ERROR_STATUS).map(([code, status]) => ({ code, status }))));
  server.registerResource('event-types', 'payment-service://reference/event-types', {
    title: 'Webhook event types',
    description: 'The payment event types webhook endpoints can subscribe to, and ping (sent only as a test).',
    mimeType: 'application/json',
  }, async (uri) => json(uri.href, { payment_events: PAYMENT_EVENT_TYPES, test_only: [PING] }));
}
