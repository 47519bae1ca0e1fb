import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { formField, type Form } from '../../core/form.ts';
import { listAccountActivity } from '../../resources/businesses/activity.ts';
import { updateBusinessSettings } from '../../resources/businesses/update-settings.ts';
import { INTEGRATIONS } from '../../tenancy/businesses.ts';
import { settingsPage } from '../pages/settings.ts';
import { areaRoute, businessPath } from '../paths.ts';
import { frameOf, redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import { sendPage } from './send.ts';

/** The settings a form on the page changes, as the action's input: only what that form holds. */
function changesOf(form: Form): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const commerce = formField(form, 'commerce');
  if (commerce !== undefined) changes.commerce = commerce;
  const wallet = formField(form, 'payout_wallet');
  if (wallet !== undefined) changes.payout_wallet = wallet.trim() === '' ? null : wallet.trim();
  const crypto = formField(form, 'crypto_enabled');
  if (crypto !== undefined) changes.crypto_enabled = crypto === 'on' ? true : crypto === 'off' ? false : crypto;
  if (formField(form, 'integrations') === 'set') {
    changes.enable = INTEGRATIONS.filter((name) => formField(form, `integration_${name}`) === 'on');
    changes.disable = INTEGRATIONS.filter((name) => formField(form, `integration_${name}`) !== 'on');
  }
  return changes;
}

/** The account's settings (its owners change them, in the action) and its activity. */
export function registerSettings(scope: FastifyInstance, requests: DashboardRequests): void {
  const render = async (ctx: PersonContext, before: unknown, status = 200, extra: { notice?: boolean; error?: { field: string | undefined; message: string } } = {}) => {
    const activity = await listAccountActivity.run(ctx, before === undefined || before === '' ? {} : { before });
    return { status, page: settingsPage({ ...frameOf(ctx), account: ctx.principal.business, activity, ...extra }) };
  };

  scope.get(areaRoute('settings'), async (request, reply) => {
    const ctx = await requests.page(request);
    const query = request.query as { before?: unknown; saved?: unknown };
    const { status, page } = await render(ctx, query.before, 200, { notice: query.saved === '1' });
    return sendPage(reply, status, page, ctx.session);
  });

  scope.post(areaRoute('settings'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    try {
      await updateBusinessSettings.run(ctx, changesOf(form));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      const { page } = await render(ctx, undefined, 400, { error: { field: error.field, message: error.message } });
      return sendPage(reply, 400, page, ctx.session);
    }
    return redirect(reply, `${businessPath(ctx.principal.businessId, 'settings', ctx.mode)}?saved=1`);
  });
}
