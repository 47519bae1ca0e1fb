import oauthPlugin, { type OAuth2Namespace } from '@fastify/oauth2';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ApiError } from '../core/errors.ts';
import { personByEmail } from '../tenancy/businesses.ts';
import type { AppContext } from '../verbs/context.ts';

// People's sign-in through an OpenID Connect provider (when OIDC_* is configured): the
// authorization code flow with PKCE and state by @fastify/oauth2, a nonce bound to the state,
// and the id_token verified with jose (issuer, audience, nonce, expiry, signature from the
// provider's JWKS). Only people already in a business sign in; the provider says who they are.

export const OIDC_START_PATH = '/dashboard/sign-in/oidc';
export const OIDC_CALLBACK_PATH = '/dashboard/sign-in/oidc/callback';
const NEXT_COOKIE = 'ps_oidc_next';

interface Discovery {
  issuer: string;
  jwks_uri: string;
}

export async function registerOidcSignIn(
  scope: FastifyInstance,
  context: AppContext,
  options: { safeNext(next: unknown): string; signedIn(reply: FastifyReply, personId: string, next: string): Promise<FastifyReply> },
): Promise<void> {
  const oidc = context.config.oidc;
  if (!oidc) return;
  const { baseUrl } = context.config;
  const response = await fetch(`${oidc.issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`The OpenID provider's discovery document answered ${response.status}.`);
  const discovery = await response.json() as Discovery;
  if (discovery.issuer !== oidc.issuer) throw new Error(`The OpenID provider says its issuer is ${discovery.issuer}, not ${oidc.issuer}.`);
  const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
  const secure = baseUrl.startsWith('https://');
  const nonceFor = (state: string) => context.secrets.tag('oidc-nonce', state);

  await scope.register(oauthPlugin, {
    name: 'oidcSignIn',
    scope: ['openid', 'email'],
    credentials: { client: { id: oidc.clientId, secret: oidc.clientSecret } },
    discovery: { issuer: oidc.issuer },
    callbackUri: `${baseUrl}${OIDC_CALLBACK_PATH}`,
    pkce: 'S256',
    cookie: { path: '/dashboard/sign-in/oidc', secure, sameSite: 'lax', httpOnly: true },
  });
  const client = (scope as unknown as { oidcSignIn: OAuth2Namespace }).oidcSignIn;

  scope.get(OIDC_START_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    reply.setCookie(NEXT_COOKIE, options.safeNext((request.query as Record<string, unknown>).next), { path: '/dashboard/sign-in/oidc', secure, sameSite: 'lax', httpOnly: true, maxAge: 600 });
    const uri = new URL(await client.generateAuthorizationUri(request, reply));
    uri.searchParams.set('nonce', nonceFor(uri.searchParams.get('state') ?? ''));
    // Signing in again for what needs a recent sign-in: the provider asks too, rather than
    // vouching from a session of its own (OpenID Connect Core, prompt=login).
    if ((request.query as Record<string, unknown>).again === '1') uri.searchParams.set('prompt', 'login');
    return reply.redirect(uri.href, 303);
  });

  scope.get(OIDC_CALLBACK_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, unknown>;
    if (typeof query.error === 'string') throw new ApiError('sign_in_failed', `${oidc.name} did not sign you in (${query.error}).`);
    let token;
    try {
      ({ token } = await client.getAccessTokenFromAuthorizationCodeFlow(request, reply));
    } catch {
      throw new ApiError('sign_in_failed', `The sign-in with ${oidc.name} could not be completed. Start again.`);
    }
    const idToken = token.id_token;
    if (!idToken) throw new ApiError('sign_in_failed', `${oidc.name} sent no id_token.`);
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(idToken, keys, { issuer: discovery.issuer, audience: oidc.clientId, currentDate: context.clock.now() }));
    } catch {
      throw new ApiError('sign_in_failed', `The identity ${oidc.name} sent could not be verified.`);
    }
    if (claims.nonce !== nonceFor(String(query.state ?? ''))) throw new ApiError('sign_in_failed', 'The sign-in answer does not belong to this browser. Start again.');
    // Providers that keep the id_token minimal give the email at the userinfo endpoint, for the same sub.
    let { email, email_verified: verified } = claims as { email?: unknown; email_verified?: unknown };
    if (typeof email !== 'string') {
      const info: { sub?: unknown; email?: unknown; email_verified?: unknown } = await client.userinfo(token.access_token).catch(() => ({}));
      if (info.sub === claims.sub) {
        email = info.email;
        verified = info.email_verified;
      }
    }
    if (typeof email !== 'string' || verified !== true) throw new ApiError('sign_in_failed', `${oidc.name} did not give a verified email address.`);
    claims.email = email;
    const person = await personByEmail(context.db, email);
    if (!person) throw new ApiError('sign_in_failed', `${email} is not a member of any business here. Ask an owner to add you.`);
    const next = options.safeNext(request.cookies[NEXT_COOKIE]);
    reply.clearCookie(NEXT_COOKIE, { path: '/dashboard/sign-in/oidc', secure, sameSite: 'lax', httpOnly: true });
    return options.signedIn(reply, person.id, next);
  });
}
