import type { OperationContext } from '../../verbs/context.ts';
import { toPage, type Page } from '../../core/pagination.ts';
import { listCheckoutRows } from './queries.ts';
import { toCheckoutOut, type CheckoutOut, type ListCheckoutsInput } from './schemas.ts';

export async function listCheckouts(ctx: OperationContext, input: ListCheckoutsInput): Promise<Page<CheckoutOut>> {
  const rows = await listCheckoutRows(ctx.db, ctx.principal, input);
  return toPage(rows, input.limit, (row) => toCheckoutOut(row, ctx.config.baseUrl));
}
