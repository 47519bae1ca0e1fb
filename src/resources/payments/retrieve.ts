import type { OperationContext } from '../../verbs/context.ts';
import { getPayment } from './queries.ts';
import { toPaymentOut, type PaymentOut } from './schemas.ts';

export async function retrievePayment(ctx: OperationContext, input: { id: string }): Promise<PaymentOut> {
  return toPaymentOut(await getPayment(ctx.db, ctx.principal, input.id), ctx.config.baseUrl, ctx.clock.now());
}
