import { z } from 'zod';
import { recordActivity } from '../../audit/activity.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { defineAction } from '../../verbs/action.ts';
import { checkEndpointUrl, duplicateUrl } from './create.ts';
import { getWebhookEndpoint } from './queries.ts';
import { CreateWebhookEndpointInput, toWebhookEndpointOut, WebhookEndpointIdInput } from './schemas.ts';

const UpdateWebhookEndpointInput = WebhookEndpointIdInput.extend({
  url: CreateWebhookEndpointInput.shape.url.optional(),
  // Absent means unchanged (the create schema would default it to every type).
  events: CreateWebhookEndpointInput.shape.events.optional(),
  description: CreateWebhookEndpointInput.shape.description,
});

/**
 * Edits an endpoint's address, description or events (spec 6.3 rule 7), with the create's checks.
 * Pending retries go to the new address; editing the events of an endpoint added before
 * 26 September 2026 lifts its paid/failed-only rule (spec 6.1 rule 5).
 */
export const updateWebhookEndpoint = defineAction({
  name: 'update_webhook_endpoint',
  title: 'Edit a webhook endpoint',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: UpdateWebhookEndpointInput,
  async run(ctx, input) {
    const { principal } = ctx;
    const endpoint = await getWebhookEndpoint(ctx.db, principal, input.id);
    const url = input.url === undefined ? undefined : await checkEndpointUrl(ctx, endpoint.livemode, input.url);
    const now = ctx.clock.now();
    const updated = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('webhook_endpoints')
        .set({
          ...(url === undefined ? {} : { url }),
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.events === undefined ? {} : { events: input.events, events_edited_at: now }),
        })
        .where('id', '=', endpoint.id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst()
        .catch((error: unknown) => {
          if (isUniqueViolation(error, 'webhook_endpoints_url')) throw duplicateUrl();
          throw error;
        });
      // Removed between the read and the write: as gone as one never found.
      if (!row) return getWebhookEndpoint(trx, principal, input.id);
      const details = { ...(url === undefined ? {} : { url }), ...(input.events === undefined ? {} : { events: input.events }), ...(input.description === undefined ? {} : { description: row.description }) };
      await recordActivity(trx, principal, 'webhook_endpoint.updated', row.id, details, now);
      return row;
    });
    return toWebhookEndpointOut(updated);
  },
});

export type UpdateWebhookEndpointInput = z.input<typeof UpdateWebhookEndpointInput>;
