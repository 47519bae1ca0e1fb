import type { OperationContext } from '../../verbs/context.ts';
import { toPage, type Page } from '../../core/pagination.ts';
import { listPaymentLinkRows } from './queries.ts';
import { toPaymentLinkOut, type ListPaymentLinksInput, type PaymentLinkOut } from './schemas.ts';

export async function listPaymentLinks(ctx: OperationContext, input: ListPaymentLinksInput): Promise<Page<PaymentLinkOut>> {
  const now = ctx.clock.now();
  const rows = await listPaymentLinkRows(ctx.db, ctx.principal, input, now);
  return toPage(rows, input.limit, (row) => toPaymentLinkOut(row, ctx.config.baseUrl, now));
}
