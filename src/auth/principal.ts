import type { Role } from '../db/schema.ts';
import type { BusinessState } from '../tenancy/businesses.ts';
import { API_SCOPES, READ_ONLY_SCOPES, WEBHOOK_SCOPES, type Scope } from './scopes.ts';

// Who is calling: built once per request (or CLI command) and the only thing verbs consult for
// tenant, mode and permission. Whatever the transport, a caller acts in one business and one
// mode; the actor says who it is.

export type Actor =
  /** A merchant's server with a secret key (REST, MCP). */
  | { kind: 'secret_key'; keyId: string }
  /** A connected AI agent with an access token (REST, MCP). */
  | { kind: 'agent'; connectionId: string }
  /** A person signed in to the dashboard, with their role in the business and when they signed in (null: not known here). */
  | { kind: 'person'; personId: string; email: string; role: Role; signedInAt: Date | null }
  /** Whoever runs the service, through the CLI: any business, always through the object's own business and mode. */
  | { kind: 'operator' }
  /**
   * A buyer on a payer page: anyone holding its address. Acts only on the one payment (or the
   * checkout, to buy it) the page is for, in that object's business and mode, and holds no scope.
   */
  | { kind: 'buyer'; holds: string };

export interface Principal {
  businessId: string;
  livemode: boolean;
  scopes: ReadonlySet<Scope>;
  actor: Actor;
  business: BusinessState;
}

/** The scopes a person holds by role: viewers read (webhook endpoints too); developers and owners may do everything the API does. */
export function scopesForRole(role: Role): readonly Scope[] {
  return role === 'viewer' ? [...READ_ONLY_SCOPES, 'webhooks:read'] : [...API_SCOPES, ...WEBHOOK_SCOPES];
}

/** The operator holds every scope. */
export const OPERATOR_SCOPES: readonly Scope[] = [...API_SCOPES, ...WEBHOOK_SCOPES];

/** The secret key behind a principal, if a key is the actor. */
export function keyIdOf(principal: Principal): string | null {
  return principal.actor.kind === 'secret_key' ? principal.actor.keyId : null;
}
