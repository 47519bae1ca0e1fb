import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { listParams, pageOf } from '../../core/pagination.ts';
import { characters, coded } from '../../core/validation.ts';
import type { WebhookEndpointRow } from '../../db/schema.ts';
import { isPaymentEventType, PAYMENT_EVENT_TYPES } from '../../events/types.ts';
import { MAX_URL_LENGTH } from '../shared/fields.ts';
import { idInput } from '../shared/ids.ts';

const eventsError = coded('invalid_events', `events must be a non-empty array of event types: ${PAYMENT_EVENT_TYPES.join(', ')}.`);

export const CreateWebhookEndpointInput = z.object({
  url: z
    .string(coded('invalid_url', 'url must be a full https:// address.'))
    .refine((text) => text.length <= MAX_URL_LENGTH, coded('invalid_url', `url must be at most ${MAX_URL_LENGTH} characters.`))
    .refine((text) => URL.canParse(text), coded('invalid_url', 'url must be a full https:// address.'))
    .describe('Full https:// address, no username or password, up to 2,048 characters. Test endpoints also accept http://localhost, on any port but the service\'s own.'),
  // Checked as a whole so that `field` names `events`, as the spec says, whatever element is at fault.
  events: z
    .array(z.unknown(), eventsError)
    .min(1, eventsError)
    .superRefine((events, ctx) => {
      const unknown = events.find((type) => typeof type !== 'string' || !isPaymentEventType(type));
      if (unknown !== undefined) {
        ctx.addIssue({ code: 'custom', message: coded('invalid_events', `${JSON.stringify(unknown)} is not an event type; use ${PAYMENT_EVENT_TYPES.join(', ')}.`).error });
      }
    })
    .optional()
    .transform((events) => (events ? PAYMENT_EVENT_TYPES.filter((type) => events.includes(type)) : [...PAYMENT_EVENT_TYPES]))
    .meta({ description: 'Event types to receive, at least one; default every type.', items: { type: 'string', enum: [...PAYMENT_EVENT_TYPES] } }),
  description: z
    .string(coded('invalid_description', 'description must be a string.'))
    .refine((text) => characters(text) <= 80, coded('too_long', 'description must be at most 80 characters.'))
    .nullish()
    .describe('Label, up to 80 characters.'),
});
export type CreateWebhookEndpointInput = z.output<typeof CreateWebhookEndpointInput>;

export const WebhookEndpointIdInput = idInput('we');
export const ListWebhookEndpointsInput = z.object({ ...listParams });
export type ListWebhookEndpointsInput = z.output<typeof ListWebhookEndpointsInput>;

export const WebhookEndpointOut = z.object({
  id: z.string().describe('`we_…`.'),
  object: z.literal('webhook_endpoint').describe('Always `webhook_endpoint`.'),
  url: z.string().describe('Where events are sent.'),
  description: z.string().nullable().describe('A label, up to 80 characters.'),
  events: z.array(z.string()).describe('The event types received.'),
  livemode: z.boolean().describe('false = Test, true = Live.'),
  mode: z.enum(['test', 'live']).describe('`test` or `live`, the same fact as livemode.'),
  previous_secret_expires_at: z.number().int().nullable()
    .describe('After a secret roll in the dashboard, when the previous secret stops signing (Unix seconds); otherwise null.'),
  created: z.number().int().describe('When it was added, Unix seconds.'),
}).describe('A webhook endpoint: an address that receives signed event deliveries of its mode.');
export type WebhookEndpointOut = z.infer<typeof WebhookEndpointOut>;

export const CreatedWebhookEndpointOut = WebhookEndpointOut.extend({
  secret: z.string().describe('Signing secret (whsec_…); returned only now. Store it to verify Service-Signature.'),
}).describe('A webhook endpoint just added, with its signing secret (returned only in this response).');

export const DeletedWebhookEndpointOut = WebhookEndpointOut.pick({ id: true, object: true }).extend({
  deleted: z.literal(true).describe('Always true.'),
}).describe('What a delete answers: the endpoint is removed, its secret erased.');

export const WebhookEndpointList = pageOf(WebhookEndpointOut, 'webhook endpoints');

export function toWebhookEndpointOut(row: WebhookEndpointRow): WebhookEndpointOut {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    events: row.events,
    livemode: row.livemode,
    mode: row.livemode ? 'live' : 'test',
    previous_secret_expires_at: unixSecondsOrNull(row.previous_secret_expires_at),
    created: unixSeconds(row.created_at),
  };
}
