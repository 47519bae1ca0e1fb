import type { OperationContext } from '../../verbs/context.ts';
import { getPaymentLink } from './queries.ts';
import { toPaymentLinkOut, type PaymentLinkOut } from './schemas.ts';

export async function retrievePaymentLink(ctx: OperationContext, input: { id: string }): Promise<PaymentLinkOut> {
  const row = await getPaymentLink(ctx.db, ctx.principal, input.id);
  return toPaymentLinkOut(row, ctx.config.baseUrl, ctx.clock.now());
}
