import { readWebhookEndpoints } from './overview.ts';
import { rollWebhookSecret } from './roll-secret.ts';
import { updateWebhookEndpoint } from './update.ts';

// What the dashboard does to an endpoint beyond the API (spec 6.3 rule 7): edits and secret rolls,
// and the list that says who added each endpoint.
export const webhookEndpointActions = [readWebhookEndpoints, updateWebhookEndpoint, rollWebhookSecret];
