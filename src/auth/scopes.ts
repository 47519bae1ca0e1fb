import type { KeyAccess, KeyKind } from '../db/schema.ts';

// Scopes (spec 5.3, 5.5). The five API scopes, and the two webhook scopes that only keys
// made for the API ever hold.
export const API_SCOPES = ['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read'] as const;
export const WEBHOOK_SCOPES = ['webhooks:read', 'webhooks:write'] as const;
export const READ_ONLY_SCOPES = ['payments:read', 'orders:read', 'customers:read'] as const;

export type ApiScope = (typeof API_SCOPES)[number];
export type Scope = ApiScope | (typeof WEBHOOK_SCOPES)[number];

/** What each scope allows, as a person reads it (the agent approval page, the scopes reference). */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  'payments:read': 'read payments and their events, payment links, checkouts and checkout sessions',
  'checkouts:write': 'create and cancel payment links, create checkouts, create and start checkout sessions, and simulate Test payments',
  'orders:read': 'read orders (also the order inside a payment\'s events)',
  'orders:write': 'update orders and report cancellations and refunds',
  'customers:read': 'read customers (also the customer inside a payment\'s events)',
  'webhooks:read': 'read webhook endpoints and their deliveries',
  'webhooks:write': 'add and remove webhook endpoints, and retry or resend deliveries',
};

/** The kinds of secret key and their access levels (db/schema.ts KeyKind and KeyAccess). */
export const KEY_KINDS = ['api', 'plugin', 'legacy'] as const satisfies readonly KeyKind[];
export const KEY_ACCESSES = ['full', 'read_only'] as const satisfies readonly KeyAccess[];

/**
 * The exact scope set of a secret key:
 * - made for the API: Full access = five API scopes + webhooks; Read only = the three read scopes;
 * - e-commerce plugin: always the five API scopes, never webhooks;
 * - from before access levels (legacy): full access to the five API scopes. Webhook scopes are
 *   granted only to keys made for the API, so a legacy key manages no endpoints.
 */
export function scopesForKey(kind: KeyKind, access: KeyAccess): readonly Scope[] {
  if (kind === 'api') return access === 'full' ? [...API_SCOPES, ...WEBHOOK_SCOPES] : READ_ONLY_SCOPES;
  return API_SCOPES;
}

/** Whether connected agents can ever hold the scope: the API scopes, never the webhook scopes (spec 5.3). */
export function heldByAgents(scope: Scope): boolean {
  return (API_SCOPES as readonly Scope[]).includes(scope);
}

/** A scope that only reads (payments:read, webhooks:read): an operation holding any other changes the account. */
export function readsOnly(scope: Scope): boolean {
  return scope.endsWith(':read');
}
