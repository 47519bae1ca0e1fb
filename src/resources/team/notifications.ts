import { z } from 'zod';
import type { OperationContext } from '../../verbs/context.ts';
import { coded } from '../../core/validation.ts';
import { defineAction } from '../../verbs/action.ts';

// Each person's own choice of the mail they get about a business (migration 0034): today, the
// mail of a held payment that needs them (owners and developers get it unless they turn it
// off). Whoever is signed in reads and changes only their own; the payment's move reads it
// when it writes the mail (resources/payments/mail.ts).

export interface NotificationPreferencesOut {
  object: 'notification_preferences';
  /** Whether this person gets a mail when a payment of the business is held (only owners and developers are sent it). */
  held_payment_mail: boolean;
  /** Whether their role is sent held-payment mail at all. */
  role_receives: boolean;
}

export const SetNotificationPreferencesInput = z.object({
  held_payment_mail: z.boolean(coded('invalid_value', 'held_payment_mail must be true or false.')),
});

function personOf(ctx: OperationContext): string {
  const { actor } = ctx.principal;
  // peopleOnly has refused anyone else already; this tells TypeScript the actor is a person.
  if (actor.kind !== 'person') throw new Error('Notification preferences belong to a person.');
  return actor.personId;
}

async function read(ctx: OperationContext, personId: string): Promise<NotificationPreferencesOut> {
  const row = await ctx.db.selectFrom('notification_preferences').select('held_payment_mail')
    .where('business_id', '=', ctx.principal.businessId).where('person_id', '=', personId).executeTakeFirst();
  const { actor } = ctx.principal;
  return { object: 'notification_preferences', held_payment_mail: row?.held_payment_mail ?? true, role_receives: actor.kind === 'person' && actor.role !== 'viewer' };
}

export const readNotificationPreferences = defineAction({
  name: 'read_notification_preferences',
  title: 'Read your own mail preferences for this business',
  role: 'viewer',
  modeScoped: false,
  effect: 'reads',
  peopleOnly: true,
  input: z.object({}),
  run: (ctx) => read(ctx, personOf(ctx)),
});

export const setNotificationPreferences = defineAction({
  name: 'set_notification_preferences',
  title: 'Turn your own held-payment mail for this business on or off',
  role: 'developer',
  modeScoped: false,
  effect: 'changes',
  peopleOnly: true,
  input: SetNotificationPreferencesInput,
  async run(ctx, input) {
    const personId = personOf(ctx);
    await ctx.db.insertInto('notification_preferences')
      .values({ person_id: personId, business_id: ctx.principal.businessId, held_payment_mail: input.held_payment_mail, updated_at: ctx.clock.now() })
      .onConflict((conflict) => conflict.columns(['business_id', 'person_id']).doUpdateSet({ held_payment_mail: input.held_payment_mail, updated_at: ctx.clock.now() }))
      .execute();
    return read(ctx, personId);
  },
});
