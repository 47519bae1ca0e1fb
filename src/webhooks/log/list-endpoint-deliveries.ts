import { toPage, type Page } from '../../core/pagination.ts';
import { pageRows } from '../../core/pagination.ts';
import { getWebhookEndpointWithHistory } from '../../resources/webhook-endpoints/queries.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { toDeliveryOut, type DeliveryOut, type ListDeliveriesInput } from './api-schemas.ts';
import { deliveryEntries } from './list-deliveries.ts';
import { toDeliveryLogEntry } from './schemas.ts';

/**
 * An endpoint's deliveries, newest first, a page at a time: every one the log keeps (finished
 * ones for 30 days), a removed endpoint's too for its 30 days, as the dashboard shows them.
 */
export async function listEndpointDeliveries(ctx: OperationContext, input: ListDeliveriesInput): Promise<Page<DeliveryOut>> {
  const endpoint = await getWebhookEndpointWithHistory(ctx.db, ctx.principal, input.id);
  let query = deliveryEntries(ctx.db).where('d.endpoint_id', '=', endpoint.id);
  if (input.status !== undefined) query = query.where('d.status', '=', input.status);
  const cursor = (id: string) => ctx.db.selectFrom('webhook_deliveries').select(['id', 'created_at']).where('id', '=', id).where('endpoint_id', '=', endpoint.id).executeTakeFirst();
  const rows = await pageRows(query, input, cursor, 'a delivery of this endpoint', 'd');
  return toPage(rows, input.limit, (row) => toDeliveryOut(toDeliveryLogEntry(row), endpoint, ctx.principal));
}
