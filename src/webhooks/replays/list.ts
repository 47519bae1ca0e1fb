import { getWebhookEndpointWithHistory } from '../../resources/webhook-endpoints/queries.ts';
import { WebhookEndpointIdInput } from '../../resources/webhook-endpoints/schemas.ts';
import { defineAction } from '../../verbs/action.ts';
import { toReplayOut, type ReplayOut } from './schemas.ts';

/** The replays an endpoint's page shows, newest first. */
export const REPLAYS_SHOWN = 5;

/** An endpoint's latest replays and how far each got (a removed endpoint's too, for its 30 days). */
export const listDeliveryReplays = defineAction({
  name: 'list_delivery_replays',
  title: 'Read an endpoint\'s replays',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: WebhookEndpointIdInput,
  async run(ctx, input): Promise<ReplayOut[]> {
    const endpoint = await getWebhookEndpointWithHistory(ctx.db, ctx.principal, input.id);
    const rows = await ctx.db.selectFrom('webhook_replays').selectAll().where('endpoint_id', '=', endpoint.id)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(REPLAYS_SHOWN).execute();
    return rows.map(toReplayOut);
  },
});
