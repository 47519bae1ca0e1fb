import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { closeSession, cookieOptions, csrfMatches, openSession, safeNext, SESSION_TTL_MS, useSignInLink } from '../../auth/sessions.ts';
import { formField, type Form } from '../../core/form.ts';
import type { AppContext } from '../../verbs/context.ts';
import { OIDC_START_PATH, registerOidcSignIn } from '../oidc.ts';
import { messagePage } from '../pages/message.ts';
import { signInLinkPage } from '../pages/sign-in-link.ts';
import { signInPage } from '../pages/sign-in.ts';
import { redirect, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

const SIGN_IN_NONCE_COOKIE = 'ps_sign_in';
/** Where a sign-in link's button posts: the one form without a session (it carries its own nonce). */
export const SIGN_IN_LINK_PATH = '/dashboard/sign-in/link';

/** Signing in (single-use links from the CLI, or an OpenID provider) and out. */
export async function registerSignIn(scope: FastifyInstance, context: AppContext, requests: DashboardRequests, cookieName: string): Promise<void> {
  const { baseUrl } = context.config;

  scope.get('/dashboard/sign-in', async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next);
    const oidc = context.config.oidc ? { name: context.config.oidc.name, start: OIDC_START_PATH } : undefined;
    return sendPage(reply, 200, signInPage({ next, ...(oidc ? { oidc } : {}) }));
  });

  // The link only shows a button: mail scanners that open links must not use them up.
  scope.get(SIGN_IN_LINK_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const nonce = randomBytes(16).toString('base64url');
    reply.setCookie(SIGN_IN_NONCE_COOKIE, nonce, cookieOptions(baseUrl, 15 * 60));
    return sendPage(reply, 200, signInLinkPage({ token: typeof query.token === 'string' ? query.token : '', nonce, next: safeNext(query.next) }));
  });

  scope.post(SIGN_IN_LINK_PATH, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    if (!csrfMatches(request.cookies[SIGN_IN_NONCE_COOKIE] ?? '', form.nonce) || !request.cookies[SIGN_IN_NONCE_COOKIE]) {
      return sendPage(reply, 403, messagePage('Refused', 'Open the sign-in link again.'));
    }
    const id = await useSignInLink(context, formField(form, 'token') ?? '');
    if (!id) return sendPage(reply, 400, messagePage('This sign-in link is not valid', 'It was used already or has expired. Ask for a new one.'));
    reply.clearCookie(SIGN_IN_NONCE_COOKIE, cookieOptions(baseUrl, 0));
    reply.setCookie(cookieName, id, cookieOptions(baseUrl, SESSION_TTL_MS / 1000));
    return redirect(reply, safeNext(formField(form, 'next')));
  });

  await registerOidcSignIn(scope, context, {
    safeNext,
    async signedIn(reply, personId, next) {
      reply.setCookie(cookieName, await openSession(context, personId), cookieOptions(baseUrl, SESSION_TTL_MS / 1000));
      return redirect(reply, next);
    },
  });

  scope.post('/dashboard/sign-out', async (request, reply) => {
    await requests.posted(request);
    await closeSession(context, request.cookies[cookieName]);
    // Cleared with the attributes it was set with: browsers ignore a __Host- cookie cleared without Secure.
    reply.clearCookie(cookieName, cookieOptions(baseUrl, 0));
    return redirect(reply, '/dashboard/sign-in');
  });
}
