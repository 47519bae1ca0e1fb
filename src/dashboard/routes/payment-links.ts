import type { FastifyInstance } from 'fastify';
import { formField } from '../../core/form.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { PaymentLinkList, PaymentLinkOut } from '../../resources/payment-links/schemas.ts';
import { createdRangeOf, cursorOf, filtersOf, given, readFiltered } from '../filters.ts';
import { COLLECT_BOXES, LINK_FIELDS, LINK_FILTERS, paymentLinkCancelPage, paymentLinkNewPage, paymentLinkPage, paymentLinksPage, type LinkForm } from '../pages/payment-links.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { formRefusal } from '../refusals.ts';
import { frameOf, redirect, roleOf, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** The create form's values as the API's input: empty fields left out, the days a number, the ticked boxes as collect. */
function createInput(values: LinkForm): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of LINK_FIELDS) {
    const value = values[name]?.trim();
    if (value) input[name] = value;
  }
  // The API takes the days as a JSON number; what is not a whole number goes on as typed, to be refused by its rule.
  if (typeof input.expires_in_days === 'string' && /^\d{1,3}$/.test(input.expires_in_days)) input.expires_in_days = Number(input.expires_in_days);
  const collect = Object.fromEntries(COLLECT_BOXES.filter((box) => values[box.name] === 'on').map((box) => [box.name.replace(/^collect_/, ''), true]));
  if (Object.keys(collect).length > 0) input.collect = collect;
  return input;
}

/** Payment links: the list, create (every rule and message of the API's create), one link, cancel. */
export function registerPaymentLinks(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const listLinks = operations.get('list_payment_links', PaymentLinkList);
  const createLink = operations.get('create_payment_link', PaymentLinkOut);
  const retrieveLink = operations.get('retrieve_payment_link', PaymentLinkOut);
  const cancelLink = operations.get('cancel_payment_link', PaymentLinkOut);
  const idOf = (params: unknown) => (params as { link: string }).link;

  scope.get(areaRoute('payment_links'), async (request, reply) => {
    const ctx = await requests.page(request);
    const filters = filtersOf(request.query, LINK_FILTERS);
    const startingAfter = cursorOf(request.query);
    const { list: links, refused, status } = await readFiltered(() => perform(ctx, listLinks, {
      ...given(filters, ['status', 'reference']), ...createdRangeOf(filters), ...(startingAfter ? { starting_after: startingAfter } : {}),
    }));
    return sendPage(reply, status, paymentLinksPage({ ...frameOf(ctx), links, filters, later: startingAfter !== undefined, refused }), ctx.session);
  });

  scope.get(areaRoute('payment_links', '/new'), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, paymentLinkNewPage(frameOf(ctx)), ctx.session);
  });

  scope.post(areaRoute('payment_links'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const values: LinkForm = {};
    for (const name of [...LINK_FIELDS, ...COLLECT_BOXES.map((box) => box.name)]) {
      const value = formField(form, name);
      if (value !== undefined) values[name] = value;
    }
    try {
      const link = await perform(ctx, createLink, createInput(values));
      // Answered by a redirect: a reload shows the link, it does not make another.
      return redirect(reply, `${objectPath(ctx.principal.businessId, 'payment_links', ctx.mode, link.id)}?created=1`);
    } catch (error) {
      // Refused: the form again, as typed, saying how to fix it (roles and limits: the error page).
      const { status, ...refusal } = formRefusal(error, ctx);
      return sendPage(reply, status, paymentLinkNewPage({ ...frameOf(ctx), values, error: refusal }), ctx.session);
    }
  });

  scope.get(areaRoute('payment_links', '/:link'), async (request, reply) => {
    const ctx = await requests.page(request);
    const link = await perform(ctx, retrieveLink, { id: idOf(request.params) });
    const query = request.query as { created?: unknown; canceled?: unknown };
    const notice = query.created === '1' ? 'created' : query.canceled === '1' && link.canceled_at !== null ? 'canceled' : undefined;
    return sendPage(reply, 200, paymentLinkPage({ ...frameOf(ctx), link, ...(notice ? { notice } : {}) }), ctx.session);
  });

  scope.get(areaRoute('payment_links', '/:link/cancel'), async (request, reply) => {
    const ctx = await requests.page(request);
    const link = await perform(ctx, retrieveLink, { id: idOf(request.params) });
    // Nothing to confirm (paid, expired or canceled already, or not for this person): the link as it is.
    if (!atLeast(roleOf(ctx), 'developer') || link.status !== 'open' || link.canceled_at !== null) return redirect(reply, objectPath(ctx.principal.businessId, 'payment_links', ctx.mode, link.id));
    return sendPage(reply, 200, paymentLinkCancelPage({ ...frameOf(ctx), link }), ctx.session);
  });

  scope.post(areaRoute('payment_links', '/:link/cancel'), async (request, reply) => {
    const { ctx } = await requests.form(request);
    const link = await perform(ctx, cancelLink, { id: idOf(request.params) });
    return redirect(reply, `${objectPath(ctx.principal.businessId, 'payment_links', ctx.mode, link.id)}?canceled=1`);
  });
}
