import type { FastifyInstance } from 'fastify';
import type { VNode } from 'preact';
import { formField, type Form } from '../../core/form.ts';
import { PAYMENT_EVENT_TYPES } from '../../events/types.ts';
import { readWebhookEndpoints } from '../../resources/webhook-endpoints/overview.ts';
import { rollWebhookSecret } from '../../resources/webhook-endpoints/roll-secret.ts';
import { CreatedWebhookEndpointOut, DeletedWebhookEndpointOut, WebhookEndpointOut } from '../../resources/webhook-endpoints/schemas.ts';
import { updateWebhookEndpoint } from '../../resources/webhook-endpoints/update.ts';
import { noticeForPage } from '../notices.ts';
import { webhookEditPage, webhookNewPage, type EndpointForm } from '../pages/webhooks/endpoint-form.ts';
import { formRefusal } from '../refusals.ts';
import { webhooksPage } from '../pages/webhooks/endpoints.ts';
import { managesEndpoints } from '../pages/webhooks/facts.ts';
import { webhookRemovePage } from '../pages/webhooks/remove.ts';
import { webhookRollPage } from '../pages/webhooks/roll.ts';
import { areaRoute, businessPath, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { frameOf, Redirect, redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import { registerWebhookLog } from './webhook-log.ts';
import { sendPage } from './send.ts';

/** The endpoint form as typed: the event types are boxes, each its own field. */
function typed(form: Form): EndpointForm {
  return { url: formField(form, 'url')?.trim() ?? '', description: formField(form, 'description')?.trim() ?? '', events: PAYMENT_EVENT_TYPES.filter((type) => formField(form, type) === 'on') };
}

/**
 * The webhooks area (spec 6.3 rule 7): the endpoints of a mode, adding one (its secret shown
 * once), editing, rolling the secret, removing after a confirmation step; the endpoint's own
 * page and its delivery log are in webhook-log.ts. Endpoints are added and removed through the
 * API's operations, edited and rolled through actions; the role is decided there.
 */
export function registerWebhooks(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const createEndpoint = operations.get('create_webhook_endpoint', CreatedWebhookEndpointOut);
  const retrieveEndpoint = operations.get('retrieve_webhook_endpoint', WebhookEndpointOut);
  const deleteEndpoint = operations.get('delete_webhook_endpoint', DeletedWebhookEndpointOut);
  const idOf = (params: unknown) => (params as { endpoint: string }).endpoint;
  const pageOf = (ctx: PersonContext, id: string, rest = '') => objectPath(ctx.principal.businessId, 'webhooks', ctx.mode, id, rest);
  const endpointOf = (ctx: PersonContext, params: unknown) => perform(ctx, retrieveEndpoint, { id: idOf(params) });
  /** A form page for those who manage endpoints; anyone else sees the endpoint as it is. */
  const formPage = async (ctx: PersonContext, params: unknown, page: (endpoint: WebhookEndpointOut) => VNode) => {
    const endpoint = await endpointOf(ctx, params);
    if (!managesEndpoints(frameOf(ctx).role)) throw new Redirect(pageOf(ctx, endpoint.id));
    return page(endpoint);
  };

  scope.get(areaRoute('webhooks'), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, webhooksPage({ ...frameOf(ctx), ...await readWebhookEndpoints.run(ctx, {}) }), ctx.session);
  });

  scope.get(areaRoute('webhooks', '/new'), async (request, reply) => {
    const ctx = await requests.page(request);
    if (!managesEndpoints(frameOf(ctx).role)) return redirect(reply, businessPath(ctx.principal.businessId, 'webhooks', ctx.mode));
    return sendPage(reply, 200, webhookNewPage(frameOf(ctx)), ctx.session);
  });

  scope.post(areaRoute('webhooks'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const values = typed(form);
    try {
      const created = await perform(ctx, createEndpoint, { url: values.url, events: values.events, ...(values.description ? { description: values.description } : {}) });
      await noticeForPage(request, ctx, 'webhooks', { endpoint: created.id, secret: created.secret, rolled: false, previous_until: null });
      return redirect(reply, pageOf(ctx, created.id));
    } catch (error) {
      const { status, ...refused } = formRefusal(error, ctx);
      return sendPage(reply, status, webhookNewPage({ ...frameOf(ctx), values, error: refused }), ctx.session);
    }
  });

  scope.get(areaRoute('webhooks', '/:endpoint/edit'), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, await formPage(ctx, request.params, (endpoint) => webhookEditPage({ ...frameOf(ctx), endpoint })), ctx.session);
  });

  scope.post(areaRoute('webhooks', '/:endpoint/edit'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const values = typed(form);
    try {
      // An emptied description is none.
      await updateWebhookEndpoint.run(ctx, { id: idOf(request.params), url: values.url, events: values.events, description: values.description || null });
      return redirect(reply, `${pageOf(ctx, idOf(request.params))}?saved=1`);
    } catch (error) {
      const { status, ...refused } = formRefusal(error, ctx);
      return sendPage(reply, status, webhookEditPage({ ...frameOf(ctx), endpoint: await endpointOf(ctx, request.params), values, error: refused }), ctx.session);
    }
  });

  scope.get(areaRoute('webhooks', '/:endpoint/roll'), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, await formPage(ctx, request.params, (endpoint) => webhookRollPage({ ...frameOf(ctx), endpoint })), ctx.session);
  });

  scope.post(areaRoute('webhooks', '/:endpoint/roll'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const choice = formField(form, 'keep_previous');
    // Anything but the two choices goes on as typed, for the action to refuse.
    const keepPrevious = choice === 'yes' ? true : choice === 'no' || choice === undefined ? false : choice;
    const rolled = await rollWebhookSecret.run(ctx, { id: idOf(request.params), keep_previous: keepPrevious });
    await noticeForPage(request, ctx, 'webhooks', { endpoint: rolled.id, secret: rolled.secret, rolled: true, previous_until: rolled.previous_secret_expires_at });
    return redirect(reply, pageOf(ctx, rolled.id));
  });

  scope.get(areaRoute('webhooks', '/:endpoint/remove'), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, await formPage(ctx, request.params, (endpoint) => webhookRemovePage({ ...frameOf(ctx), endpoint })), ctx.session);
  });

  scope.post(areaRoute('webhooks', '/:endpoint/remove'), async (request, reply) => {
    const { ctx } = await requests.form(request);
    const removed = await perform(ctx, deleteEndpoint, { id: idOf(request.params) });
    return redirect(reply, pageOf(ctx, removed.id));
  });

  registerWebhookLog(scope, requests);
}
