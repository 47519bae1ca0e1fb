import type { OperationContext } from '../../verbs/context.ts';
import { toPage, type Page } from '../../core/pagination.ts';
import { listPaymentRows } from './queries.ts';
import { toPaymentOut, type ListPaymentsInput, type PaymentOut } from './schemas.ts';

export async function listPayments(ctx: OperationContext, input: ListPaymentsInput): Promise<Page<PaymentOut>> {
  const now = ctx.clock.now();
  const rows = await listPaymentRows(ctx.db, ctx.principal, input, now);
  return toPage(rows, input.limit, (row) => toPaymentOut(row, ctx.config.baseUrl, now));
}
