import type { OperationContext } from '../../verbs/context.ts';
import { getOrder } from './queries.ts';
import { toOrderOut, type OrderOut } from './schemas.ts';

export async function retrieveOrder(ctx: OperationContext, input: { id: string }): Promise<OrderOut> {
  return toOrderOut(await getOrder(ctx.db, ctx.principal, input.id), ctx.clock.now(), ctx.principal);
}
