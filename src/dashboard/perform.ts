import type { z } from 'zod';
import { authorize } from '../auth/gate.ts';
import { readsOnly } from '../auth/scopes.ts';
import { assertWritable } from '../tenancy/businesses.ts';
import { ApiError } from '../core/errors.ts';
import { parseOrThrow } from '../core/validation.ts';
import { Answer, type Operation } from '../verbs/operation.ts';
import { roleOf, type PersonContext } from './requests.ts';

// The dashboard does what the API does through the API's own operations: the registry's verb,
// its input schema (what a person typed is as untrusted as a request body), and the scope a
// person's role gives them. So a page can never allow what the API refuses, nor show other rows.

export class DashboardOperations {
  readonly #byName: ReadonlyMap<string, Operation>;

  constructor(operations: readonly Operation[]) {
    this.#byName = new Map(operations.map((operation) => [operation.name, operation]));
  }

  /** The registry's operation `name`, whose output is `output`: checked at start-up, since pages rely on its type. */
  get<O extends z.ZodType>(name: string, output: O): Operation<z.ZodObject, O> {
    const operation = this.#byName.get(name);
    if (!operation || operation.output !== output) throw new Error(`The registry has no operation ${name} answering the schema the dashboard reads.`);
    return operation as unknown as Operation<z.ZodObject, O>;
  }
}

/**
 * Runs an operation as the signed-in person: their role's scopes (a viewer reads; refused as
 * insufficient_role, as the actions are), the account's state, the operation's input schema.
 */
export async function perform<O extends z.ZodType>(ctx: PersonContext, operation: Operation<z.ZodObject, O>, raw: Record<string, unknown>): Promise<z.input<O>> {
  try {
    // People of a suspended or archived account read what it holds and change nothing: the
    // same 403 merchant_read_only as every changing action, where a key would get 403 suspended.
    if (!operation.allowWhenSuspended && !readsOnly(operation.scope)) assertWritable(ctx.principal.business);
    authorize(ctx.principal, { ...operation, allowWhenSuspended: true });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'insufficient_scope') {
      throw new ApiError('insufficient_role', `This needs the developer role or above in this business; you are a ${roleOf(ctx)}.`);
    }
    throw error;
  }
  const output = await operation.run(ctx, parseOrThrow(operation.input, raw));
  return output instanceof Answer ? output.body : output;
}
