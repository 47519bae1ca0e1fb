import type { Operation } from './core/operation.ts';
import { paymentLinkOperations } from './resources/payment-links/operations.ts';

// The registry: every API operation once. REST routes, the OpenAPI document and MCP tools
// are generated from this list.
export const operations: readonly Operation[] = [
  ...paymentLinkOperations,
] as readonly Operation[];
