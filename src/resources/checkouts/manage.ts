import type { z } from 'zod';
import { recordActivity } from '../../audit/activity.ts';
import { ApiError } from '../../core/errors.ts';
import type { CheckoutRow } from '../../db/schema.ts';
import { defineAction } from '../../verbs/action.ts';
import { assertRoutingServable } from '../providers/live.ts';
import { requireHttpsInLive } from '../shared/fields.ts';
import { createPricingTable, createWidget } from './create-in-dashboard.ts';
import { OptionsInput, PlansInput, pricingOf } from './plans.ts';
import { getCheckout } from './queries.ts';
import { CheckoutIdInput, CreateCheckoutInput, toCheckoutOut, type CheckoutOut } from './schemas.ts';

// What the spec leaves to the dashboard (spec 2.2): changing a checkout and deleting it. The slug
// stays whatever changes (buy buttons and links already point at it); a deleted checkout is
// deleted for good: it takes no new buyers, and nothing about it changes again. A pricing
// table's plans and options are replaced together, and its price follows its lowest plan price.

const fields = CreateCheckoutInput.shape;

export const UpdateCheckoutInput = CheckoutIdInput.extend({
  name: fields.name.optional(),
  description: fields.description,
  amount: fields.amount.optional(),
  currency: fields.currency.optional(),
  success_url: fields.success_url,
  theme: fields.theme.unwrap().optional(),
  button_label: fields.button_label,
  crypto: fields.crypto.unwrap().optional(),
  routing: fields.routing,
  collect: fields.collect,
  options: OptionsInput.optional(),
  plans: PlansInput.optional(),
});

type UpdateCheckoutInput = z.output<typeof UpdateCheckoutInput>;

/** A pricing table's new plans, options and price; nothing for other kinds, which have none. */
function pricingChanges(kind: CheckoutRow['kind'], input: UpdateCheckoutInput) {
  if (kind !== 'pricing_table') {
    if (input.plans !== undefined || input.options !== undefined) throw new ApiError('invalid_plans', 'Only a pricing table has plans and options.', 'plans');
    return {};
  }
  if (input.amount !== undefined) throw new ApiError('invalid_amount', 'A pricing table\'s price is its lowest plan price: change the plans.', 'amount');
  if (input.plans === undefined) {
    if (input.options !== undefined) throw new ApiError('invalid_plans', 'Send the plans with the options: each plan has one price per option.', 'plans');
    return {};
  }
  const { options, plans, amount } = pricingOf({ options: input.options ?? null, plans: input.plans });
  return { options: options ? JSON.stringify(options) : null, plans: JSON.stringify(plans), amount_minor: amount };
}

export const updateCheckout = defineAction({
  name: 'update_checkout',
  title: 'Change a checkout (its slug stays)',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: UpdateCheckoutInput,
  async run(ctx, input): Promise<CheckoutOut> {
    const { principal } = ctx;
    if (input.success_url !== undefined) requireHttpsInLive(principal.livemode, input.success_url, 'success_url');
    assertRoutingServable(principal.livemode, input.routing ?? undefined, ctx.config.providers);
    const now = ctx.clock.now();
    return ctx.db.transaction().execute(async (trx) => {
      const checkout = await getCheckout(trx, principal, input.id);
      if (!checkout.active) throw new ApiError('checkout_inactive', 'This checkout was deleted; it no longer changes.');
      const changes = {
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.description !== undefined ? { description: input.description?.trim() || null } : {}),
        ...(input.amount !== undefined ? { amount_minor: input.amount } : {}),
        ...(input.currency !== undefined ? { currency: input.currency } : {}),
        ...(input.success_url !== undefined ? { success_url: input.success_url ?? null } : {}),
        ...(input.theme !== undefined ? { theme: input.theme } : {}),
        ...(input.button_label !== undefined ? { button_label: input.button_label?.trim() || null } : {}),
        ...(input.crypto !== undefined ? { crypto: input.crypto } : {}),
        ...(input.routing !== undefined ? { routing: JSON.stringify(input.routing) } : {}),
        ...(input.collect !== undefined ? { collect: input.collect === null ? null : JSON.stringify(input.collect) } : {}),
        ...pricingChanges(checkout.kind, input),
      };
      const row = await trx.updateTable('checkouts').set({ ...changes, updated_at: now }).where('id', '=', checkout.id).returningAll().executeTakeFirstOrThrow();
      await recordActivity(trx, principal, 'checkout.updated', checkout.id, { changed: Object.keys(changes) }, now);
      return toCheckoutOut(row, ctx.config.baseUrl);
    });
  },
});

export const deleteCheckout = defineAction({
  name: 'delete_checkout',
  title: 'Delete a checkout for good (it takes no new buyers)',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: CheckoutIdInput,
  async run(ctx, input): Promise<CheckoutOut> {
    const { principal } = ctx;
    const now = ctx.clock.now();
    return ctx.db.transaction().execute(async (trx) => {
      const checkout = await getCheckout(trx, principal, input.id);
      if (!checkout.active) return toCheckoutOut(checkout, ctx.config.baseUrl);
      const row = await trx.updateTable('checkouts').set({ active: false, updated_at: now }).where('id', '=', checkout.id).returningAll().executeTakeFirstOrThrow();
      await recordActivity(trx, principal, 'checkout.deleted', checkout.id, {}, now);
      return toCheckoutOut(row, ctx.config.baseUrl);
    });
  },
});

export const checkoutActions = [createPricingTable, createWidget, updateCheckout, deleteCheckout];
