import type { FastifyInstance } from 'fastify';
import { formField } from '../../core/form.ts';
import { createApiKey } from '../../resources/api-keys/create.ts';
import { listApiKeys } from '../../resources/api-keys/list.ts';
import { revokeApiKey } from '../../resources/api-keys/revoke.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { noticeForPage, noticeOfPage } from '../notices.ts';
import { keysPage } from '../pages/keys.ts';
import { businessPath } from '../paths.ts';
import { formRefusal } from '../refusals.ts';
import { frameOf, redirect, roleOf, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/**
 * The secret keys of a business in one mode: list, create, revoke. A new key's secret travels
 * from the create to the page its redirect opens as a sealed one-time notice: shown once, never
 * stored in the clear, never in a URL, and a reload creates nothing.
 */
export function registerKeys(scope: FastifyInstance, requests: DashboardRequests): void {
  const KEYS = '/dashboard/businesses/:business/:mode/keys';
  scope.get(KEYS, async (request, reply) => {
    const ctx = await requests.page(request);
    const created = await noticeOfPage(request, ctx, 'keys');
    // A page with a secret on it is kept by no cache (nor the back button's, where browsers honour it).
    if (created) reply.header('Cache-Control', 'no-store');
    return sendPage(reply, 200, keysPage({ ...frameOf(ctx), manages: atLeast(roleOf(ctx), 'developer'), keys: await listApiKeys.run(ctx, {}), ...(created ? { created } : {}) }), ctx.session);
  });
  scope.post(KEYS, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const typed = { name: formField(form, 'name') ?? '', access: formField(form, 'access') ?? '' };
    let key;
    try {
      key = await createApiKey.run(ctx, { name: formField(form, 'name'), access: formField(form, 'access') });
    } catch (error) {
      // Refused (a name too long, an unknown access): the page again, as typed, saying why.
      const { status, ...refusal } = formRefusal(error, ctx);
      const page = keysPage({ ...frameOf(ctx), manages: atLeast(roleOf(ctx), 'developer'), keys: await listApiKeys.run(ctx, {}), refused: { ...typed, error: refusal } });
      return sendPage(reply, status, page, ctx.session);
    }
    await noticeForPage(request, ctx, 'keys', { secret: key.secret, name: key.name });
    return redirect(reply, businessPath(ctx.principal.businessId, 'keys', ctx.mode));
  });
  scope.post(`${KEYS}/:key/revoke`, async (request, reply) => {
    const { ctx } = await requests.form(request);
    await revokeApiKey.run(ctx, { id: (request.params as { key: string }).key });
    return redirect(reply, businessPath(ctx.principal.businessId, 'keys', ctx.mode));
  });
}
