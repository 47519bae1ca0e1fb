import type { OperationContext } from '../../verbs/context.ts';
import { getCustomer } from './queries.ts';
import { toCustomerOut, type CustomerOut } from './schemas.ts';

export async function retrieveCustomer(ctx: OperationContext, input: { id: string }): Promise<CustomerOut> {
  return toCustomerOut(await getCustomer(ctx.db, ctx.principal, input.id));
}
