import type { OperationContext } from '../../verbs/context.ts';
import { toPage, type Page } from '../../core/pagination.ts';
import { listCustomerRows } from './queries.ts';
import { toCustomerOut, type CustomerOut, type ListCustomersInput } from './schemas.ts';

export async function listCustomers(ctx: OperationContext, input: ListCustomersInput): Promise<Page<CustomerOut>> {
  const rows = await listCustomerRows(ctx.db, ctx.principal, input);
  return toPage(rows, input.limit, toCustomerOut);
}
