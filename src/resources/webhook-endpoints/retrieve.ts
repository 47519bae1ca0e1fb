import type { OperationContext } from '../../verbs/context.ts';
import { getWebhookEndpoint } from './queries.ts';
import { toWebhookEndpointOut, type WebhookEndpointOut } from './schemas.ts';

export async function retrieveWebhookEndpoint(ctx: OperationContext, input: { id: string }): Promise<WebhookEndpointOut> {
  return toWebhookEndpointOut(await getWebhookEndpoint(ctx.db, ctx.principal, input.id));
}
