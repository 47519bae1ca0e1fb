import type { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import { ApiError } from '../core/errors.ts';
import { parseOrThrow } from '../core/validation.ts';
import type { Role } from '../db/schema.ts';
import { assertWritable } from '../tenancy/businesses.ts';
import { atLeast } from '../tenancy/roles.ts';
import type { OperationContext } from './context.ts';

// A verb people call from the dashboard and the operator from the CLI, defined once, as an API
// operation is. Who may call it is part of the definition and checked every time it runs, so
// no handler can forget it: people by their role in the business, the operator always, secret
// keys and agents never (they have the API). The caller's principal scopes every row it finds.

/** The least role that may run an action; `operator` is the service's operator alone (fees, suspension). */
export type ActionRole = Role | 'operator';

export type ActionEffect = 'reads' | 'changes' | 'withdraws';

export interface ActionDefinition<I extends z.ZodType, O> {
  /** snake_case verb_object, unique across actions and operations. */
  name: string;
  /** What it does, in a few words, for whoever reads the registry. */
  title: string;
  role: ActionRole;
  /** Whether the caller's mode matters: false for what belongs to the business as a whole (the team, settings). */
  modeScoped: boolean;
  /**
   * What it does to the account, checked before it runs:
   * - `reads`: changes nothing;
   * - `changes`: refused with 403 merchant_read_only while the account is suspended or archived,
   *   to its people and to the operator alike; the operator's own actions (role `operator`:
   *   status, fees) stay the operator's whatever the state;
   * - `withdraws`: takes access or data away (revoking a key, disconnecting an agent, erasing a
   *   customer), so that people can still contain a problem on an account they cannot change.
   */
  effect: ActionEffect;
  /** Only a person may do it, not the operator (connecting an agent: a person vouches for it). */
  peopleOnly?: boolean;
  input: I;
  run(ctx: OperationContext, input: z.output<I>): Promise<O>;
}

/**
 * A defined action: `run` checks who calls, then validates the input (as typed or posted by a
 * person or the operator: untrusted) with the action's schema, before the verb runs.
 */
export type Action<I extends z.ZodType = z.ZodType, O = unknown> = Omit<ActionDefinition<I, O>, 'run'> & {
  run(ctx: OperationContext, input: unknown): Promise<O>;
  /** Refuses, as `run` would, a caller who may not run it (role, account state), before its input is even read: a route that takes a large body asks first. */
  authorize(ctx: Pick<OperationContext, 'principal'>): void;
};

/** Refuses a caller who may not run an action with this role: 403 insufficient_role. */
function permit(principal: Principal, role: ActionRole, peopleOnly = false): void {
  const { actor } = principal;
  if (actor.kind === 'operator') {
    if (peopleOnly) throw new ApiError('insufficient_role', 'Only a person in the dashboard can do this.');
    return;
  }
  if (actor.kind !== 'person') {
    throw new ApiError('insufficient_role', 'This is done by a person in the dashboard; secret keys and agents use the API.');
  }
  if (role === 'operator') throw new ApiError('insufficient_role', 'Only the service\'s operator can do this.');
  if (!atLeast(actor.role, role)) {
    throw new ApiError('insufficient_role', `This needs the ${role} role or above in this business; you are a ${actor.role}.`);
  }
}

export function defineAction<I extends z.ZodType, O>(definition: ActionDefinition<I, O>): Action<I, O> {
  const { run, ...described } = definition;
  return {
    ...described,
    authorize(ctx) {
      permit(ctx.principal, definition.role, definition.peopleOnly);
      if (definition.effect === 'changes' && definition.role !== 'operator') assertWritable(ctx.principal.business);
    },
    async run(ctx, input) {
      this.authorize(ctx);
      return run(ctx, parseOrThrow(definition.input, input ?? {}));
    },
  };
}
