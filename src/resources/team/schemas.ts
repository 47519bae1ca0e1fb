import { z } from 'zod';
import { unixSeconds } from '../../core/clock.ts';
import { coded } from '../../core/validation.ts';
import type { Role } from '../../db/schema.ts';
import { ROLES, canManageKeys } from '../../tenancy/roles.ts';
import { emailField } from '../shared/fields.ts';

export const SetMemberRoleInput = z.object({
  email: emailField('email'),
  /** Absent: a person new to the business joins as a viewer (the least role); a member keeps theirs. */
  role: z.enum(ROLES as [Role, ...Role[]], coded('invalid_role', `role must be one of ${ROLES.join(', ')}.`)).optional(),
});
export type SetMemberRoleInput = z.output<typeof SetMemberRoleInput>;

export interface MemberOut {
  object: 'member';
  person_id: string;
  email: string;
  role: Role;
  /** Owners and developers manage keys and connect agents. */
  manages_keys: boolean;
  since: number;
}

export function toMemberOut(row: { id: string; email: string; role: Role; created_at: Date }): MemberOut {
  return { object: 'member', person_id: row.id, email: row.email, role: row.role, manages_keys: canManageKeys(row.role), since: unixSeconds(row.created_at) };
}
