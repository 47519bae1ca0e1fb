import { operatorPrincipal, operatorPrincipalFor, type OwnedKind } from '../../src/auth/operator.ts';
import type { Role } from '../../src/db/schema.ts';
import { setMemberRole } from '../../src/resources/team/set-role.ts';
import type { AppContext, OperationContext } from '../../src/verbs/context.ts';

// Actions as the operator's CLI runs them: in a business and mode, or on an object named by id
// (in that object's own business and mode).

export async function asOperator(context: AppContext, businessId: string, livemode = false): Promise<OperationContext> {
  return { ...context, principal: await operatorPrincipal(context.db, businessId, livemode) };
}

export async function asOperatorOn(context: AppContext, kind: OwnedKind, id: string): Promise<OperationContext> {
  return { ...context, principal: await operatorPrincipalFor(context.db, kind, id) };
}

/** Gives a person a role, as `members set` does. */
export async function setMember(context: AppContext, input: { businessId: string; email: string; role: Role }) {
  return setMemberRole.run(await asOperator(context, input.businessId), { email: input.email, role: input.role });
}
