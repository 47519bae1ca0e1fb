import type { Db } from '../../db/database.ts';
import { getWebhookEndpointWithHistory } from '../../resources/webhook-endpoints/queries.ts';
import { toWebhookEndpointOut, WebhookEndpointIdInput } from '../../resources/webhook-endpoints/schemas.ts';
import { defineAction } from '../../verbs/action.ts';
import { DELIVERY_LOG_SIZE, toDeliveryLogEntry } from './schemas.ts';

/** Deliveries as the log shows them (toDeliveryLogEntry reads a row): the test sends' own type and body, or their event's. */
export function deliveryEntries(db: Db) {
  return db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.kind', 'd.event_id', 'd.status', 'd.created_at', 'd.last_attempt_at', 'd.attempts', 'd.manual_attempts', 'd.last_status', 'd.last_error', 'd.next_attempt_at'])
    .select((eb) => [eb.fn.coalesce('d.event_type', 'e.type').as('event_type'), eb.fn.coalesce('d.body', 'e.body').as('body')]);
}

/** An endpoint's latest 50 deliveries, newest first; a removed endpoint's too, for its 30 days (spec 6.3, 8). */
export const listWebhookDeliveries = defineAction({
  name: 'list_webhook_deliveries',
  title: 'Read an endpoint\'s delivery log',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: WebhookEndpointIdInput,
  async run(ctx, input) {
    const endpoint = await getWebhookEndpointWithHistory(ctx.db, ctx.principal, input.id);
    const rows = await deliveryEntries(ctx.db)
      .where('d.endpoint_id', '=', endpoint.id)
      .orderBy('d.created_at', 'desc')
      .orderBy('d.seq', (order) => order.desc().nullsLast())
      .limit(DELIVERY_LOG_SIZE)
      .execute();
    return { endpoint: { ...toWebhookEndpointOut(endpoint), removed: endpoint.deleted_at !== null }, data: rows.map(toDeliveryLogEntry) };
  },
});
