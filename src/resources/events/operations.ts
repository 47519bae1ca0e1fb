import { defineOperation } from '../../verbs/operation.ts';
import { listEvents } from './list.ts';
import { retrieveEvent } from './retrieve.ts';
import { EventIdInput, EventList, EventOut, ListEventsInput } from './schemas.ts';

// What happened since (issue 24): the events of the credential's mode, as webhooks deliver them.
const AS_DELIVERED = 'Each event is exactly the body webhook endpoints receive (data.payment, data.order and data.customer as the event left them, ' +
  'camelCase; erased details stay erased); data.order is null without orders:read, data.customer without customers:read.';

export const eventOperations = [
  defineOperation({
    name: 'list_events',
    title: 'List events',
    description: 'List what happened to payments of this mode in the last 30 days, newest first, by type, payment_id or creation time ' +
      `(created_gte with the time you last looked: "what happened since"). ${AS_DELIVERED} ` +
      'Pass next_cursor as starting_after for the next page.',
    useWhen: 'catching up after a gap, or reading one payment\'s history; to wait for one payment to change, wait_for_payment.',
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
    description: `Get one event of the last 30 days by its evt_ id (the id a webhook delivery carried); older events answer not_found. ${AS_DELIVERED}`,
    useWhen: 'checking a webhook delivery you received or missed.',
    tag: 'Events',
    scope: 'payments:read',
    input: EventIdInput,
    output: EventOut,
    http: { method: 'GET', path: '/events/:id', status: 200 },
    run: retrieveEvent,
  }),
];
