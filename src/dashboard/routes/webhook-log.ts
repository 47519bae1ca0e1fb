import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HOUR, parseMoment } from '../../core/clock.ts';
import { ApiError, RETRY_AFTER_SECONDS } from '../../core/errors.ts';
import { formField } from '../../core/form.ts';
import { listWebhookDeliveries } from '../../webhooks/log/list-deliveries.ts';
import { readWebhookDelivery } from '../../webhooks/log/read-delivery.ts';
import { resendWebhookDelivery } from '../../webhooks/log/resend.ts';
import { retryWebhookDelivery } from '../../webhooks/log/retry.ts';
import { sendTestWebhook } from '../../webhooks/log/send-test.ts';
import { listDeliveryReplays } from '../../webhooks/replays/list.ts';
import { replayFailedDeliveries } from '../../webhooks/replays/request.ts';
import { noticeOfPage } from '../notices.ts';
import { webhookDeliveryPage } from '../pages/webhooks/delivery.ts';
import { webhookEndpointPage, type ReplayForm, type SecretShown } from '../pages/webhooks/endpoint.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { inPersonsWords } from '../refusals.ts';
import { frameOf, redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import { sendPage } from './send.ts';

// An endpoint's page (its facts, delivery log and replays), a test event, one delivery with its
// attempts, retry now, resend, and replaying the failed deliveries since a chosen time.

// The dashboard's form: a day, or a day and a time to the minute, always UTC.
const MOMENT = /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?$/;

/** "Failed since" as typed: a day, or a day and a time (UTC), in Unix seconds. */
function sinceOf(text: string | undefined): number {
  const typed = text?.trim() ?? '';
  const at = MOMENT.test(typed) ? parseMoment(typed) : null;
  if (at === null) throw new ApiError('invalid_value', 'Failed since must be a day such as 2026-03-01, or a day and time such as 2026-03-01 14:30 (UTC).', 'since');
  return at / 1000;
}

/** What the replay form offers: a day ago, to the minute. */
function dayAgo(ctx: PersonContext): string {
  return new Date(ctx.clock.now().getTime() - 24 * HOUR).toISOString().slice(0, 16).replace('T', ' ');
}

export function registerWebhookLog(scope: FastifyInstance, requests: DashboardRequests): void {
  const params = (request: FastifyRequest) => request.params as { endpoint: string; delivery?: string };
  const pageOf = (ctx: PersonContext, id: string, rest = '') => objectPath(ctx.principal.businessId, 'webhooks', ctx.mode, id, rest);

  /** The endpoint's page: its log and replays, the replay form as given, a secret to show once, a test send refused. */
  async function endpointPage(request: FastifyRequest, ctx: PersonContext, replay: ReplayForm, secret?: SecretShown, testRefused?: string) {
    const id = params(request).endpoint;
    const [log, replays] = await Promise.all([listWebhookDeliveries.run(ctx, { id }), listDeliveryReplays.run(ctx, { id })]);
    const query = request.query as { saved?: unknown; replaying?: unknown };
    const notice = query.saved === '1' ? 'saved' as const : query.replaying === '1' ? 'replaying' as const : undefined;
    return webhookEndpointPage({ ...frameOf(ctx), endpoint: log.endpoint, deliveries: log.data, replays, replay,
      ...(secret ? { secret } : {}), ...(notice ? { notice } : {}), ...(testRefused ? { testRefused } : {}) });
  }

  scope.get(areaRoute('webhooks', '/:endpoint'), async (request, reply) => {
    const ctx = await requests.page(request);
    const shown = await noticeOfPage(request, ctx, 'webhooks');
    // A secret is shown on its own endpoint's page only, and no cache keeps that page.
    const secret = shown?.endpoint === params(request).endpoint ? shown : undefined;
    if (secret) reply.header('Cache-Control', 'no-store');
    return sendPage(reply, 200, await endpointPage(request, ctx, { since: dayAgo(ctx) }, secret), ctx.session);
  });

  scope.post(areaRoute('webhooks', '/:endpoint/replay'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const typed = formField(form, 'since') ?? '';
    try {
      await replayFailedDeliveries.run(ctx, { id: params(request).endpoint, since: sinceOf(typed) });
      return redirect(reply, `${pageOf(ctx, params(request).endpoint)}?replaying=1`);
    } catch (error) {
      // Nothing to replay, one still running, a time that is not one: said beside the field.
      if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 409)) throw error;
      return sendPage(reply, error.status, await endpointPage(request, ctx, { since: typed, error: inPersonsWords(error) }), ctx.session);
    }
  });

  scope.post(areaRoute('webhooks', '/:endpoint/test'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    try {
      const sent = await sendTestWebhook.run(ctx, { id: params(request).endpoint, type: formField(form, 'type') });
      return redirect(reply, `${pageOf(ctx, params(request).endpoint, `/deliveries/${encodeURIComponent(sent.delivery_id)}`)}?sent=1`);
    } catch (error) {
      // Past the endpoint's test events a minute: its page again, saying so beside the form.
      if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      return sendPage(reply, 429, await endpointPage(request, ctx, { since: dayAgo(ctx) }, undefined, error.message), ctx.session);
    }
  });

  scope.get(areaRoute('webhooks', '/:endpoint/deliveries/:delivery'), async (request, reply) => {
    const ctx = await requests.page(request);
    const detail = await readWebhookDelivery.run(ctx, { id: params(request).delivery });
    // A delivery is found under its own endpoint only.
    if (detail.endpoint.id !== params(request).endpoint) throw new ApiError('not_found', `No webhook delivery '${detail.delivery.id}' for this endpoint.`);
    return sendPage(reply, 200, webhookDeliveryPage({ ...frameOf(ctx), detail, sent: (request.query as { sent?: unknown }).sent === '1' }), ctx.session);
  });

  for (const [path, action] of [['retry', retryWebhookDelivery], ['resend', resendWebhookDelivery]] as const) {
    scope.post(areaRoute('webhooks', `/:endpoint/deliveries/:delivery/${path}`), async (request, reply) => {
      const { ctx } = await requests.form(request);
      const sent = await action.run(ctx, { id: params(request).delivery });
      return redirect(reply, `${pageOf(ctx, params(request).endpoint, `/deliveries/${encodeURIComponent(sent.delivery_id)}`)}?sent=1`);
    });
  }
}
