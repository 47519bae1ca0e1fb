import { defineOperation } from '../../verbs/operation.ts';
import { createWebhookEndpoint } from './create.ts';
import { deleteWebhookEndpoint } from './delete.ts';
import { listWebhookEndpoints } from './list.ts';
import { retrieveWebhookEndpoint } from './retrieve.ts';
import {
  CreatedWebhookEndpointOut, CreateWebhookEndpointInput, DeletedWebhookEndpointOut, ListWebhookEndpointsInput,
  WebhookEndpointIdInput, WebhookEndpointList, WebhookEndpointOut,
} from './schemas.ts';

export const webhookEndpointOperations = [
  defineOperation({
    name: 'create_webhook_endpoint',
    title: 'Create webhook endpoint',
    description: 'Add an address that receives signed event deliveries in the credential\'s mode. The response includes the signing secret (whsec_…) once; store it. ' +
      'On 409 duplicate_url, list endpoints, delete the one with the same url, and create again. At most 10 per mode.',
    useWhen: 'your server should hear of payments as they happen instead of polling.',
    writes: 'adds a webhook endpoint: signed events go to its address from now on',
    tag: 'Webhook endpoints',
    scope: 'webhooks:write',
    input: CreateWebhookEndpointInput,
    output: CreatedWebhookEndpointOut,
    http: { method: 'POST', path: '/webhook_endpoints', status: 201 },
    conflicts: ['duplicate_url', 'too_many'],
    // The url's host is resolved and vetted now, and signed events go to that outside address from now on.
    annotations: { openWorldHint: true },
    run: createWebhookEndpoint,
  }),
  defineOperation({
    name: 'retrieve_webhook_endpoint',
    title: 'Get webhook endpoint',
    description: 'Get one webhook endpoint by its we_ id (without its secret). 404 means it was removed: create a new one.',
    useWhen: 'checking one endpoint\'s address, events and status.',
    tag: 'Webhook endpoints',
    scope: 'webhooks:read',
    input: WebhookEndpointIdInput,
    output: WebhookEndpointOut,
    http: { method: 'GET', path: '/webhook_endpoints/:id', status: 200 },
    run: retrieveWebhookEndpoint,
  }),
  defineOperation({
    name: 'list_webhook_endpoints',
    title: 'List webhook endpoints',
    description: 'List webhook endpoints of this mode, newest first, without secrets. Pass next_cursor as starting_after for the next page.',
    useWhen: 'seeing which addresses receive events, or finding one to delete.',
    tag: 'Webhook endpoints',
    scope: 'webhooks:read',
    input: ListWebhookEndpointsInput,
    output: WebhookEndpointList,
    http: { method: 'GET', path: '/webhook_endpoints', status: 200 },
    run: listWebhookEndpoints,
  }),
  defineOperation({
    name: 'delete_webhook_endpoint',
    title: 'Delete webhook endpoint',
    description: 'Remove a webhook endpoint: it stops receiving events, pending retries stop and its secret ceases to exist. ' +
      'Works even when the account is suspended. A 404 for an endpoint already removed means it is done.',
    useWhen: 'an address must stop receiving events, or is to be replaced (after duplicate_url).',
    writes: 'removes a webhook endpoint and its secret for good',
    tag: 'Webhook endpoints',
    scope: 'webhooks:write',
    input: WebhookEndpointIdInput,
    output: DeletedWebhookEndpointOut,
    http: { method: 'DELETE', path: '/webhook_endpoints/:id', status: 200 },
    allowWhenSuspended: true,
    run: deleteWebhookEndpoint,
  }),
];
