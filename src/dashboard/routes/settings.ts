import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { formField, type Form } from '../../core/form.ts';
import { listAccountActivity } from '../../resources/businesses/activity.ts';
import { confirmPayoutWalletChange, readPayoutWalletChange, requestPayoutWalletChange } from '../../resources/businesses/payout-wallet.ts';
import { updateBusinessSettings } from '../../resources/businesses/update-settings.ts';
import { INTEGRATIONS } from '../../tenancy/businesses.ts';
import { payoutWalletConfirmPage } from '../pages/payout-wallet.ts';
import { settingsPage } from '../pages/settings.ts';
import { areaRoute, businessPath } from '../paths.ts';
import { frameOf, redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import { sendPage } from './send.ts';

/** The settings a form on the page changes, as the action's input: only what that form holds. */
function changesOf(form: Form): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const commerce = formField(form, 'commerce');
  if (commerce !== undefined) changes.commerce = commerce;
  const crypto = formField(form, 'crypto_enabled');
  if (crypto !== undefined) changes.crypto_enabled = crypto === 'on' ? true : crypto === 'off' ? false : crypto;
  if (formField(form, 'integrations') === 'set') {
    changes.enable = INTEGRATIONS.filter((name) => formField(form, `integration_${name}`) === 'on');
    changes.disable = INTEGRATIONS.filter((name) => formField(form, `integration_${name}`) !== 'on');
  }
  return changes;
}

/** The account's settings (its owners change them, in the action; the payout wallet after a confirmation) and its activity. */
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
    const wallet = formField(form, 'payout_wallet');
    try {
      // Where money goes changes only after a confirmation page (issue 21); the rest at once.
      if (wallet !== undefined) {
        const change = await requestPayoutWalletChange.run(ctx, { payout_wallet: wallet.trim() === '' ? null : wallet.trim() });
        return redirect(reply, confirmationPath(ctx, change.id));
      }
      await updateBusinessSettings.run(ctx, changesOf(form));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      const { page } = await render(ctx, undefined, 400, { error: { field: error.field, message: error.message } });
      return sendPage(reply, 400, page, ctx.session);
    }
    return redirect(reply, `${businessPath(ctx.principal.businessId, 'settings', ctx.mode)}?saved=1`);
  });

  const changeOf = (params: unknown) => (params as { change: string }).change;
  const signInAgain = (ctx: PersonContext, id: string) => `/dashboard/sign-in?next=${encodeURIComponent(confirmationPath(ctx, id))}`;

  scope.get(areaRoute('settings', '/payout-wallet/:change'), async (request, reply) => {
    const ctx = await requests.page(request);
    const change = await readPayoutWalletChange.run(ctx, { id: changeOf(request.params) });
    return sendPage(reply, 200, payoutWalletConfirmPage({ ...frameOf(ctx), change, signInAgain: signInAgain(ctx, change.id) }), ctx.session);
  });

  scope.post(areaRoute('settings', '/payout-wallet/:change'), async (request, reply) => {
    const { ctx } = await requests.form(request);
    const id = changeOf(request.params);
    try {
      await confirmPayoutWalletChange.run(ctx, { id });
    } catch (error) {
      // A sign-in too old to confirm with: sign in again, and come back to the confirmation.
      if (error instanceof ApiError && error.code === 'recent_sign_in_required') return redirect(reply, signInAgain(ctx, id));
      throw error;
    }
    return redirect(reply, `${businessPath(ctx.principal.businessId, 'settings', ctx.mode)}?saved=1`);
  });
}

/** The confirmation page of a payout wallet change. */
function confirmationPath(ctx: PersonContext, id: string): string {
  return `${businessPath(ctx.principal.businessId, 'settings', ctx.mode)}/payout-wallet/${id}`;
}
