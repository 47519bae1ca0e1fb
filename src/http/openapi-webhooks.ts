import { EVENT_DESCRIPTIONS } from '../events/payloads.ts';
import { PAYMENT_EVENT_TYPES, PING } from '../events/types.ts';
import type { Examples } from './openapi-examples.ts';
import { componentRef } from './openapi-schemas.ts';

// The `webhooks` section (OpenAPI 3.1): what the service POSTs to an endpoint for each event
// type (spec 6), with the signature headers and what the endpoint's answer means.

export const WEBHOOKS_TAG = 'Events';

const headers = [
  {
    name: 'Service-Signature',
    in: 'header',
    required: true,
    description: 'The signature of this attempt: `t=` the Unix time in seconds, then `,v1=` and 64 lowercase hexadecimal characters: ' +
      'the HMAC-SHA-256, keyed with the endpoint\'s signing secret (`whsec_…`), of the text made of the timestamp, a period and the raw request body, ' +
      'using the exact bytes received. During a secret\'s 24-hour overlap after a roll there is one `v1` per secret. ' +
      'Reject a header not of that form, a timestamp more than 300 seconds from now, or a value that does not match (compare in constant time).',
    schema: { type: 'string', pattern: '^t=[0-9]+(,v1=[0-9a-f]{64})+$' },
  },
  {
    name: 'User-Agent',
    in: 'header',
    required: true,
    description: 'Always `Service-Webhooks/1.0`.',
    schema: { type: 'string', const: 'Service-Webhooks/1.0' },
  },
];

const responses = {
  '2XX': { description: 'Received. Any 2xx within 10 seconds is a success; the response body is ignored. Acknowledge event types you do not know with a 2xx too.' },
  '410': { description: 'Gone: an endpoint added through the API is removed instead of retried (one added in the dashboard keeps being retried).' },
  '4XX': {
    description: 'Refused: reject what cannot be verified with a 4xx, so it is retried and visible in the delivery log. Any answer that is not a 2xx ' +
      '(a 3xx included: redirects are not followed), or none within 10 seconds, is retried after 1 minute, 5 minutes, 30 minutes, 2 hours, ' +
      '6 hours and 12 hours: seven attempts over about 21 hours, each with the same event id and body and a fresh signature.',
  },
};

function webhook(type: string, body: unknown, examples: Examples) {
  const delivered = examples.webhooks[type];
  const isPing = type === PING;
  return {
    post: {
      operationId: `event_${type.replace('.', '_')}`,
      summary: type,
      description: `${EVENT_DESCRIPTIONS[type as keyof typeof EVENT_DESCRIPTIONS]}\n\n` +
        'Sent as a POST with `Content-Type: application/json` to each endpoint of the same mode that subscribes to the type; at least once, so ' +
        'deduplicate on the event `id`, and expect events out of order.',
      tags: [WEBHOOKS_TAG],
      security: [],
      parameters: headers,
      requestBody: {
        required: true,
        description: isPing ? 'A ping: every object is null.' : `The event, with the payment, its order and its customer as \`${type}\` leaves them.`,
        content: {
          'application/json': {
            schema: body,
            ...(delivered === undefined ? {} : { examples: { delivered: { summary: 'A real delivery', value: delivered } } }),
          },
        },
      },
      responses,
    },
  };
}

/** The webhooks section: every payment event type and the ping. */
export function webhooksSection(examples: Examples) {
  const section: Record<string, unknown> = {};
  for (const type of PAYMENT_EVENT_TYPES) {
    const body = { allOf: [{ $ref: componentRef('PaymentEvent') }, { type: 'object', properties: { type: { const: type } } }] };
    section[type] = webhook(type, body, examples);
  }
  section[PING] = webhook(PING, { $ref: componentRef('PingEvent') }, examples);
  return section;
}
