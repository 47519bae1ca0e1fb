import type { OperationContext } from '../../verbs/context.ts';
import { toPage, type Page } from '../../core/pagination.ts';
import { listOrderParts } from './queries.ts';
import { toOrderOut, type ListOrdersInput, type OrderOut } from './schemas.ts';

export async function listOrders(ctx: OperationContext, input: ListOrdersInput): Promise<Page<OrderOut>> {
  const now = ctx.clock.now();
  const { rows, parts } = await listOrderParts(ctx.db, ctx.principal, input, now);
  const byId = new Map(parts.map((part) => [part.order.id, part]));
  return toPage(rows, input.limit, (row) => toOrderOut(byId.get(row.id) ?? { order: row, payments: [], customer: null, timeline: [] }, now, ctx.principal));
}
