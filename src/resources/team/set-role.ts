import { recordActivity } from '../../audit/activity.ts';
import { ApiError } from '../../core/errors.ts';
import { announceAuthChange } from '../../db/auth-changes.ts';
import { addMember, findOrCreatePerson, setRole } from '../../tenancy/businesses.ts';
import { canManageKeys } from '../../tenancy/roles.ts';
import { defineAction } from '../../verbs/action.ts';
import { SetMemberRoleInput, toMemberOut } from './schemas.ts';

/**
 * Gives a person (by email) a role in the caller's business, adding them if new; without a role,
 * a newcomer joins as a viewer (the least role) and a member keeps theirs. A business keeps at
 * least one owner. Whoever stops managing keys no longer vouches for the agents they connected:
 * those are disconnected (spec 5.6).
 */
export const setMemberRole = defineAction({
  name: 'set_member_role',
  title: 'Add a person or change their role',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  input: SetMemberRoleInput,
  async run(ctx, input) {
    const { principal } = ctx;
    const now = ctx.clock.now();
    const personId = await findOrCreatePerson(ctx.db, input.email, now);
    const member = await ctx.db.transaction().execute(async (trx) => {
      // A person's role is read again under lock: an owner demoted meanwhile changes no one's role.
      if (principal.actor.kind === 'person') {
        const held = await trx.selectFrom('memberships').select('role')
          .where('business_id', '=', principal.businessId).where('person_id', '=', principal.actor.personId).forShare().executeTakeFirst();
        if (held?.role !== 'owner') throw new ApiError('insufficient_role', 'This needs the owner role in this business.');
      }
      if (input.role === undefined) {
        // Inserted or left alone in one statement: a role given meanwhile is never overwritten.
        if (await addMember(trx, principal.businessId, personId, 'viewer', now)) {
          await recordActivity(trx, principal, 'member.role_set', personId, { email: input.email, role: 'viewer' }, now);
        }
      } else {
        // The owners' rows locked: two owners demoting each other at once cannot leave none.
        if (input.role !== 'owner') {
          const owners = await trx.selectFrom('memberships').select('person_id')
            .where('business_id', '=', principal.businessId).where('role', '=', 'owner').forUpdate().execute();
          if (owners.length === 1 && owners[0]?.person_id === personId) throw new ApiError('last_owner', 'A business keeps at least one owner; make someone else owner first.', 'role');
        }
        await setRole(trx, principal.businessId, personId, input.role, now);
        if (!canManageKeys(input.role)) {
          await trx.updateTable('agent_connections').set({ disconnected_at: now, disconnected_why: 'approver_no_longer_manages_keys' })
            .where('business_id', '=', principal.businessId).where('approved_by', '=', personId).where('disconnected_at', 'is', null).execute();
        }
        await recordActivity(trx, principal, 'member.role_set', personId, { email: input.email, role: input.role }, now);
      }
      return trx.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id')
        .select(['p.id', 'p.email', 'm.role', 'm.created_at'])
        .where('m.business_id', '=', principal.businessId).where('m.person_id', '=', personId).executeTakeFirstOrThrow();
    });
    announceAuthChange();
    return toMemberOut(member);
  },
});
