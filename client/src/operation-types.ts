import type { OPERATIONS } from './operations.ts';
import type { components, operations } from './schema.ts';

// What each operation takes and answers, read off the generated types by operationId: one flat
// input (path parameters, query parameters and body fields together, as the API's MCP tools
// take them), the success body, and the error body. Nothing here names a schema, so named or
// inline component schemas in the document make no difference.

export type OperationId = keyof typeof OPERATIONS & keyof operations;

type Operation<K extends OperationId> = operations[K];
/** `{}` for a part the operation does not have (openapi-typescript writes `never` there). */
type Part<T> = [Exclude<T, undefined>] extends [never] ? {} : Exclude<T, undefined>;
type Simplify<T> = { [P in keyof T]: T[P] } & {};
type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

type SuccessStatus = 200 | 201 | 202 | 203 | 204;
type Responses<K extends OperationId> = Operation<K>['responses'];

/** What `call(id, input)` takes: path and query parameters and JSON body fields, by their API names. */
export type OperationInput<K extends OperationId> = Simplify<
  Part<Operation<K>['parameters']['path']> & Part<Operation<K>['parameters']['query']> & Part<JsonContent<Operation<K>['requestBody']>>
>;

/** The body of the operation's success answer. */
export type OperationOutput<K extends OperationId> = JsonContent<Responses<K>[Extract<keyof Responses<K>, SuccessStatus>]>;

/** Per-call options: a signal to abort with, and the operation's header inputs (`idempotencyKey` on checkout-session creation). */
export type CallOptions<K extends OperationId> = {
  signal?: AbortSignal;
} & { [Option in keyof (typeof OPERATIONS)[K]['headers']]?: string };

/** The error body any operation can answer, as the document describes it. */
export type ErrorBody = {
  [K in OperationId]: JsonContent<Responses<K>[Exclude<keyof Responses<K>, SuccessStatus>]>;
}[OperationId];

/** The error codes the document lists. The API may add codes within v1 (spec 9), so `code` is typed as these or any string. */
export type KnownErrorCode = components['schemas']['ErrorCode'];

/** The list operations: a page of `data` with `has_more` and `next_cursor`, paged by `starting_after`. */
export type ListOperationId = {
  [K in OperationId]: OperationOutput<K> extends { data: readonly unknown[]; has_more: boolean; next_cursor: string | null }
    ? ('starting_after' extends keyof OperationInput<K> ? K : never)
    : never;
}[OperationId];

/** One item of a list operation's pages. */
export type ListItem<K extends ListOperationId> = OperationOutput<K> extends { data: ReadonlyArray<infer Item> } ? Item : never;
