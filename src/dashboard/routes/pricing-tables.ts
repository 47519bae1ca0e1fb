import type { FastifyInstance, FastifyReply } from 'fastify';
import { createPricingTable } from '../../resources/checkouts/create-in-dashboard.ts';
import { updateCheckout } from '../../resources/checkouts/manage.ts';
import { CheckoutOut } from '../../resources/checkouts/schemas.ts';
import { PLAN_PARTS, PLAN_SLOTS, PRICING_FIELDS, pricingFormOf, pricingTableFormPage, type PricingForm } from '../pages/pricing-tables.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { formRefusal } from '../refusals.ts';
import { frameOf, redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import { inputOf, valuesOf } from './checkout-form.ts';
import { sendPage } from './send.ts';

// A pricing table in the dashboard: created (create_pricing_table) and changed (update_checkout)
// from one form with a fixed number of plan places; the actions check everything.

/** The form's plan places as the action's plans and options; `slots` says which place each plan came from. */
function pricingInputOf(values: PricingForm): { input: Record<string, unknown>; slots: number[] } {
  const text = (name: string) => values[name]?.trim() ?? '';
  const options = text('option_1') || text('option_2') ? [text('option_1'), text('option_2')] : null;
  const slots = PLAN_SLOTS.filter((slot) => PLAN_PARTS.some((part) => text(`plan_${slot}_${part}`) !== ''));
  const plans = slots.map((slot) => ({
    name: text(`plan_${slot}_name`),
    description: text(`plan_${slot}_description`) || null,
    prices: (options ? [1, 2] : [1]).map((side) => ({ amount: text(`plan_${slot}_price_${side}`), unit: text(`unit_${side}`) })),
    features: text(`plan_${slot}_features`).split(';').map((feature) => feature.trim()).filter((feature) => feature !== ''),
    recommended: values.recommended === String(slot),
  }));
  const { amount: _amount, ...settings } = inputOf(values);
  return { input: { ...settings, options, plans }, slots };
}

/** The form field beside which an action's refusal goes (`plans.1.prices.0.amount` → `plan_<place>_price_1`). */
export function formFieldOf(field: string | undefined, slots: number[]): string | undefined {
  const option = /^options(?:\.(\d))?/.exec(field ?? '');
  if (option) return `option_${Number(option[1] ?? 0) + 1}`;
  const plan = /^plans\.(\d+)(?:\.(\w+)(?:\.(\d+)(?:\.(\w+))?)?)?/.exec(field ?? '');
  if (!plan) return field;
  const slot = slots[Number(plan[1])];
  const [part, side, inner] = [plan[2], Number(plan[3] ?? 0) + 1, plan[4]];
  if (slot === undefined || part === undefined || part === 'recommended') return 'plans';
  if (part === 'prices') return inner === 'unit' ? `unit_${side}` : `plan_${slot}_price_${side}`;
  return `plan_${slot}_${part}`;
}

export function registerPricingTables(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const retrieveCheckout = operations.get('retrieve_checkout', CheckoutOut);
  const pathOf = (ctx: PersonContext, id: string) => objectPath(ctx.principal.businessId, 'checkouts', ctx.mode, id);
  const refused = (reply: FastifyReply, ctx: PersonContext, error: unknown, values: PricingForm, slots: number[], checkout?: CheckoutOut) => {
    const { status, ...refusal } = formRefusal(error, ctx);
    return sendPage(reply, status, pricingTableFormPage({ ...frameOf(ctx), ...(checkout ? { checkout } : {}), values, error: { ...refusal, field: formFieldOf(refusal.field, slots) } }), ctx.session);
  };

  scope.get(areaRoute('checkouts', '/new-pricing-table'), async (request, reply) => {
    const ctx = await requests.page(request);
    const values = { theme: 'light', crypto: 'on', routing_choice: 'smart', routing_fallback: 'on', unit_1: 'month' };
    return sendPage(reply, 200, pricingTableFormPage({ ...frameOf(ctx), values }), ctx.session);
  });

  scope.post(areaRoute('checkouts', '/pricing-tables'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const values = valuesOf(form, PRICING_FIELDS);
    const { input, slots } = pricingInputOf(values);
    try {
      const checkout = await createPricingTable.run(ctx, input);
      return redirect(reply, `${pathOf(ctx, checkout.id)}?done=created`);
    } catch (error) {
      return refused(reply, ctx, error, values, slots);
    }
  });

  scope.get(areaRoute('checkouts', '/:checkout/edit-pricing-table'), async (request, reply) => {
    const ctx = await requests.page(request);
    const checkout = await perform(ctx, retrieveCheckout, { id: (request.params as { checkout: string }).checkout });
    if (!checkout.active || checkout.kind !== 'pricing_table') return redirect(reply, pathOf(ctx, checkout.id));
    return sendPage(reply, 200, pricingTableFormPage({ ...frameOf(ctx), checkout, values: pricingFormOf(checkout) }), ctx.session);
  });

  scope.post(areaRoute('checkouts', '/:checkout/edit-pricing-table'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const id = (request.params as { checkout: string }).checkout;
    const values = valuesOf(form, PRICING_FIELDS);
    const { input, slots } = pricingInputOf(values);
    try {
      await updateCheckout.run(ctx, { id, ...input });
    } catch (error) {
      return refused(reply, ctx, error, values, slots, await perform(ctx, retrieveCheckout, { id }));
    }
    return redirect(reply, `${pathOf(ctx, id)}?done=saved`);
  });
}
