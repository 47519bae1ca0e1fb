import { createHash, timingSafeEqual } from 'node:crypto';
import { DAY, SECOND } from '../core/clock.ts';
import type { AppContext } from '../verbs/context.ts';
import type { AgentConnectionRow } from '../db/schema.ts';
import { newToken } from './authorization.ts';
import { disconnectConnection } from './connections.ts';
import { hashSecret } from '../auth/secret-keys.ts';
import { canManageKeys } from '../tenancy/roles.ts';
import { findClient } from './clients.ts';
import { OAuthError } from './errors.ts';

// The token endpoint (RFC 6749 4.1.3 and 6, OAuth 2.1): codes with PKCE S256, refresh tokens
// rotated on every use. A code used twice, or a rotated refresh token presented after the short
// grace window for concurrent refreshers, is taken as stolen: the connection is disconnected.

export type TokenDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'outbound' | 'accessTokens'>;

export const REFRESH_TOKEN_TTL_MS = 30 * DAY;
/** A rotated refresh token still works this long, for a client refreshing from two places at once. */
export const REFRESH_GRACE_MS = 30 * SECOND;

type Form = Record<string, string | string[] | undefined>;

function field(form: Form, name: string, required: true): string;
function field(form: Form, name: string, required?: false): string | undefined;
function field(form: Form, name: string, required = false): string | undefined {
  const value = form[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} was given more than once.`);
  if (required && (value === undefined || value === '')) throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

async function activeConnection(deps: TokenDeps, connectionId: string): Promise<AgentConnectionRow> {
  const row = await deps.db
    .selectFrom('agent_connections as c')
    .leftJoin('memberships as m', (join) => join.onRef('m.business_id', '=', 'c.business_id').onRef('m.person_id', '=', 'c.approved_by'))
    .selectAll('c')
    .select('m.role')
    .where('c.id', '=', connectionId)
    .executeTakeFirst();
  if (!row || row.disconnected_at !== null || !canManageKeys(row.role)) {
    throw new OAuthError('invalid_grant', 'agent_disconnected: this agent was disconnected, or the person who approved it no longer manages keys.');
  }
  const { role: _role, ...connection } = row;
  return connection;
}

/**
 * A new access token and refresh token. The new refresh token is the connection's only current
 * one: any other still unrotated (a twin from the grace window) becomes rotated now, so of two
 * chains only one can go on; the other's next use, after the grace window, revokes the connection.
 */
async function issue(deps: TokenDeps, connection: AgentConnectionRow): Promise<TokenResponse> {
  const now = deps.clock.now();
  const refreshToken = newToken();
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('oauth_refresh_tokens').set({ rotated_at: now })
      .where('connection_id', '=', connection.id).where('rotated_at', 'is', null).execute();
    await trx.insertInto('oauth_refresh_tokens').values({
      token_hash: hashSecret(refreshToken), connection_id: connection.id, client_id: connection.client_id,
      created_at: now, expires_at: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
    }).execute();
  });
  const access = await deps.accessTokens.issue(connection);
  return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, refresh_token: refreshToken, scope: access.scope };
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

async function exchangeCode(deps: TokenDeps, form: Form): Promise<TokenResponse> {
  const code = field(form, 'code', true);
  const clientId = field(form, 'client_id', true);
  const redirectUri = field(form, 'redirect_uri', true);
  const verifier = field(form, 'code_verifier');
  const resource = field(form, 'resource');
  await findClient(deps, clientId);
  const now = deps.clock.now();
  const stored = await deps.db.selectFrom('oauth_codes as oc').innerJoin('agent_connections as c', 'c.id', 'oc.connection_id')
    .select(['oc.code_hash', 'oc.connection_id', 'oc.client_id', 'oc.redirect_uri', 'oc.code_challenge', 'oc.resource', 'oc.expires_at', 'oc.used_at', 'c.business_id', 'c.livemode'])
    .where('oc.code_hash', '=', hashSecret(code)).executeTakeFirst();
  if (!stored || stored.client_id !== clientId) throw new OAuthError('invalid_grant', 'The authorization code is not valid.');
  const connection = { id: stored.connection_id, business_id: stored.business_id, livemode: stored.livemode };
  // Everything that binds the code to its client is checked first: the redirect URI, the PKCE
  // verifier and the resource. Only a request that passes them can spend the code, or, if it
  // was spent, take back what it gave (RFC 9700 4.5.3): a used code found in a log or a
  // browser's history, without its verifier, cannot be used to disconnect the real client.
  if (stored.redirect_uri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.');
  if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required (PKCE).');
  if (!VERIFIER.test(verifier) || !pkceMatches(verifier, stored.code_challenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
  if (resource !== undefined && resource !== stored.resource) throw new OAuthError('invalid_target', 'resource must be the one the authorization request named.');
  // Single use: the code presented again, with its verifier, means it leaked; what it gave is taken back.
  if (stored.used_at !== null) {
    await disconnectConnection(deps, connection, 'authorization_code_reused', 'service');
    throw new OAuthError('invalid_grant', 'The authorization code was already used; the connection it made is revoked.');
  }
  if (stored.expires_at <= now) throw new OAuthError('invalid_grant', 'The authorization code has expired.');
  const used = await deps.db.updateTable('oauth_codes').set({ used_at: now }).where('code_hash', '=', stored.code_hash).where('used_at', 'is', null).returning('code_hash').executeTakeFirst();
  if (!used) {
    await disconnectConnection(deps, connection, 'authorization_code_reused', 'service');
    throw new OAuthError('invalid_grant', 'The authorization code was already used; the connection it made is revoked.');
  }
  return issue(deps, await activeConnection(deps, stored.connection_id));
}

async function refresh(deps: TokenDeps, form: Form): Promise<TokenResponse> {
  const token = field(form, 'refresh_token', true);
  const clientId = field(form, 'client_id', true);
  const resource = field(form, 'resource');
  await findClient(deps, clientId);
  const now = deps.clock.now();
  const hash = hashSecret(token);
  const stored = await deps.db.selectFrom('oauth_refresh_tokens as r').innerJoin('agent_connections as c', 'c.id', 'r.connection_id')
    .select(['r.connection_id', 'r.client_id', 'r.expires_at', 'r.rotated_at', 'c.business_id', 'c.livemode', 'c.resource'])
    .where('r.token_hash', '=', hash).executeTakeFirst();
  if (!stored || stored.client_id !== clientId) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
  if (resource !== undefined && resource !== stored.resource) throw new OAuthError('invalid_target', 'resource must be the one the agent was approved for.');
  const connection = await activeConnection(deps, stored.connection_id);
  if (stored.expires_at <= now) throw new OAuthError('invalid_grant', 'The refresh token has expired.');
  // Rotation: the first use marks the token rotated; a second use within the grace window (two
  // refreshers racing) still works, a later one is a stolen token.
  let rotated = stored.rotated_at;
  if (rotated === null) {
    const won = await deps.db.updateTable('oauth_refresh_tokens').set({ rotated_at: now })
      .where('token_hash', '=', hash).where('rotated_at', 'is', null).returning('token_hash').executeTakeFirst();
    if (!won) rotated = (await deps.db.selectFrom('oauth_refresh_tokens').select('rotated_at').where('token_hash', '=', hash).executeTakeFirstOrThrow()).rotated_at;
  }
  if (rotated !== null && now.getTime() - rotated.getTime() > REFRESH_GRACE_MS) {
    await disconnectConnection(deps, { id: stored.connection_id, business_id: stored.business_id, livemode: stored.livemode }, 'refresh_token_reused', 'service');
    throw new OAuthError('invalid_grant', 'The refresh token was already used; the connection is revoked. Ask for the agent to be connected again.');
  }
  return issue(deps, connection);
}

/** POST /oauth/token. */
export async function tokenEndpoint(deps: TokenDeps, form: Form): Promise<TokenResponse> {
  const grantType = field(form, 'grant_type', true);
  if (grantType === 'authorization_code') return exchangeCode(deps, form);
  if (grantType === 'refresh_token') return refresh(deps, form);
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
}

/**
 * POST /oauth/revoke (RFC 7009): a refresh or access token of the client ends its connection.
 * Unknown tokens are answered 200 like known ones.
 */
export async function revokeEndpoint(deps: TokenDeps, form: Form): Promise<void> {
  const token = field(form, 'token', true);
  const clientId = field(form, 'client_id', true);
  await findClient(deps, clientId);
  let connectionId: string | undefined;
  const refreshToken = await deps.db.selectFrom('oauth_refresh_tokens').select(['connection_id', 'client_id']).where('token_hash', '=', hashSecret(token)).executeTakeFirst();
  if (refreshToken?.client_id === clientId) connectionId = refreshToken.connection_id;
  if (connectionId === undefined && token.split('.').length === 3) {
    for (const resource of [`${deps.config.baseUrl}/v1`, `${deps.config.baseUrl}/mcp`]) {
      const claims = await deps.accessTokens.verify(token, resource).catch(() => undefined);
      if (claims?.client_id === clientId) connectionId = claims.connection_id;
    }
  }
  if (connectionId === undefined) return;
  const connection = await deps.db.selectFrom('agent_connections').select(['id', 'business_id', 'livemode']).where('id', '=', connectionId).executeTakeFirst();
  if (connection) await disconnectConnection(deps, connection, 'revoked_by_client', `client:${clientId}`);
}
