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
  http: { method: HttpMethod; path: string; status: number };
  annotations: ToolAnnotations;
  /** Allowed while the business is suspended (deleting a webhook endpoint). */
  allowWhenSuspended?: boolean;
  run(ctx: OperationContext, input: z.output<I>): Promise<z.input<O>>;
}

export function defineOperation<I extends z.ZodObject, O extends z.ZodType>(operation: Operation<I, O>): Operation<I, O> {
  return operation;
}

/** The path parameter names of an operation, e.g. ['id'] for /payment_links/:id/cancel. */
export function pathParams(operation: Pick<Operation, 'http'>): string[] {
  return [...operation.http.path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');
}
