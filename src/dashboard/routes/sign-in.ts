import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { closeSession, cookieOptions, csrfMatches, openSession, safeNext, SESSION_TTL_MS, useSignInLink } from '../../auth/sessions.ts';
import { mailSignInLink } from '../../auth/sign-in-mail.ts';
import { MINUTE } from '../../core/clock.ts';
import { RETRY_AFTER_SECONDS } from '../../core/errors.ts';
import { formField, type Form } from '../../core/form.ts';
import { WindowCounter } from '../../core/rate-limiter.ts';
import type { AppContext } from '../../verbs/context.ts';
import { OIDC_START_PATH, registerOidcSignIn } from '../oidc.ts';
import { messagePage } from '../pages/message.ts';
import { signInLinkPage } from '../pages/sign-in-link.ts';
import { signInMailSentPage } from '../pages/sign-in-mail-sent.ts';
import { signInPage } from '../pages/sign-in.ts';
import { redirect, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

const SIGN_IN_NONCE_COOKIE = 'ps_sign_in';
/**
 * The one path whose forms come before a session, each carrying its own nonce: a sign-in link's
 * button (`token`), and the sign-in page's "email me a sign-in link" (`email`).
 */
export const SIGN_IN_LINK_PATH = '/dashboard/sign-in/link';
const EMAIL = /^[^@\s]{1,64}@[^@\s]{1,253}$/;

/** Signing in (single-use links from the CLI or by email, or an OpenID provider) and out. */
export async function registerSignIn(scope: FastifyInstance, context: AppContext, requests: DashboardRequests, cookieName: string): Promise<void> {
  const { baseUrl } = context.config;
  const mails = context.config.mail.smtpUrl !== undefined;
  const oidc = context.config.oidc ? { oidc: { name: context.config.oidc.name, start: OIDC_START_PATH } } : {};
  /** A fresh nonce for a form posted before there is a session, in its cookie. */
  const nonceFor = (reply: FastifyReply, maxAgeSeconds: number) => {
    const nonce = randomBytes(16).toString('base64url');
    reply.setCookie(SIGN_IN_NONCE_COOKIE, nonce, cookieOptions(baseUrl, maxAgeSeconds));
    return nonce;
  };

  /** "Email me a sign-in link": the same page whether a link went out or not, so it tells no one who has an account. */
  async function sendLinkByMail(reply: FastifyReply, email: string, next: string) {
    if (!mails) return sendPage(reply, 400, signInPage({ next, ...oidc }));
    if (!EMAIL.test(email)) {
      const mail = { nonce: nonceFor(reply, 60 * 60), email, error: 'Enter your email address, like you@example.com.' };
      return sendPage(reply, 400, signInPage({ next, ...oidc, mail }));
    }
    await mailSignInLink(context, email, next === '/dashboard' ? undefined : next);
    return sendPage(reply, 200, signInMailSentPage({ email }));
  }

  scope.get('/dashboard/sign-in', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const next = safeNext(query.next);
    const mail = mails ? { mail: { nonce: nonceFor(reply, 60 * 60) } } : {};
    return sendPage(reply, 200, signInPage({ next, ...oidc, ...mail, again: query.again === '1' }));
  });

  // The link only shows a button: mail scanners that open links must not use them up.
  scope.get(SIGN_IN_LINK_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const nonce = nonceFor(reply, 15 * 60);
    return sendPage(reply, 200, signInLinkPage({ token: typeof query.token === 'string' ? query.token : '', nonce, next: safeNext(query.next) }));
  });

  // Posting sign-in links (a token to use, or an address to mail one to) is limited per client
  // address as the OAuth endpoints are: guessing tokens, or mailing strangers, goes nowhere fast.
  const limits = context.config.rateLimits;
  const linkPosts = new WindowCounter(limits.unauthenticatedPerMinute, MINUTE, context.clock, context.metrics.refusals('sign_in_links'));
  scope.post(SIGN_IN_LINK_PATH, async (request, reply) => {
    if (limits.enabled && !linkPosts.take(request.ip)) {
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      return sendPage(reply, 429, messagePage('Too many requests', `Too many sign-in attempts from this address. Try again in ${RETRY_AFTER_SECONDS} seconds.`));
    }
    const form = (request.body ?? {}) as Form;
    const email = formField(form, 'email');
    if (!csrfMatches(request.cookies[SIGN_IN_NONCE_COOKIE] ?? '', form.nonce) || !request.cookies[SIGN_IN_NONCE_COOKIE]) {
      return sendPage(reply, 403, messagePage('Refused', email === undefined ? 'Open the sign-in link again.' : 'Open the sign-in page again.'));
    }
    if (email !== undefined) return sendLinkByMail(reply, email.trim(), safeNext(formField(form, 'next')));
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
