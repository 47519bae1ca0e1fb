import { z } from 'zod';
import { recordActivity } from '../../audit/activity.ts';
import { DAY } from '../../core/clock.ts';
import { randomBase62 } from '../../core/ids.ts';
import { coded } from '../../core/validation.ts';
import { defineAction } from '../../verbs/action.ts';
import { getWebhookEndpoint } from './queries.ts';
import { toWebhookEndpointOut, WebhookEndpointIdInput } from './schemas.ts';

/** The previous secret keeps signing this long after a roll that keeps it (spec 6.3). */
export const SECRET_OVERLAP_MS = DAY;

/**
 * Rolls the signing secret: at once (the old one signs nothing further), or keeping the previous
 * one for 24 hours, during which each request carries both signatures. Returns the new secret for
 * the dashboard to show once; the API never returns it.
 */
export const rollWebhookSecret = defineAction({
  name: 'roll_webhook_secret',
  title: 'Roll a webhook endpoint\'s signing secret',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: WebhookEndpointIdInput.extend({
    keep_previous: z.boolean(coded('invalid_value', 'keep_previous must be true or false.')).default(false),
  }),
  async run(ctx, input) {
    const { principal } = ctx;
    const endpoint = await getWebhookEndpoint(ctx.db, principal, input.id);
    const secret = `whsec_${randomBase62(32)}`;
    const now = ctx.clock.now();
    const previousExpiresAt = input.keep_previous ? new Date(now.getTime() + SECRET_OVERLAP_MS) : null;
    const updated = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('webhook_endpoints')
        .set((eb) => ({
          secret_encrypted: ctx.secrets.seal(secret),
          // The secret as the row holds it now, not as read before: two rolls at once keep the right one.
          previous_secret_encrypted: input.keep_previous ? eb.ref('secret_encrypted') : null,
          previous_secret_expires_at: previousExpiresAt,
        }))
        .where('id', '=', endpoint.id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return getWebhookEndpoint(trx, principal, input.id);
      await recordActivity(trx, principal, 'webhook_endpoint.secret_rolled', row.id, { keep_previous: input.keep_previous }, now);
      return row;
    });
    return { ...toWebhookEndpointOut(updated), secret };
  },
});
