import { sql } from 'kysely';
import { z } from 'zod';
import { recordActivity } from '../../audit/activity.ts';
import type { Principal } from '../../auth/principal.ts';
import { ApiError } from '../../core/errors.ts';
import { coded } from '../../core/validation.ts';
import { getWebhookEndpoint } from '../../resources/webhook-endpoints/queries.ts';
import { WebhookEndpointIdInput } from '../../resources/webhook-endpoints/schemas.ts';
import { defineAction } from '../../verbs/action.ts';
import { lockEndpoint } from '../deliveries.ts';
import { toReplayOut, type ReplayOut } from './schemas.ts';

const sinceError = coded('invalid_value', 'since must be a time in Unix seconds.');

/** Who asked, as the replay shows it: a person's email, or the operator (no one else runs an action). */
function requester({ actor }: Principal): string {
  return actor.kind === 'person' ? actor.email : 'the operator';
}

/**
 * Replays an endpoint's failed deliveries (issue 13): every delivery of an event to it that
 * failed and was created at `since` or later is sent once more, as Resend sends one, by a
 * background job, oldest first. The deliveries are fixed now, so the count the page shows is
 * exact; one replay of an endpoint runs at a time.
 */
export const replayFailedDeliveries = defineAction({
  name: 'replay_failed_deliveries',
  title: 'Replay an endpoint\'s failed deliveries',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: WebhookEndpointIdInput.extend({ since: z.number(sinceError).int(sinceError).min(0, sinceError) }),
  async run(ctx, input): Promise<ReplayOut> {
    const { principal } = ctx;
    const now = ctx.clock.now();
    const since = new Date(input.since * 1000);
    if (since > now) throw new ApiError('invalid_value', 'since must be a time in the past.', 'since');
    const endpoint = await getWebhookEndpoint(ctx.db, principal, input.id);
    return ctx.db.transaction().execute(async (trx) => {
      // The endpoint's lock, as a removal takes it first: a replay and a removal never interleave.
      await lockEndpoint(trx, endpoint.id);
      await getWebhookEndpoint(trx, principal, endpoint.id);
      const running = await trx.selectFrom('webhook_replays').select('id').where('endpoint_id', '=', endpoint.id).where('status', '<>', 'done').executeTakeFirst();
      if (running) throw new ApiError('invalid_state', 'A replay of this endpoint is still running; wait for it to finish.');
      const replay = await trx.insertInto('webhook_replays')
        .values({ business_id: principal.businessId, livemode: principal.livemode, endpoint_id: endpoint.id, since, requested_by: requester(principal), total: 0, created_at: now })
        .returning('id').executeTakeFirstOrThrow();
      const chosen = await trx.insertInto('webhook_replay_deliveries').columns(['replay_id', 'position', 'delivery_id'])
        .expression((eb) => eb.selectFrom('webhook_deliveries')
          .select([sql<number>`${replay.id}::bigint`.as('replay_id'), sql<number>`row_number() OVER (ORDER BY created_at, seq NULLS FIRST, id)`.as('position'), 'id'])
          .where('endpoint_id', '=', endpoint.id).where('kind', '=', 'event').where('status', '=', 'failed').where('created_at', '>=', since))
        .executeTakeFirst();
      const total = Number(chosen.numInsertedOrUpdatedRows ?? 0);
      if (total === 0) throw new ApiError('invalid_state', 'No delivery to this endpoint has failed since then: there is nothing to replay.');
      const row = await trx.updateTable('webhook_replays').set({ total }).where('id', '=', replay.id).returningAll().executeTakeFirstOrThrow();
      await recordActivity(trx, principal, 'webhook_endpoint.replay_requested', endpoint.id, { since: input.since, total }, now);
      await ctx.jobs.enqueueReplay(trx, { replayId: replay.id });
      return toReplayOut(row);
    });
  },
});
