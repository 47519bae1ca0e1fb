import { z } from 'zod';
import { listParams, pageOf } from '../../core/pagination.ts';
import { coded } from '../../core/validation.ts';
import { idInput } from '../../resources/shared/ids.ts';
import type { Principal } from '../../auth/principal.ts';
import { eventBodyForCaller } from '../../resources/events/for-caller.ts';
import type { AttemptEntry, DeliveryLogEntry } from './schemas.ts';

// The delivery log over the API (issue 24): an endpoint's deliveries and their attempts, as the
// dashboard shows them (spec 6.3 rule 4), as API objects in snake_case with Unix seconds.

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;

export { DeliveryIdInput } from './list-attempts.ts';

export const ListDeliveriesInput = idInput('we').extend({
  ...listParams,
  status: z.enum(DELIVERY_STATUSES, coded('invalid_filter', `status must be one of ${DELIVERY_STATUSES.join(', ')}.`)).optional()
    .describe('Only deliveries in this status: `pending` (still retrying), `succeeded`, `failed` (after its last attempt), `canceled` (its endpoint was removed).'),
});
export type ListDeliveriesInput = z.output<typeof ListDeliveriesInput>;

const secondsOrNull = (what: string) => z.number().int().nullable().describe(`${what}, Unix seconds; null until it happens.`);

export const DeliveryOut = z.object({
  id: z.string().describe('`dlv_…`.'),
  object: z.literal('webhook_delivery').describe('Always `webhook_delivery`.'),
  endpoint_id: z.string().describe('`we_…` of the endpoint it is sent to.'),
  event_id: z.string().describe('`evt_…` of the event it carries: the same on every attempt and resend.'),
  event_type: z.string().describe('The event type, or `ping` for a test send.'),
  kind: z.enum(['event', 'test']).describe('`event` (a payment event) or `test` (Send test event in the dashboard; never retried).'),
  livemode: z.boolean().describe('false = Test, true = Live.'),
  status: z.enum(DELIVERY_STATUSES).describe('`pending` while it is still being retried, `succeeded`, `failed` after its last attempt, `canceled` when its endpoint was removed.'),
  created: z.number().int().describe('When it was queued (its event\'s creation), Unix seconds.'),
  last_attempt_at: secondsOrNull('When it was last sent'),
  attempt_count: z.number().int().describe('Automatic attempts made, 0 to 7.'),
  manual_attempt_count: z.number().int().describe('Sends made by hand: retry now, resend, test sends.'),
  last_status_code: z.number().int().nullable().describe('The HTTP status of the last attempt; null before one or when no answer came.'),
  last_error: z.string().nullable().describe('Why the last attempt failed (timeout, refused address, status); null when it succeeded.'),
  next_retry_at: secondsOrNull('When the next automatic attempt is due; null when none is'),
  body: z.string().describe('The exact body every attempt sends (the event as JSON text; erased details stay erased). Without orders:read or customers:read, its data.order or data.customer reads null here (the endpoint was sent them).'),
}).describe('One event sent to one endpoint, with its attempts so far.');
export type DeliveryOut = z.infer<typeof DeliveryOut>;

export const AttemptOut = z.object({
  trigger: z.enum(['automatic', 'retry_now', 'resend', 'test']).describe('What sent it: an `automatic` attempt on the schedule, `retry_now`, `resend`, or a `test` send.'),
  number: z.number().int().nullable().describe('The automatic attempt\'s number, 1 to 7; null for sends made by hand.'),
  url: z.string().describe('The address it was sent to.'),
  sent: z.number().int().describe('When it was sent, Unix seconds.'),
  duration_ms: z.number().int().describe('How long the endpoint took, milliseconds.'),
  succeeded: z.boolean().describe('Whether the endpoint answered 2xx within 10 seconds.'),
  status_code: z.number().int().nullable().describe('The HTTP status answered; null when none came.'),
  error: z.string().nullable().describe('Why it failed; null when it succeeded.'),
  response_excerpt: z.string().nullable().describe('The start of what the endpoint answered.'),
}).describe('One request made for a delivery.');

export const DeliveryDetailOut = DeliveryOut.extend({
  attempts: z.array(AttemptOut).describe('Every request made for it, oldest first.'),
}).describe('One delivery with every request made for it.');
export type DeliveryDetailOut = z.infer<typeof DeliveryDetailOut>;

export const DeliveryList = pageOf(DeliveryOut, 'webhook deliveries');

/** A delivery of `endpoint` (found in the caller's mode, so of that mode), its body as `reader` may read it. */
export function toDeliveryOut(entry: DeliveryLogEntry, endpoint: { id: string; livemode: boolean }, reader: Pick<Principal, 'scopes'>): DeliveryOut {
  return {
    id: entry.id,
    object: 'webhook_delivery',
    endpoint_id: endpoint.id,
    event_id: entry.event_id,
    event_type: entry.event_type,
    kind: entry.kind,
    livemode: endpoint.livemode,
    status: entry.status,
    created: entry.created,
    last_attempt_at: entry.sent,
    attempt_count: entry.attempts,
    manual_attempt_count: entry.manual_attempts,
    last_status_code: entry.last_status,
    last_error: entry.last_error,
    next_retry_at: entry.next_retry,
    body: eventBodyForCaller(reader, entry.body),
  };
}

export function toDeliveryDetailOut(detail: { endpoint: { id: string }; delivery: DeliveryLogEntry; attempts: AttemptEntry[] }, reader: Pick<Principal, 'scopes' | 'livemode'>): DeliveryDetailOut {
  return { ...toDeliveryOut(detail.delivery, { id: detail.endpoint.id, livemode: reader.livemode }, reader), attempts: detail.attempts };
}
