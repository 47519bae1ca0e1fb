import type { z } from 'zod';
import type { Scope } from '../auth/scopes.ts';
import type { OperationContext } from './context.ts';

// One API operation, defined once. REST routes, the OpenAPI document and (later) MCP tools
// are all generated from these definitions.
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * A verb's answer when it is not the operation's usual one: an idempotent replay of a create
 * answers 200 with the object instead of 201. Transports that have no status ignore it.
 */
export class Answer<T> {
  readonly body: T;
  readonly status: number;

  constructor(body: T, status: number) {
    this.body = body;
    this.status = status;
  }
}

/** Request headers an operation reads, mapped to input fields (REST); MCP passes the field itself. */
export type HeaderInputs = Record<string, string>;

export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** snake_case verb_object, also the MCP tool name. */
  name: string;
  title: string;
  /** Written for a developer and a model alike: what it does, when to use it, what it returns. */
  description: string;
  tag: string;
  scope: Scope;
  input: I;
  output: O;
  http: { method: HttpMethod; path: string; status: number; headers?: HeaderInputs };
  annotations: ToolAnnotations;
  /** Allowed while the business is suspended (deleting a webhook endpoint). */
  allowWhenSuspended?: boolean;
  /** Counts toward the business's session starts per minute (spec 8). */
  sessionStart?: boolean;
  run(ctx: OperationContext, input: z.output<I>): Promise<z.input<O> | Answer<z.input<O>>>;
}

export function defineOperation<I extends z.ZodObject, O extends z.ZodType>(operation: Operation<I, O>): Operation<I, O> {
  return operation;
}

/** Every REST path starts here (spec: the API base is {base_url}/v1). */
export const API_PREFIX = '/v1';

/** The REST path of an operation in Fastify's syntax, e.g. /v1/payment_links/:id. */
export function restPath(operation: Pick<Operation, 'http'>): string {
  return `${API_PREFIX}${operation.http.path}`;
}

/** The path parameter names of an operation, e.g. ['id'] for /payment_links/:id/cancel. */
export function pathParams(operation: Pick<Operation, 'http'>): string[] {
  return [...operation.http.path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');
}
