import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { csrfMatches, signedInRecently } from '../../auth/sessions.ts';
import { ApiError } from '../../core/errors.ts';
import { formField, type Form } from '../../core/form.ts';
import { listAccountActivity } from '../../resources/businesses/activity.ts';
import { readGoLiveChecklist } from '../../resources/businesses/go-live.ts';
import { confirmPayoutWalletChange } from '../../resources/businesses/confirm-wallet-change.ts';
import { readPayoutWalletChange } from '../../resources/businesses/read-wallet-change.ts';
import { requestPayoutWalletChange } from '../../resources/businesses/request-wallet-change.ts';
import { updateBusinessSettings } from '../../resources/businesses/update-settings.ts';
import { INTEGRATIONS } from '../../tenancy/businesses.ts';
import { MAX_LOGO_BYTES } from '../../resources/brand/logo-image.ts';
import { readBusinessBrand } from '../../resources/brand/read.ts';
import { removeBusinessLogo } from '../../resources/brand/remove-logo.ts';
import { setBusinessLogo } from '../../resources/brand/set-logo.ts';
import { PICKER_DEFAULT } from '../pages/settings-brand.ts';
import { PAYOUT_WALLET_STEP, payoutWalletConfirmPage } from '../pages/payout-wallet.ts';
import { settingsPage } from '../pages/settings.ts';
import { areaRoute, businessPath } from '../paths.ts';
import { formRefusal, inPersonsWords } from '../refusals.ts';
import { frameOf, redirect, Redirect, StaleForm, type DashboardRequests, type PersonContext } from '../requests.ts';
import { sendPage } from './send.ts';

/** The settings a form on the page changes, as the action's input: only what that form holds (the wallet has its own steps). */
function changesOf(form: Form): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const commerce = formField(form, 'commerce');
  if (commerce !== undefined) changes.commerce = commerce;
  const crypto = formField(form, 'crypto_enabled');
  if (crypto !== undefined) changes.crypto_enabled = crypto === 'on' ? true : crypto === 'off' ? false : crypto;
  const brandColor = brandColorOf(form);
  if (brandColor !== undefined) changes.brand_color = brandColor;
  if (formField(form, 'integrations') === 'set') {
    changes.enable = INTEGRATIONS.filter((name) => formField(form, `integration_${name}`) === 'on');
    changes.disable = INTEGRATIONS.filter((name) => formField(form, `integration_${name}`) !== 'on');
  }
  return changes;
}

/**
 * The brand colour the form asks for: its text when changed (empty: none), else the picker's when
 * moved (the page has no script to keep the two in step); undefined when the form has neither.
 */
function brandColorOf(form: Form): string | null | undefined {
  const typed = formField(form, 'brand_color');
  if (typed === undefined) return undefined;
  const was = formField(form, 'brand_color_was') ?? '';
  const picked = formField(form, 'brand_color_picker');
  const chosen = typed.trim() !== was.trim() ? typed : picked !== undefined && picked !== (was.trim().toLowerCase() || PICKER_DEFAULT) ? picked : typed;
  return chosen.trim() === '' ? null : chosen;
}

/** The logo form's address: multipart, taken by this route alone. */
export const LOGO_ROUTE = areaRoute('settings', '/logo');

/** The largest logo form read (a phone's photo), to say it is too large on the form itself. */
const MAX_LOGO_REQUEST_BYTES = 16 * 1024 * 1024;

/** A body sent as multipart/form-data (the logo form's). */
export const isMultipartBody = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';

/** A logo form's file, read by the multipart parser before the handler (and the CSRF check) runs. */
const uploads = new WeakMap<FastifyRequest, Buffer>();

/** A wallet as the form gives it: trimmed, empty for none. */
const walletOf = (value: string) => (value.trim() === '' ? null : value.trim());

/**
 * The account's settings (its owners change them, in the actions) and its activity. A new payout
 * wallet takes two steps: the settings form asks for it, its own page shows the old and new
 * address in full and confirms it, after a recent sign-in (else sign in again and come back).
 */
export function registerSettings(scope: FastifyInstance, requests: DashboardRequests): void {
  const render = async (ctx: PersonContext, before: unknown, status = 200, extra: { notice?: boolean; walletChanged?: boolean; error?: { field: string | undefined; message: string }; typedColor?: string | undefined } = {}) => {
    const activity = await listAccountActivity.run(ctx, before === undefined || before === '' ? {} : { before });
    const checklist = ctx.mode === 'live' ? await readGoLiveChecklist.run(ctx, {}) : undefined;
    const brand = await readBusinessBrand.run(ctx, {});
    return { status, page: settingsPage({ ...frameOf(ctx), account: ctx.principal.business, activity, brand, ...(checklist ? { checklist } : {}), ...extra }) };
  };
  const settingsOf = (ctx: PersonContext) => businessPath(ctx.principal.businessId, 'settings', ctx.mode);
  const confirmation = async (ctx: PersonContext, error?: string) => payoutWalletConfirmPage({
    ...frameOf(ctx), change: await readPayoutWalletChange.run(ctx, {}), recent: signedInRecently(ctx.session.signedInAt, ctx.clock.now()), ...(error ? { error } : {}),
  });

  scope.get(areaRoute('settings'), async (request, reply) => {
    const ctx = await requests.page(request);
    const query = request.query as { before?: unknown; saved?: unknown };
    const { status, page } = await render(ctx, query.before, 200, { notice: query.saved === '1', walletChanged: query.saved === 'wallet' });
    return sendPage(reply, status, page, ctx.session);
  });

  scope.post(areaRoute('settings'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const wallet = formField(form, 'payout_wallet');
    let asked = false;
    try {
      if (wallet !== undefined) asked = (await requestPayoutWalletChange.run(ctx, { payout_wallet: walletOf(wallet) })).pending;
      else await updateBusinessSettings.run(ctx, changesOf(form));
    } catch (error) {
      const { status, ...refusal } = formRefusal(error, ctx);
      const { page } = await render(ctx, undefined, status, { error: refusal, typedColor: formField(form, 'brand_color') });
      return sendPage(reply, status, page, ctx.session);
    }
    return redirect(reply, asked ? `${settingsOf(ctx)}${PAYOUT_WALLET_STEP}` : `${settingsOf(ctx)}?saved=1`);
  });

  // The logo: its own scope takes multipart (one file, read whole up to one byte past the limit,
  // so a larger one is refused in words, not cut); the form's CSRF field is checked as every form's.
  scope.register(async (logoScope) => {
    // Past the limit busboy reads on without keeping anything, so a big photo still gets the form
    // back saying so; a body past this is not read at all.
    logoScope.addHook('onRequest', async (request, reply) => {
      // (The remove button's form is form-encoded: small, and read under the body limit like every form.)
      if (request.method !== 'POST' || !isMultipartBody(request.headers['content-type'])) return;
      try {
        // Nothing of the body is read before its sender is known to be allowed (issue 31): a
        // signed-in person acting in this business, the form's token in its address (the body's is
        // checked again as every form's), whom the action's own role and account-state rules let upload.
        const ctx = await requests.page(request);
        if (!csrfMatches(ctx.session.csrfToken, (request.query as { csrf?: unknown }).csrf)) throw new StaleForm('Your session has ended or the form is stale.');
        setBusinessLogo.authorize(ctx);
        // Its length declared, as browsers declare a form's: a body sent in chunks has no cap to check.
        const length = request.headers['content-length'];
        if (length === undefined) throw new ApiError('length_required', 'Send the logo form with its length (Content-Length), as a browser does.');
        if (Number(length) > MAX_LOGO_REQUEST_BYTES) {
          throw new ApiError('payload_too_large', `The logo is far larger than ${MAX_LOGO_BYTES / 1024} KB. Save it smaller and upload it again.`);
        }
      } catch (refusal) {
        // Refused unread: the connection closes after the answer, so the rest of the body is never read (Node would read it to keep the connection).
        reply.header('connection', 'close');
        throw refusal;
      }
    });
    await logoScope.register(multipart, {
      attachFieldsToBody: 'keyValues',
      throwFileSizeLimit: false,
      limits: { fileSize: MAX_LOGO_BYTES + 1, files: 1, fields: 4, fieldSize: 1024, parts: 5, headerPairs: 20 },
      async onFile(part) {
        const chunks: Buffer[] = [];
        for await (const chunk of part.file) chunks.push(chunk as Buffer);
        uploads.set(this, Buffer.concat(chunks));
      },
    });
    // A body the multipart parser cannot read (no boundary, cut short, a malformed part) is the
    // sender's fault: 400 in the page's words, never a 500. What fails once the handler runs is the parent's to answer.
    const reached = new WeakSet<FastifyRequest>();
    logoScope.setErrorHandler(async (error, request, reply) => {
      if (reached.has(request) || error instanceof ApiError || error instanceof StaleForm || error instanceof Redirect) throw error;
      reply.header('connection', 'close');
      throw new ApiError('invalid_request', 'The logo form could not be read. Choose the file and upload it again.');
    });
    logoScope.post(LOGO_ROUTE, async (request, reply) => {
      reached.add(request);
      const { ctx, form } = await requests.form(request);
      try {
        if (formField(form, 'remove') === 'logo') await removeBusinessLogo.run(ctx, {});
        else await setBusinessLogo.run(ctx, { logo: uploads.get(request) ?? new Uint8Array() });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 400) throw error;
        const { page } = await render(ctx, undefined, 400, { error: { field: error.field, message: error.message } });
        return sendPage(reply, 400, page, ctx.session);
      }
      return redirect(reply, `${settingsOf(ctx)}?saved=1`);
    });
  });

  scope.get(areaRoute('settings', PAYOUT_WALLET_STEP), async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, await confirmation(ctx), ctx.session);
  });

  scope.post(areaRoute('settings', PAYOUT_WALLET_STEP), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const step = `${settingsOf(ctx)}${PAYOUT_WALLET_STEP}`;
    // The action refuses an old sign-in anyway; here the person is sent to sign in again and
    // back to this step, where the change still waits for their click.
    if (!signedInRecently(ctx.session.signedInAt, ctx.clock.now())) return redirect(reply, `/dashboard/sign-in?next=${encodeURIComponent(step)}&again=1`);
    try {
      await confirmPayoutWalletChange.run(ctx, { payout_wallet: walletOf(formField(form, 'payout_wallet') ?? '') });
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 400 && error.code !== 'invalid_state')) throw error;
      return sendPage(reply, error.status, await confirmation(ctx, inPersonsWords(error)), ctx.session);
    }
    return redirect(reply, `${settingsOf(ctx)}?saved=wallet`);
  });
}
