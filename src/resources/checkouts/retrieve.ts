import type { OperationContext } from '../../verbs/context.ts';
import { getCheckout } from './queries.ts';
import { toCheckoutOut, type CheckoutOut } from './schemas.ts';

export async function retrieveCheckout(ctx: OperationContext, input: { id: string }): Promise<CheckoutOut> {
  return toCheckoutOut(await getCheckout(ctx.db, ctx.principal, input.id), ctx.config.baseUrl);
}
