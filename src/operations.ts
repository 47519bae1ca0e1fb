import type { Operation } from './verbs/operation.ts';
import { withAgentPolicy } from './agents/policy.ts';
import { withGuidance } from './agents/guidance.ts';
import { checkoutSessionOperations } from './resources/checkout-sessions/operations.ts';
import { credentialOperations } from './resources/credential/operations.ts';
import { checkoutOperations } from './resources/checkouts/operations.ts';
import { customerOperations } from './resources/customers/operations.ts';
import { eventOperations } from './resources/events/operations.ts';
import { orderOperations } from './resources/orders/operations.ts';
import { paymentLinkOperations } from './resources/payment-links/operations.ts';
import { paymentOperations } from './resources/payments/operations.ts';
import { ledgerOperations } from './resources/ledger/operations.ts';
import { webhookEndpointOperations } from './resources/webhook-endpoints/operations.ts';
import { deliveryOperations } from './webhooks/log/operations.ts';

// The registry: every API operation once. REST routes, the OpenAPI document and MCP tools
// are generated from this list. Every change an agent can make takes a person's approval for a
// connected agent's call beyond its spend policy (agents/policy.ts); every description ends with
// what the call does to money and data, costs and is for (agents/guidance.ts).
export const operations: readonly Operation[] = ([
  ...paymentLinkOperations,
  ...checkoutOperations,
  ...customerOperations,
  ...webhookEndpointOperations,
  ...checkoutSessionOperations,
  ...paymentOperations,
  ...ledgerOperations,
  ...orderOperations,
  ...eventOperations,
  ...deliveryOperations,
  ...credentialOperations,
] as readonly Operation[]).map(withAgentPolicy).map(withGuidance);
