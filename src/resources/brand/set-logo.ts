import { createHash } from 'node:crypto';
import { z } from 'zod';
import { recordActivity } from '../../audit/activity.ts';
import { coded } from '../../core/validation.ts';
import { defineAction } from '../../verbs/action.ts';
import { readLogoImage } from './logo-image.ts';
import { logoPath } from './queries.ts';

export const SetLogoInput = z.object({
  logo: z.instanceof(Uint8Array, coded('invalid_logo', 'Choose an image file for the logo.')),
});

/** Replaces the business's logo (the same in both modes), after reading what the bytes are; the owners' setting, as the others. */
export const setBusinessLogo = defineAction({
  name: 'set_business_logo',
  title: 'Upload the business\'s logo',
  role: 'owner',
  modeScoped: false,
  effect: 'changes',
  input: SetLogoInput,
  async run(ctx, { logo }) {
    const image = readLogoImage(logo);
    const content = Buffer.from(logo);
    const sha256 = createHash('sha256').update(content).digest('hex');
    const now = ctx.clock.now();
    const row = { content_type: image.contentType, byte_size: content.length, sha256, width: image.width, height: image.height };
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('business_logos').values({ business_id: ctx.principal.businessId, ...row, content, created_at: now })
        .onConflict((conflict) => conflict.column('business_id').doUpdateSet({ ...row, content, created_at: now })).execute();
      await recordActivity(trx, ctx.principal, 'business.logo_set', ctx.principal.businessId, row, now);
    });
    return { ...row, path: logoPath(ctx.principal.businessId, sha256) };
  },
});
