import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Gate } from '../auth/gate.ts';
import type { AppContext } from '../verbs/context.ts';
import { ApiError } from '../core/errors.ts';
import { Answer, pathParams, restPath, type Operation } from '../verbs/operation.ts';
import { parseOrThrow } from '../core/validation.ts';
import { isJsonObject } from '../core/json-body.ts';
import { audienceOf, type Audience } from '../core/wording.ts';
import { callerGone } from '../core/caller-gone.ts';
import { holdsJsonText, stringifyWithText } from '../core/json-text.ts';


// PostgreSQL text cannot hold NUL; such a path or query names nothing and filters nothing.
function refuseNul(values: Record<string, unknown>, where: 'path' | 'query'): void {
  for (const name in values) {
    const value = values[name];
    const items = Array.isArray(value) ? value : [value];
    if (items.some((item) => typeof item === 'string' && item.includes('\u0000'))) {
      throw where === 'path'
        ? new ApiError('not_found', 'No object has this id.')
        : new ApiError('invalid_filter', `${name} must not contain the NUL character.`, name);
    }
  }
}

/** What an operation takes from a request, worked out once per route. */
interface InputShape {
  pathNames: readonly string[];
  /** [header, field] of each header-borne input (Idempotency-Key). */
  headers: ReadonlyArray<[string, string]>;
  headerFields: ReadonlySet<string>;
  /** Whether the body has a field without a default (an empty body is then not a request: invalid_json). */
  bodyRequired: boolean;
}

function inputShape(operation: Operation): InputShape {
  const headers = Object.entries(operation.http.headers ?? {}).map(([header, field]): [string, string] => [header.toLowerCase(), field]);
  const pathNames = pathParams(operation);
  const headerFields = new Set(headers.map(([, field]) => field));
  const bodyRequired = operation.http.method !== 'GET' && operation.http.method !== 'DELETE' && Object.entries(operation.input.shape)
    .some(([name, field]) => !pathNames.includes(name) && !headerFields.has(name) && !(field as z.ZodType).safeParse(undefined).success);
  return { pathNames, headers, headerFields, bodyRequired };
}

/** Path params, then the query (GET, DELETE) or the JSON body (POST, PATCH), as one input. */
function rawInput(operation: Operation, shape: InputShape, request: FastifyRequest): Record<string, unknown> {
  const params = request.params as Record<string, string>;
  refuseNul(params, 'path');
  const input: Record<string, unknown> = {};
  if (operation.http.method === 'GET' || operation.http.method === 'DELETE') {
    const query = request.query as Record<string, unknown>;
    refuseNul(query, 'query');
    // (An assignment must never set a prototype: a query may name __proto__.)
    for (const name in query) if (name !== '__proto__') input[name] = query[name];
  } else {
    const body = request.body;
    // An empty body (spec 7.1) is a JSON object only for an operation that needs none (cancel).
    if (body === undefined && shape.bodyRequired) throw new ApiError('invalid_json', 'The body is empty: send a JSON object.');
    if (body !== undefined && !isJsonObject(body)) throw new ApiError('invalid_json', 'The body must be a JSON object.');
    // A header-borne input (Idempotency-Key) comes from its header only; a body field of the
    // same name is an unknown field, and ignored.
    if (body !== undefined) {
      for (const name of Object.keys(body)) {
        // (The JSON parser already drops __proto__; as above.)
        if (!shape.headerFields.has(name) && name !== '__proto__') input[name] = body[name];
      }
    }
    for (const [header, field] of shape.headers) {
      const value = request.headers[header];
      if (value !== undefined) input[field] = value;
    }
  }
  for (const name of shape.pathNames) input[name] = params[name];
  return input;
}

/**
 * Validates an operation's input; an error in a header-borne field names the header, unless the
 * caller asked for the tools' wording (the stdio MCP server, whose tools take it as an argument).
 */
function parseInput(operation: Operation, raw: Record<string, unknown>, audience: Audience): Record<string, unknown> {
  try {
    return parseOrThrow(operation.input, raw);
  } catch (error) {
    throw namingHeader(operation, error, audience);
  }
}

/** An error about a header-borne field (Idempotency-Key, Approval-Id) names the header over REST. */
function namingHeader(operation: Operation, error: unknown, audience: Audience): unknown {
  const header = Object.entries(operation.http.headers ?? {}).find(([, field]) => error instanceof ApiError && error.field === field)?.[0];
  if (header && error instanceof ApiError && audience === 'rest') {
    return new ApiError(error.code, error.wording, header, { ...(error.scope ? { scope: error.scope } : {}), ...(error.approvalUrl ? { approvalUrl: error.approvalUrl } : {}) });
  }
  return error;
}

/** One route per registry operation: admit the caller, validate, run the verb. */
export function registerOperationRoutes(app: FastifyInstance, operations: readonly Operation[], appContext: AppContext, gate: Gate): void {
  for (const operation of operations) {
    const shape = inputShape(operation);
    app.route({
      method: operation.http.method,
      url: restPath(operation),
      handler: async (request, reply) => {
        const principal = await gate.admit(request.headers.authorization, request.ip, operation);
        const raw = rawInput(operation, shape, request);
        const audience = audienceOf(request.headers.prefer);
        const input = parseInput(operation, raw, audience);
        const signal = operation.waits ? callerGone(request.raw, reply.raw) : undefined;
        const output = await operation.run(signal ? { ...appContext, principal, signal, arguments: raw } : { ...appContext, principal, arguments: raw }, input)
          .catch((error: unknown) => { throw namingHeader(operation, error, audience); });
        // A long poll whose caller went away: nobody to answer (a reply on the closed socket would keep the request open).
        if (signal?.aborted) {
          reply.hijack();
          reply.raw.destroy();
          return reply;
        }
        const [status, body] = output instanceof Answer ? [output.status, output.body] : [operation.http.status, output];
        // Stored JSON (events as delivered) is written as its bytes, not parsed and written again.
        if (holdsJsonText(body)) return reply.code(status).type('application/json; charset=utf-8').send(stringifyWithText(body));
        return reply.code(status).send(body);
      },
    });
  }
}
