import type { FastifyInstance, FastifyReply } from 'fastify';
import { formField, type Form } from '../../core/form.ts';
import { createWidget } from '../../resources/checkouts/create-in-dashboard.ts';
import { deleteCheckout, updateCheckout } from '../../resources/checkouts/manage.ts';
import { CheckoutList, CheckoutOut } from '../../resources/checkouts/schemas.ts';
import { cursorOf, filtersOf, given, readFiltered } from '../filters.ts';
import { CHECKOUT_FIELDS, checkoutDeletePage, checkoutFormPage, checkoutPage, checkoutsPage, formOf, type CheckoutForm, type CheckoutNotice } from '../pages/checkouts.ts';
import { COLLECT_BOXES } from '../pages/payment-links.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { formRefusal } from '../refusals.ts';
import { frameOf, redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import { registerPricingTables } from './pricing-tables.ts';
import { inputOf, valuesOf } from './checkout-form.ts';
import { sendPage } from './send.ts';

const NOTICES: Record<string, CheckoutNotice> = { created: 'created', saved: 'saved' };

const NEW_VALUES: CheckoutForm = { theme: 'light', crypto: 'on', routing_choice: 'smart', routing_fallback: 'on' };

/** Checkouts: the list by kind, a new checkout page, widget or pricing table, change (the slug stays), delete for good, the buy-button snippet. */
export function registerCheckouts(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const listCheckouts = operations.get('list_checkouts', CheckoutList);
  const createCheckout = operations.get('create_checkout', CheckoutOut);
  const retrieveCheckout = operations.get('retrieve_checkout', CheckoutOut);
  const idOf = (params: unknown) => (params as { checkout: string }).checkout;
  const pathOf = (ctx: PersonContext, id: string) => objectPath(ctx.principal.businessId, 'checkouts', ctx.mode, id);
  /** Refused: the form again, as typed, saying how to fix it (roles and limits: the error page). */
  const refusedForm = (reply: FastifyReply, ctx: PersonContext, error: unknown, values: CheckoutForm, checkout?: CheckoutOut, kind?: 'widget') => {
    const { status, ...refusal } = formRefusal(error, ctx);
    return sendPage(reply, status, checkoutFormPage({ ...frameOf(ctx), ...(checkout ? { checkout } : {}), ...(kind ? { kind } : {}), values, error: refusal }), ctx.session);
  };
  registerPricingTables(scope, requests, operations);

  scope.get(areaRoute('checkouts'), async (request, reply) => {
    const ctx = await requests.page(request);
    const filters = filtersOf(request.query, ['kind']);
    const startingAfter = cursorOf(request.query);
    const { list: checkouts, refused, status } = await readFiltered(() => perform(ctx, listCheckouts, { ...given(filters, ['kind']), ...(startingAfter ? { starting_after: startingAfter } : {}) }));
    return sendPage(reply, status, checkoutsPage({ ...frameOf(ctx), checkouts, filters, later: startingAfter !== undefined, refused }), ctx.session);
  });

  scope.get(areaRoute('checkouts', '/new'), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, checkoutFormPage({ ...frameOf(ctx), values: NEW_VALUES }), ctx.session);
  });

  // A widget (dashboard only, spec 2.2): a checkout made for its buy button, through its own action.
  scope.get(areaRoute('checkouts', '/new-widget'), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, checkoutFormPage({ ...frameOf(ctx), kind: 'widget', values: NEW_VALUES }), ctx.session);
  });

  scope.post(areaRoute('checkouts', '/widgets'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const values = valuesOf(form);
    try {
      const checkout = await createWidget.run(ctx, inputOf(values));
      return redirect(reply, `${pathOf(ctx, checkout.id)}?done=created`);
    } catch (error) {
      return refusedForm(reply, ctx, error, values, undefined, 'widget');
    }
  });

  scope.post(areaRoute('checkouts'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const values = valuesOf(form);
    try {
      const checkout = await perform(ctx, createCheckout, inputOf(values));
      return redirect(reply, `${pathOf(ctx, checkout.id)}?done=created`);
    } catch (error) {
      return refusedForm(reply, ctx, error, values);
    }
  });

  scope.get(areaRoute('checkouts', '/:checkout'), async (request, reply) => {
    const ctx = await requests.page(request);
    const checkout = await perform(ctx, retrieveCheckout, { id: idOf(request.params) });
    const notice = NOTICES[String((request.query as { done?: unknown }).done)];
    return sendPage(reply, 200, checkoutPage({ ...frameOf(ctx), checkout, ...(notice ? { notice } : {}) }), ctx.session);
  });

  scope.get(areaRoute('checkouts', '/:checkout/edit'), async (request, reply) => {
    const ctx = await requests.page(request);
    const checkout = await perform(ctx, retrieveCheckout, { id: idOf(request.params) });
    if (!checkout.active) return redirect(reply, pathOf(ctx, checkout.id));
    if (checkout.kind === 'pricing_table') return redirect(reply, `${pathOf(ctx, checkout.id)}/edit-pricing-table`);
    return sendPage(reply, 200, checkoutFormPage({ ...frameOf(ctx), checkout, values: formOf(checkout) }), ctx.session);
  });

  scope.post(areaRoute('checkouts', '/:checkout/edit'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const id = idOf(request.params);
    const values = valuesOf(form);
    try {
      await updateCheckout.run(ctx, { id, ...inputOf(values) });
    } catch (error) {
      const checkout = await perform(ctx, retrieveCheckout, { id });
      return refusedForm(reply, ctx, error, values, checkout);
    }
    return redirect(reply, `${pathOf(ctx, id)}?done=saved`);
  });

  scope.get(areaRoute('checkouts', '/:checkout/delete'), async (request, reply) => {
    const ctx = await requests.page(request);
    const checkout = await perform(ctx, retrieveCheckout, { id: idOf(request.params) });
    if (!checkout.active) return redirect(reply, pathOf(ctx, checkout.id));
    return sendPage(reply, 200, checkoutDeletePage({ ...frameOf(ctx), checkout }), ctx.session);
  });

  scope.post(areaRoute('checkouts', '/:checkout/delete'), async (request, reply) => {
    const { ctx } = await requests.form(request);
    const checkout = await deleteCheckout.run(ctx, { id: idOf(request.params) });
    return redirect(reply, pathOf(ctx, checkout.id));
  });
}
