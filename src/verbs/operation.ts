import type { z } from 'zod';
import { readsOnly, type Scope } from '../auth/scopes.ts';
import type { ERROR_STATUS, ErrorCode } from '../core/errors.ts';
import type { OperationContext } from './context.ts';
import type { Currency } from '../core/money.ts';

// One API operation, defined once. REST routes, the OpenAPI document and the MCP tools are all
// generated from these definitions.
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

/** The error codes answered with 409 (a conflict with the state of the account or an object). */
export type ConflictCode = { [C in ErrorCode]: (typeof ERROR_STATUS)[C] extends 409 ? C : never }[ErrorCode];

export interface HttpBinding {
  method: HttpMethod;
  path: string;
  /** The usual success status. */
  status: number;
  headers?: HeaderInputs;
  /** Other success statuses the verb answers with an `Answer`, each with when it does (OpenAPI lists them). */
  alsoAnswers?: Readonly<Record<number, string>>;
}

/** An amount an operation creates (a payment link's, a checkout's, a checkout session's): what agents' spend policies count. */
export interface Spend {
  currency: Currency;
  amountMinor: number;
}

export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** snake_case verb_object, also the MCP tool name. */
  name: string;
  title: string;
  /**
   * Written for a developer and a model alike: what it does and what it returns. The registry
   * follows it with what the call does to money and data, what it costs and when to use it
   * (agents/guidance.ts), from the facts below.
   */
  description: string;
  /** When to use it, as the end of "Use it when …" (it may name the tool to use instead). */
  useWhen: string;
  /** What a change does to the account's data, as "creates a payment link"; absent exactly when the scope only reads. */
  writes?: string;
  tag: string;
  scope: Scope;
  input: I;
  output: O;
  http: HttpBinding;
  /**
   * The 409 codes the verb can answer (spec 7), so the OpenAPI document lists 409 only where it
   * can happen. An operation without conflicts has none.
   */
  conflicts?: readonly ConflictCode[];
  /** The MCP tool hints: derived from method and scope by defineOperation, with its overrides. */
  annotations: ToolAnnotations;
  /** Allowed while the business is suspended (deleting a webhook endpoint). */
  allowWhenSuspended?: boolean;
  /** Counts toward the business's session starts per minute (spec 8). */
  sessionStart?: boolean;
  /**
   * Holds the call open until something happens (a long poll): the transports give its verb a
   * signal (OperationContext.signal) that aborts when the caller goes away.
   */
  waits?: boolean;
  /** The amount the call would create, for a connected agent's spend policy (agents/policy.ts); null when it creates none. */
  spends?(ctx: OperationContext, input: z.output<I>): Promise<Spend | null>;
  /** Whether the call repeats an earlier one (an Idempotency-Key replay) and so creates nothing: spend policies do not count it. */
  replays?(ctx: OperationContext, input: z.output<I>): Promise<boolean>;
  run(ctx: OperationContext, input: z.output<I>): Promise<z.input<O> | Answer<z.input<O>>>;
  /**
   * A sentence an MCP tool's answer adds after the object (a second text item; the structured
   * content is the object alone): how to act on what was made, such as its x402 address.
   */
  agentNote?(output: z.input<O>): string | undefined;
}

/**
 * An operation as written in its resource's operations.ts: its tool annotations are derived from
 * its method and scope, and `annotations` overrides only the hints the derivation gets wrong for
 * it (each with a comment saying why).
 */
export interface OperationDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> extends Omit<Operation<I, O>, 'annotations'> {
  annotations?: Partial<ToolAnnotations>;
}

/**
 * The hints an operation's method and scope imply: a read scope reads only; DELETE removes for
 * good; GET, PATCH and DELETE repeated change nothing more, POST creates again; every tool acts
 * on this service only.
 */
function derivedAnnotations(operation: Pick<Operation, 'scope' | 'http'>): ToolAnnotations {
  const { method } = operation.http;
  return {
    readOnlyHint: readsOnly(operation.scope),
    destructiveHint: method === 'DELETE',
    idempotentHint: method !== 'POST',
    openWorldHint: false,
  };
}

/** Why the annotations contradict the operation's scope or method, or null when they agree. */
function annotationConflict(operation: Pick<Operation, 'scope' | 'http' | 'annotations'>): string | null {
  const { annotations: hints, scope, http } = operation;
  if (hints.readOnlyHint !== readsOnly(scope)) return `readOnlyHint ${hints.readOnlyHint} with the scope ${scope}`;
  if (http.method === 'GET' && hints.destructiveHint) return 'destructiveHint on a GET';
  if (hints.readOnlyHint && hints.destructiveHint) return 'readOnlyHint and destructiveHint together';
  return null;
}

/**
 * The operation with its final annotations. Refuses, at definition, an override that contradicts
 * the scope or method, and one that only repeats what the derivation already says.
 */
export function defineOperation<I extends z.ZodObject, O extends z.ZodType>(definition: OperationDefinition<I, O>): Operation<I, O> {
  if ((definition.writes === undefined) !== readsOnly(definition.scope)) {
    throw new Error(`${definition.name}: \`writes\` says what a change does, and only a change (a scope that does not only read) has it.`);
  }
  const derived = derivedAnnotations(definition);
  for (const [hint, value] of Object.entries(definition.annotations ?? {})) {
    const implied = derived[hint as keyof ToolAnnotations];
    if (value === undefined || value === implied) {
      throw new Error(`${definition.name}: the override ${hint}: ${value} overrides nothing (the method and scope imply ${implied}).`);
    }
  }
  const operation = { ...definition, annotations: { ...derived, ...definition.annotations } };
  const conflict = annotationConflict(operation);
  if (conflict) throw new Error(`${definition.name}: inconsistent tool annotations: ${conflict}.`);
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
