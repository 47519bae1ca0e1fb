import type { Role } from '../db/schema.ts';

// People's roles in a business: viewers look; developers also manage keys, agents, webhook
// endpoints and the money decisions; owners also manage the team and the account's settings.
export const ROLES: readonly Role[] = ['viewer', 'developer', 'owner'];

/** Whether `role` is `minimum` or above it. */
export function atLeast(role: Role | null | undefined, minimum: Role): boolean {
  return role != null && ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

/** Owners and developers manage keys and connect agents; no role (not a member) manages nothing. */
export function canManageKeys(role: Role | null | undefined): boolean {
  return atLeast(role, 'developer');
}
