import { z } from 'zod';
import { defineAction } from '../../verbs/action.ts';
import { toMemberOut } from './schemas.ts';

/** The people of the caller's business and their roles, in the order they joined. */
export const listMembers = defineAction({
  name: 'list_members',
  title: 'List the team',
  role: 'viewer',
  modeScoped: false,
  effect: 'reads',
  input: z.object({}),
  async run(ctx) {
    const rows = await ctx.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id')
      .select(['p.id', 'p.email', 'm.role', 'm.created_at'])
      .where('m.business_id', '=', ctx.principal.businessId)
      .orderBy('m.created_at').orderBy('p.email')
      .execute();
    return rows.map(toMemberOut);
  },
});
