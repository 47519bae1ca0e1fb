import { z } from 'zod';
import { MINUTE } from '../../core/clock.ts';
import { ApiError, rateLimited } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { coded } from '../../core/validation.ts';
import { PAYMENT_EVENT_TYPES, PING } from '../../events/types.ts';
import { getWebhookEndpoint } from '../../resources/webhook-endpoints/queries.ts';
import { WebhookEndpointIdInput } from '../../resources/webhook-endpoints/schemas.ts';
import { defineAction } from '../../verbs/action.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { isGone, lockEndpoint, removeGoneEndpoint, sendTarget, type DeliveryTarget } from '../deliveries.ts';
import { sampleEventBody } from '../samples.ts';
import type { ManualSendResult } from './schemas.ts';

export const TEST_EVENT_TYPES = [PING, ...PAYMENT_EVENT_TYPES] as const;

/**
 * Refuses a test send past the endpoint's limit a minute (RATE_LIMIT_TEST_EVENTS_PER_MINUTE):
 * each is a signed request to someone's address at once. Counted from the endpoint's log over
 * the last minute rather than in memory, so the dashboard, the CLI and every process share it.
 * Two sends at the same instant may both pass: approximate, as every limit (spec 8).
 */
async function admitTestSend(ctx: OperationContext, endpointId: string, now: Date): Promise<void> {
  const limits = ctx.config.rateLimits;
  if (!limits.enabled) return;
  const { sent } = await ctx.db.selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('sent'))
    .where('endpoint_id', '=', endpointId).where('kind', '=', 'test').where('created_at', '>', new Date(now.getTime() - MINUTE))
    .executeTakeFirstOrThrow();
  if (Number(sent) >= limits.testEventsPerMinute) {
    ctx.metrics.refusals('test_events')();
    throw rateLimited(`This endpoint passed its limit of ${limits.testEventsPerMinute} test events a minute`);
  }
}

/**
 * Send test event (spec 6.3 rule 5): one signed event at once, never retried, kept in the log. A
 * Test endpoint takes a ping or a sample of any payment event; a Live endpoint a ping only; a
 * few a minute per endpoint (429 rate_limited past them).
 */
export const sendTestWebhook = defineAction({
  name: 'send_test_webhook',
  title: 'Send a test event',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: WebhookEndpointIdInput.extend({
    type: z.enum(TEST_EVENT_TYPES, coded('invalid_event_type', `type must be one of ${TEST_EVENT_TYPES.join(', ')}.`)).default(PING),
  }),
  async run(ctx, input): Promise<ManualSendResult> {
    const endpoint = await getWebhookEndpoint(ctx.db, ctx.principal, input.id);
    if (endpoint.livemode && input.type !== PING) throw new ApiError('invalid_event_type', 'A Live endpoint can receive a ping only.', 'type');
    const deps = ctx;
    const now = ctx.clock.now();
    await admitTestSend(ctx, endpoint.id, now);
    const eventId = newId('evt');
    const target: DeliveryTarget = {
      id: newId('dlv'), kind: 'test', status: 'pending', attempts: 0, event_id: eventId, event_type: input.type,
      body: sampleEventBody(eventId, input.type, endpoint.livemode, now, ctx.config.baseUrl),
      endpoint_id: endpoint.id, business_id: endpoint.business_id, livemode: endpoint.livemode, url: endpoint.url, added_via: endpoint.added_via,
      secret_encrypted: endpoint.secret_encrypted, previous_secret_encrypted: endpoint.previous_secret_encrypted,
      previous_secret_expires_at: endpoint.previous_secret_expires_at, deleted_at: null, created_at: now, erasures: 0,
    };
    const { outcome, sentAt } = await sendTarget(deps, target);
    const finished = ctx.clock.now();
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('webhook_deliveries').values({
        id: target.id, event_id: eventId, endpoint_id: endpoint.id, kind: 'test', event_type: input.type, body: target.body,
        status: outcome.ok ? 'succeeded' : 'failed', attempts: 0, manual_attempts: 1, last_attempt_at: sentAt,
        last_status: outcome.statusCode, last_error: outcome.error, created_at: now, finished_at: finished,
      }).execute();
      await trx.insertInto('webhook_delivery_attempts').values({
        delivery_id: target.id, endpoint_id: endpoint.id, trigger: 'test', number: null, url: target.url, sent_at: sentAt,
        duration_ms: outcome.durationMs, succeeded: outcome.ok, status_code: outcome.statusCode, error: outcome.error, response_excerpt: outcome.excerpt,
      }).execute();
      if (!outcome.ok && isGone(target, outcome)) {
        await lockEndpoint(trx, target.endpoint_id);
        await removeGoneEndpoint(trx, target, finished);
      }
    });
    return { delivery_id: target.id, event_id: eventId, outcome };
  },
});
