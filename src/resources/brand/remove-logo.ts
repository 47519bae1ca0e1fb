import { z } from 'zod';
import { recordActivity } from '../../audit/activity.ts';
import { defineAction } from '../../verbs/action.ts';

/** Removes the business's logo; its payer pages show the name alone again. */
export const removeBusinessLogo = defineAction({
  name: 'remove_business_logo',
  title: 'Remove the business\'s logo',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  input: z.object({}),
  async run(ctx) {
    const now = ctx.clock.now();
    return ctx.db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('business_logos').where('business_id', '=', ctx.principal.businessId).returning('sha256').executeTakeFirst();
      if (removed) await recordActivity(trx, ctx.principal, 'business.logo_removed', ctx.principal.businessId, { sha256: removed.sha256 }, now);
      return { removed: removed !== undefined };
    });
  },
});
