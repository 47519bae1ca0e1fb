import { defineOperation } from '../../verbs/operation.ts';
import { listEvents } from './list.ts';
import { retrieveEvent } from './retrieve.ts';
import { EventIdInput, EventList, EventOut, ListEventsInput } from './schemas.ts';

// What happened since (issue 24): the events of the credential's mode, as webhooks deliver them.
const AS_DELIVERED = 'Each event is exactly the body webhook endpoints receive: id, type, created (Unix seconds), livemode, and data.payment, ' +
  'data.order, data.customer as the event left them (camelCase, millisecond times); a customer\'s erased details stay erased. ' +
  'data.order is null unless the credential also holds orders:read, and data.customer unless it holds customers:read.';

export const eventOperations = [
  defineOperation({
    name: 'list_events',
    title: 'List events',
    description: `List what happened to payments of this mode in the last 30 days, newest first: payment.started, paid, held, updated, failed, expired, canceled. ` +
      `Filter by type, payment_id or creation time (created_gte with the time you last looked gives "what happened since"). ${AS_DELIVERED} ` +
      'Cost: one request per page of up to 100 (limit, default 20); pass next_cursor as starting_after for the next page. ' +
      'Use it to catch up after a gap or to see one payment\'s history; to wait for one payment to change, call wait_for_payment instead of listing repeatedly.',
    tag: 'Events',
    scope: 'payments:read',
    input: ListEventsInput,
    output: EventList,
    http: { method: 'GET', path: '/events', status: 200 },
    run: listEvents,
  }),
  defineOperation({
    name: 'retrieve_event',
    title: 'Get event',
    description: `Get one event of the last 30 days by its evt_ id (the id a webhook delivery carried). ${AS_DELIVERED} ` +
      'Cost: one request. Use it to check a delivery you received or missed; older events answer not_found.',
    tag: 'Events',
    scope: 'payments:read',
    input: EventIdInput,
    output: EventOut,
    http: { method: 'GET', path: '/events/:id', status: 200 },
    run: retrieveEvent,
  }),
];
