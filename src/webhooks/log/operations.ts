import { defineOperation } from '../../verbs/operation.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { DeliveryDetailOut, DeliveryIdInput, DeliveryList, DeliveryOut, ListDeliveriesInput, toDeliveryDetailOut, toDeliveryOut } from './api-schemas.ts';
import { listEndpointDeliveries } from './list-endpoint-deliveries.ts';
import { deliveryDetail } from './read-delivery.ts';
import { resendDelivery } from './resend.ts';
import { retryDelivery } from './retry.ts';

// The delivery log over the API (issue 24), for servers holding the webhook scopes (agents never
// do): the same reads and the same retry and resend rules as the dashboard, one verb each.

/** A manual send, then the delivery as it now is: its status and last attempt say how it went. */
async function sendThenRead(ctx: OperationContext, id: string, send: (ctx: OperationContext, id: string) => Promise<unknown>): Promise<DeliveryOut> {
  await send(ctx, id);
  const detail = await deliveryDetail(ctx, id);
  return toDeliveryOut(detail.delivery, { id: detail.endpoint.id, livemode: ctx.principal.livemode }, ctx.principal);
}

const TIMING = 'It signs and POSTs the delivery\'s body to the endpoint\'s current address, and answers once the endpoint answers (at most 10 seconds).';

export const deliveryOperations = [
  defineOperation({
    name: 'list_endpoint_deliveries',
    title: 'List an endpoint\'s deliveries',
    description: 'List the deliveries of one webhook endpoint, newest first, as the dashboard\'s delivery log shows them: event, status, attempts, ' +
      'last status code or error, next retry, exact body. Finished deliveries are kept 30 days (a removed endpoint\'s history too). ' +
      'Filter by status (pending, succeeded, failed, canceled); pass next_cursor as starting_after for the next page.',
    useWhen: 'finding what your endpoint missed; retrieve_webhook_delivery gives one delivery\'s attempts.',
    tag: 'Webhook deliveries',
    scope: 'webhooks:read',
    input: ListDeliveriesInput,
    output: DeliveryList,
    http: { method: 'GET', path: '/webhook_endpoints/:id/deliveries', status: 200 },
    run: listEndpointDeliveries,
  }),
  defineOperation({
    name: 'retrieve_webhook_delivery',
    title: 'Get webhook delivery',
    description: 'Get one delivery by its dlv_ id with every request made for it, oldest first: when, to which address, how long, the status ' +
      'code or error, and the start of the answer.',
    useWhen: 'finding out why a delivery failed, attempt by attempt.',
    tag: 'Webhook deliveries',
    scope: 'webhooks:read',
    input: DeliveryIdInput,
    output: DeliveryDetailOut,
    http: { method: 'GET', path: '/webhook_deliveries/:id', status: 200 },
    run: async (ctx, input) => toDeliveryDetailOut(await deliveryDetail(ctx, input.id), ctx.principal),
  }),
  defineOperation({
    name: 'retry_delivery',
    title: 'Retry a delivery now',
    description: 'Send a delivery that is still being retried (status pending) at once, without using up its automatic retries; a success ' +
      `finishes it. A finished delivery answers 409 invalid_state: resend it instead. ${TIMING} Returns the delivery.`,
    useWhen: 'your endpoint works again and a delivery still being retried should arrive now.',
    writes: 'sends a pending delivery to its endpoint now',
    tag: 'Webhook deliveries',
    scope: 'webhooks:write',
    input: DeliveryIdInput,
    output: DeliveryOut,
    http: { method: 'POST', path: '/webhook_deliveries/:id/retry', status: 200 },
    conflicts: ['invalid_state'],
    // It POSTs to the endpoint's address, outside this service.
    annotations: { openWorldHint: true },
    run: (ctx, input) => sendThenRead(ctx, input.id, retryDelivery),
  }),
  defineOperation({
    name: 'resend_delivery',
    title: 'Resend a delivery',
    description: 'Send a finished delivery (succeeded or failed) once more, with the same event id and body and a fresh signature; never retried. ' +
      `A delivery still being retried answers 409 invalid_state: retry it instead. ${TIMING} Returns the delivery.`,
    useWhen: 'your endpoint lost or mishandled an event it was sent.',
    writes: 'sends a finished delivery to its endpoint again (the same event, a fresh signature)',
    tag: 'Webhook deliveries',
    scope: 'webhooks:write',
    input: DeliveryIdInput,
    output: DeliveryOut,
    http: { method: 'POST', path: '/webhook_deliveries/:id/resend', status: 200 },
    conflicts: ['invalid_state'],
    // It POSTs to the endpoint's address, outside this service.
    annotations: { openWorldHint: true },
    run: (ctx, input) => sendThenRead(ctx, input.id, resendDelivery),
  }),
];
