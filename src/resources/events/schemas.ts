import { z } from 'zod';
import { createdRange, listParams, pageOf } from '../../core/pagination.ts';
import { coded } from '../../core/validation.ts';
import { PaymentEvent } from '../../events/payloads.ts';
import { PAYMENT_EVENT_TYPES } from '../../events/types.ts';
import { idInput } from '../shared/ids.ts';

// The events of a business and mode over the API (issue 24): each exactly as its webhook
// deliveries carry it (spec 2.5), from its stored body, so an erased customer's details stay
// erased. Only the last 30 days are listed and found.

export const EventIdInput = idInput('evt');

export const ListEventsInput = z.object({
  ...listParams,
  type: z.enum(PAYMENT_EVENT_TYPES, coded('invalid_filter', `type must be one of ${PAYMENT_EVENT_TYPES.join(', ')}.`)).optional()
    .describe('Only events of this type.'),
  payment_id: z.string(coded('invalid_filter', 'payment_id must be a string.')).max(100, coded('invalid_filter', 'payment_id is not a payment id.')).optional()
    .describe('Only events about this payment (pay_…).'),
  ...createdRange,
});
export type ListEventsInput = z.output<typeof ListEventsInput>;

export const EventOut = PaymentEvent;
export type EventOut = z.infer<typeof EventOut>;
export const EventList = pageOf(EventOut, 'events');
