import { randomBytes } from 'node:crypto';
import { MINUTE } from '../core/clock.ts';
import type { AppContext } from '../verbs/context.ts';
import { randomBase62 } from '../core/ids.ts';
import type { OAuthClientRow } from '../db/schema.ts';
import { API_SCOPES } from '../auth/scopes.ts';
import { ApiError } from '../core/errors.ts';
import { findClient, matchRedirectUri, type ClientDeps } from './clients.ts';
import { OAuthError } from './errors.ts';

// The authorization endpoint (RFC 6749 4.1, OAuth 2.1, RFC 8707, RFC 9207): a request is checked
// in full before a person sees it; then the person decides in the dashboard, and the client's
// redirect_uri receives a code (or an error) with `state` and `iss`.

export type AuthorizeDeps = ClientDeps & Pick<AppContext, 'config'>;

/** The dashboard page where a person decides on an authorization request. */
export const APPROVE_PATH = '/dashboard/approve';

/** How long a person has to decide on a request, and how long a code lives. */
export const REQUEST_TTL_MS = 10 * MINUTE;
export const CODE_TTL_MS = MINUTE;

/** The resources a token can be for (RFC 8707): the REST API and the MCP endpoint. */
export function resourcesOf(baseUrl: string): { api: string; mcp: string } {
  return { api: `${baseUrl}/v1`, mcp: `${baseUrl}/mcp` };
}

/** A failed authorization request: shown on a page (no trustworthy redirect_uri), or sent back to it. */
export class AuthorizeFailure extends Error {
  readonly redirect: URL | null;
  constructor(message: string, redirect: URL | null) {
    super(message);
    this.redirect = redirect;
  }
}

/** The client's redirect_uri with the response parameters and, always, `iss` (RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>, issuer: string): URL {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url;
}

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} was given more than once.`);
  return value;
}

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks an authorization request in full. Without a known client or a matching redirect_uri
 * nothing is redirected (the error is shown on a page); every other error goes back to the
 * redirect_uri, as RFC 6749 4.1.2.1 says. A valid request is stored for the person to decide.
 */
export async function startAuthorization(deps: AuthorizeDeps, query: Query): Promise<{ requestId: string; client: OAuthClientRow }> {
  let client: OAuthClientRow;
  let redirectUri: string;
  try {
    const clientId = single(query, 'client_id');
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required.');
    client = await findClient(deps, clientId);
    const given = single(query, 'redirect_uri');
    if (given === undefined && client.redirect_uris.length !== 1) throw new OAuthError('invalid_request', 'redirect_uri is required: the client has several.');
    redirectUri = given ?? client.redirect_uris[0]!;
    if (!matchRedirectUri(client.redirect_uris, redirectUri)) throw new OAuthError('invalid_request', 'redirect_uri is not one of the client\'s registered redirect URIs.');
  } catch (error) {
    throw new AuthorizeFailure(error instanceof Error ? error.message : String(error), null);
  }
  const state = typeof query.state === 'string' ? query.state : undefined;
  const fail = (error: OAuthError) => new AuthorizeFailure(error.message, redirectWith(redirectUri, { error: error.error, error_description: error.message, state }, deps.config.oauthIssuer));
  try {
    if (Array.isArray(query.state)) throw new OAuthError('invalid_request', 'state was given more than once.');
    if (state !== undefined && state.length > 2048) throw new OAuthError('invalid_request', 'state is longer than 2048 characters.');
    const responseType = single(query, 'response_type');
    if (responseType !== 'code') throw new OAuthError(responseType === undefined ? 'invalid_request' : 'unsupported_response_type', 'response_type must be code.');
    const challenge = single(query, 'code_challenge');
    const method = single(query, 'code_challenge_method');
    if (!challenge) throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
    if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
    if (!CODE_CHALLENGE.test(challenge)) throw new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
    const resources = resourcesOf(deps.config.baseUrl);
    const resource = single(query, 'resource') ?? resources.api;
    if (resource !== resources.api && resource !== resources.mcp) {
      throw new OAuthError('invalid_target', `resource must be ${resources.api} or ${resources.mcp}.`);
    }
    const scopeText = single(query, 'scope') ?? client.scope ?? API_SCOPES.join(' ');
    const scopes = [...new Set(scopeText.split(' ').filter(Boolean))];
    const unknown = scopes.find((scope) => !(API_SCOPES as readonly string[]).includes(scope));
    if (unknown !== undefined) throw new OAuthError('invalid_scope', `${unknown} cannot be granted to an agent; ask for ${API_SCOPES.join(', ')}.`);
    if (scopes.length === 0) throw new OAuthError('invalid_scope', 'scope is empty.');
    const now = deps.clock.now();
    const requestId = `areq_${randomBase62(32)}`;
    await deps.db.insertInto('oauth_requests').values({
      id: requestId, client_id: client.client_id, redirect_uri: redirectUri, state: state ?? null, code_challenge: challenge,
      resource, scopes, created_at: now, expires_at: new Date(now.getTime() + REQUEST_TTL_MS),
    }).execute();
    return { requestId, client };
  } catch (error) {
    if (error instanceof OAuthError) throw fail(error);
    throw error;
  }
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A stored request, with its client, for the approval page; undefined when gone or decided. */
export async function pendingRequest(deps: AuthorizeDeps, requestId: string) {
  const request = await deps.db.selectFrom('oauth_requests').selectAll().where('id', '=', requestId).executeTakeFirst();
  if (!request || request.decided_at !== null || request.expires_at <= deps.clock.now()) return undefined;
  const client = await deps.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', request.client_id).executeTakeFirst();
  return client ? { request, client } : undefined;
}

/**
 * The person declines: the request is spent and the client's redirect_uri receives
 * access_denied. Nothing is connected, so no business is involved and no role is needed: any
 * signed-in person shown the request (it was sent to them by the agent's own redirect) may turn
 * it down, which is why this is not an action of a business.
 */
export async function denyRequest(deps: AuthorizeDeps, requestId: string): Promise<URL> {
  const found = await pendingRequest(deps, requestId);
  if (!found) throw new ApiError('invalid_state', 'This sign-in request has expired or was already decided. Start again from the agent.');
  const { request } = found;
  await claimRequest(deps, requestId);
  return redirectWith(request.redirect_uri, { error: 'access_denied', error_description: 'The person denied the request.', state: request.state }, deps.config.oauthIssuer);
}

/** Marks a request decided, once: a second decision (two tabs, a double click) is refused. */
export async function claimRequest(deps: Pick<AuthorizeDeps, 'db' | 'clock'>, requestId: string): Promise<void> {
  const claimed = await deps.db.updateTable('oauth_requests').set({ decided_at: deps.clock.now() })
    .where('id', '=', requestId).where('decided_at', 'is', null).returning('id').executeTakeFirst();
  if (!claimed) throw new ApiError('invalid_state', 'This sign-in request was already decided.');
}
