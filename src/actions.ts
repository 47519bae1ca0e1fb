import { agentConnectionActions } from './resources/agent-connections/actions.ts';
import { apiKeyActions } from './resources/api-keys/actions.ts';
import { brandActions } from './resources/brand/actions.ts';
import { businessActions } from './resources/businesses/actions.ts';
import { checkoutActions } from './resources/checkouts/manage.ts';
import { customerActions } from './resources/customers/actions.ts';
import { paymentActions } from './resources/payments/actions.ts';
import { teamActions } from './resources/team/actions.ts';
import { webhookEndpointActions } from './resources/webhook-endpoints/actions.ts';
import type { Action } from './verbs/action.ts';
import { deliveryLogActions } from './webhooks/log/actions.ts';
import { webhookReplayActions } from './webhooks/replays/actions.ts';

// The registry of what people do in the dashboard and the operator in the CLI: every action
// once. The shared security cases run against each of them (test/actions-security.test.ts).
export const actions: readonly Action[] = [
  ...apiKeyActions,
  ...teamActions,
  ...agentConnectionActions,
  ...webhookEndpointActions,
  ...deliveryLogActions,
  ...webhookReplayActions,
  ...paymentActions,
  ...customerActions,
  ...checkoutActions,
  ...businessActions,
  ...brandActions,
] as readonly Action[];
