import { z } from 'zod';
import type { LogoContentType } from '../../db/schema.ts';
import { defineAction } from '../../verbs/action.ts';
import { logoPath } from './queries.ts';

export interface BrandOut {
  color: string | null;
  logo: { path: string; content_type: LogoContentType; byte_size: number; width: number; height: number } | null;
}

/** The business's brand as its settings show it: the colour and what is known of the logo (not its bytes). */
export const readBusinessBrand = defineAction({
  name: 'read_business_brand',
  title: 'Read the business\'s brand colour and logo',
  role: 'viewer',
  modeScoped: false,
  effect: 'reads',
  input: z.object({}),
  async run(ctx): Promise<BrandOut> {
    const row = await ctx.db.selectFrom('businesses as b').leftJoin('business_logos as l', 'l.business_id', 'b.id')
      .select(['b.brand_color', 'l.sha256', 'l.content_type', 'l.byte_size', 'l.width', 'l.height'])
      .where('b.id', '=', ctx.principal.businessId).executeTakeFirstOrThrow();
    const logo = row.sha256 === null || row.content_type === null || row.byte_size === null || row.width === null || row.height === null ? null
      : { path: logoPath(ctx.principal.businessId, row.sha256), content_type: row.content_type, byte_size: row.byte_size, width: row.width, height: row.height };
    return { color: row.brand_color, logo };
  },
});
