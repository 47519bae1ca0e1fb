import { rollWebhookSecret } from './roll-secret.ts';
import { updateWebhookEndpoint } from './update.ts';

// What the dashboard does to an endpoint beyond the API (spec 6.3 rule 7): edits and secret rolls.
export const webhookEndpointActions = [updateWebhookEndpoint, rollWebhookSecret];
