import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import type { Gate } from '../auth/gate.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppContext } from '../verbs/context.ts';
import { ApiError } from '../core/errors.ts';
import type { Operation } from '../verbs/operation.ts';
import { asApiError, errorResponse, replyWith } from '../core/errors.ts';
import { bearerCredential } from '../auth/authenticate.ts';
import { isLoopbackHost } from '../net/address-policy.ts';
import { callerGone } from '../core/caller-gone.ts';
import { callIdOf, cancelledIdOf, WaitingCalls } from './cancellations.ts';
import { approvalAnswer, callOperation, errorResult, INSTRUCTIONS, registerReference, registerTools, SERVER_INFO, toolDefinitions, visibleTo, type DeclaredClient, type ToolDefinition } from './tools.ts';
import { initializeCapabilities, legacyClient, legacySessionId } from './legacy-sessions.ts';
import { CARD_TOOLS, declaresApps, EXTENSION_ID, registerCardResource, requestDeclaresApps } from './apps/app.ts';
import { cardSources, withCard } from './apps/tool-cards.ts';

// The MCP server on the service's own Fastify app, at /mcp (Streamable HTTP): the 2026-07-28
// stateless protocol and 2025-era clients (served statelessly, so GET and DELETE answer 405; what
// a 2025 client declared at initialize comes back in its session id: legacy-sessions.ts).
// One server instance per request, holding only the tools the caller's scopes allow; every call
// goes through the same gate as REST (rate limits, suspension, scope) and runs the same verb.

export const MCP_PATH = '/mcp';

/** The tool a JSON-RPC tools/call names, or undefined for any other message (or a batch). */
function calledTool(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; params?: { name?: unknown } };
  return message.method === 'tools/call' && typeof message.params?.name === 'string' ? message.params.name : undefined;
}

/**
 * The server for one request. A tools/call needs only the tool it names (registering all of
 * them for every call would cost more than the call); anything else gets every tool the caller
 * may see. A hidden or unknown tool is never registered, so it is unknown either way.
 */
function buildServer(context: AppContext, gate: Gate, all: readonly ToolDefinition[], principal: Principal, only: string | undefined, client: DeclaredClient, log: FastifyBaseLogger | undefined): McpServer {
  // MCP Apps is offered to a client that declared it (apps/app.ts), and to no other.
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, ...(client.apps ? { capabilities: { extensions: { [EXTENSION_ID]: {} } } } : {}) });
  if (only === undefined) {
    registerReference(server);
    if (client.apps) registerCardResource(server);
  }
  const tools = all.filter((tool) => visibleTo(tool.operation, principal) && (only === undefined || tool.operation.name === only));
  registerTools(server, tools, async (operation, args, call) => {
    const { signal } = call;
    try {
      gate.admitCall(principal, operation);
    } catch (error) {
      if (error instanceof ApiError) return errorResult(error);
      throw error;
    }
    // A waiting tool (wait_for_payment) ends when the call is cancelled: the client closed the request.
    const shown = typeof args === 'object' && args !== null ? args as Record<string, unknown> : {};
    const ctx = operation.waits ? { ...context, principal, signal, arguments: shown } : { ...context, principal, arguments: shown };
    const run = (input: unknown) => operation.run(ctx, input as never);
    if (!client.apps || !CARD_TOOLS.has(operation.name)) return callOperation(operation, run, args, (error) => approvalAnswer(error, call));
    let refused: ApiError | undefined;
    const answer = await callOperation(operation, run, args, (error) => {
      refused = error;
      return approvalAnswer(error, call);
    });
    return withCard(answer, refused, cardSources(context, principal, all), (error) => log?.warn({ err: error, tool: operation.name }, 'the payment card could not be made'));
  }, client);
  return server;
}

/** What the client declared, as far as the tools need it: on this request (2026-07-28), at initialize, or in its session id (2025). */
function declaredClient(body: unknown, sessionId: string | string[] | undefined): DeclaredClient {
  const legacy = legacyClient(sessionId);
  const initializing = initializeCapabilities(body);
  return { legacy, apps: requestDeclaresApps(body) || legacy.declaredApps || (initializing !== undefined && declaresApps(initializing)) };
}

/** The headers the MCP transport reads (the credential, Host and Origin are checked before it). */
const TRANSPORT_HEADERS = new Set(['accept', 'content-type', 'last-event-id']);

function webRequest(request: FastifyRequest, baseUrl: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || !(TRANSPORT_HEADERS.has(name) || name.startsWith('mcp-'))) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  // The body goes to the handler already parsed (parsedBody), not again as text.
  // The signal tells the SDK when the client went away (a 2026-era cancellation closes the request).
  return new Request(`${baseUrl}${request.url}`, { method: request.method, headers, signal });
}

async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  if (response.body === null) return reply.send(null);
  // A JSON answer is complete: sent as one string. Event streams stay streams.
  if (response.headers.get('content-type')?.startsWith('application/json')) return reply.send(await response.text());
  return reply.send(Readable.fromWeb(response.body as unknown as NodeReadableStream));
}

/**
 * The SDK prints, on every start, that JSON responses drop mid-call notifications: our tools send
 * none, so the line tells an operator nothing to act on. That one line is left out while the
 * handler is made; any other warning passes.
 */
function withoutJsonModeNotice<T>(make: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('responseMode: \'json\' drops mid-call notifications')) return;
    warn(...args);
  };
  try {
    return make();
  } finally {
    console.warn = warn;
  }
}

export async function mcpServer(scope: FastifyInstance, options: { context: AppContext; operations: readonly Operation[]; gate: Gate }): Promise<void> {
  const { context, operations, gate } = options;
  const { baseUrl } = context.config;
  const resource = `${baseUrl}${MCP_PATH}`;
  const metadataUrl = `${baseUrl}/.well-known/oauth-protected-resource/mcp`;
  // Tokens are valid here only when issued for the MCP endpoint (RFC 8707); keys work as on REST.
  const tools = toolDefinitions(operations);
  const waitingTools = new Set(operations.filter((operation) => operation.waits).map((operation) => operation.name));
  const waitingCalls = new WaitingCalls();
  const handler = withoutJsonModeNotice(() => createMcpHandler((ctx) => buildServer(context, gate, tools, ctx.authInfo?.extra?.principal as Principal,
    ctx.authInfo?.extra?.tool as string | undefined, ctx.authInfo?.extra?.client as DeclaredClient, ctx.authInfo?.extra?.log as FastifyBaseLogger | undefined), {
    onerror: () => undefined,
    // Tools answer with one result and no progress in between: a JSON body, not an event stream.
    responseMode: 'json',
  }));

  // Against DNS rebinding: the service's own host name, and this machine's names when it serves locally.
  const publicHost = new URL(baseUrl).hostname;
  const local = isLoopbackHost(context.config.host) || context.config.host === '127.0.0.1' || isLoopbackHost(publicHost);
  const hosts = [publicHost, ...(local ? ['localhost', '127.0.0.1', '[::1]'] : [])];

  scope.addHook('onRequest', hostHeaderValidation(hosts));
  scope.addHook('onRequest', originValidation(hosts));
  scope.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    handler: async (request, reply) => {
      let principal: Principal;
      try {
        principal = await gate.identify(request.headers.authorization, request.ip, resource);
      } catch (error) {
        const credentialSent = bearerCredential(request.headers.authorization) !== null;
        return replyWith(reply, errorResponse(asApiError(error), { credentialSent, metadataUrl }));
      }
      const clientId = principal.actor.kind === 'secret_key' ? principal.actor.keyId : principal.actor.kind === 'agent' ? principal.actor.connectionId : '';
      const caller = `${principal.businessId}|${principal.livemode}|${clientId}`;
      const cancelled = cancelledIdOf(request.body);
      if (cancelled !== undefined) waitingCalls.cancel(caller, cancelled);
      const tool = calledTool(request.body);
      const callId = tool !== undefined && waitingTools.has(tool) ? callIdOf(request.body) : undefined;
      const closed = callerGone(request.raw, reply.raw);
      const tracked = callId === undefined ? undefined : waitingCalls.track(caller, callId, closed);
      try {
        const answered = handler.fetch(webRequest(request, baseUrl, tracked?.signal ?? closed), {
          authInfo: {
            token: '',
            clientId,
            scopes: [...principal.scopes],
            resource: new URL(resource),
            extra: { principal, tool, client: declaredClient(request.body, request.headers['mcp-session-id']), log: request.log },
          },
          parsedBody: request.body,
        });
        const response = await (tracked ? Promise.race([answered, tracked.cancelled]) : answered);
        // A call its client cancelled gets no answer (JSON-RPC); its request ends as the SDK ends a closed one.
        if (response === 'cancelled') return reply.code(499).send(null);
        // The client went away (a 2026-era cancellation): nobody to answer.
        if (closed.aborted) {
          reply.hijack();
          reply.raw.destroy();
          return reply;
        }
        const sessionId = response.ok ? legacySessionId(request.body) : undefined;
        if (sessionId !== undefined) reply.header('mcp-session-id', sessionId);
        return await sendResponse(reply, response);
      } finally {
        tracked?.done();
      }
    },
  });
}
