import type { OperationContext } from '../../verbs/context.ts';
import { newId, randomBase62 } from '../../core/ids.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import type { CheckoutRow } from '../../db/schema.ts';
import { requireHttpsInLive } from '../shared/fields.ts';
import { assertRoutingServable } from '../providers/live.ts';
import type { StoredPlan } from './plans.ts';
import { toCheckoutOut, type CheckoutOut, type CreateCheckoutInput } from './schemas.ts';

/** A readable, unguessable slug for buy buttons: the name in lowercase ASCII plus a random tail. */
export function makeSlug(name: string): string {
  const words = name.normalize('NFKD').replace(/[^\w\s-]/g, '').toLowerCase().trim().replace(/[\s_-]+/g, '-').slice(0, 40).replace(/-+$/, '');
  return `${words || 'checkout'}-${randomBase62(8).toLowerCase()}`;
}

/** What a checkout is made of besides its place (business, mode) and slug: the create input's fields, any kind. */
export type NewCheckout = Omit<CreateCheckoutInput, 'kind'> & { kind: CheckoutRow['kind']; options?: string[] | null; plans?: StoredPlan[] };

/** Creates a hosted checkout page in the caller's mode, with the dashboard's defaults. */
export async function createCheckout(ctx: OperationContext, input: CreateCheckoutInput): Promise<CheckoutOut> {
  return insertCheckout(ctx, input);
}

/** Writes a checkout of any kind (the API makes pages; the dashboard's actions also pricing tables and widgets). */
export async function insertCheckout(ctx: OperationContext, input: NewCheckout): Promise<CheckoutOut> {
  const { principal } = ctx;
  requireHttpsInLive(principal.livemode, input.success_url, 'success_url');
  assertCanTakePayments(principal, 'checkouts');
  assertRoutingServable(principal.livemode, input.routing, ctx.config.providers);
  const now = ctx.clock.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await ctx.db
        .insertInto('checkouts')
        .values({
          id: newId('chk'),
          business_id: principal.businessId,
          livemode: principal.livemode,
          kind: input.kind,
          slug: makeSlug(input.name),
          name: input.name,
          description: input.description ?? null,
          amount_minor: input.amount,
          currency: input.currency,
          success_url: input.success_url ?? null,
          theme: input.theme,
          button_label: input.button_label ?? null,
          crypto: input.crypto,
          routing: JSON.stringify(input.routing ?? { choice: 'smart', provider: null, fallback: false }),
          collect: input.collect ? JSON.stringify(input.collect) : null,
          options: input.options ? JSON.stringify(input.options) : null,
          plans: JSON.stringify(input.plans ?? []),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toCheckoutOut(row, ctx.config.baseUrl);
    } catch (error) {
      // A slug collision is astronomically rare; try a new tail a few times.
      if (attempt < 3 && isUniqueViolation(error, 'checkouts_slug_key')) continue;
      throw error;
    }
  }
}
