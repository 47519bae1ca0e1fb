import type { OperationContext } from '../../verbs/context.ts';
import { getPayment } from '../payments/queries.ts';
import { toCheckoutSessionOut, type CheckoutSessionOut } from './schemas.ts';

/** A checkout session is a payment the API created: for an amount (source api) or a checkout's purchase (source checkout). */
export async function retrieveCheckoutSession(ctx: OperationContext, input: { id: string }): Promise<CheckoutSessionOut> {
  const row = await getPayment(ctx.db, ctx.principal, input.id, 'checkout session', ['api', 'checkout']);
  return toCheckoutSessionOut(row, ctx.config.baseUrl, ctx.clock.now());
}
