import type { OperationContext } from '../../verbs/context.ts';
import { toPage, type Page } from '../../core/pagination.ts';
import { listWebhookEndpointRows } from './queries.ts';
import { toWebhookEndpointOut, type ListWebhookEndpointsInput, type WebhookEndpointOut } from './schemas.ts';

export async function listWebhookEndpoints(ctx: OperationContext, input: ListWebhookEndpointsInput): Promise<Page<WebhookEndpointOut>> {
  const rows = await listWebhookEndpointRows(ctx.db, ctx.principal, input);
  return toPage(rows, input.limit, toWebhookEndpointOut);
}
