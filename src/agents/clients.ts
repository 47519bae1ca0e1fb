import { z } from 'zod';
import { DAY, HOUR, MINUTE } from '../core/clock.ts';
import type { AppContext } from '../verbs/context.ts';
import { randomBase62 } from '../core/ids.ts';
import type { OAuthClientRow } from '../db/schema.ts';
import { API_SCOPES } from '../auth/scopes.ts';
import { Refused } from '../net/destinations.ts';
import { OAuthError } from './errors.ts';
import { hasControlCharacters, hasInvisibleFormatting } from '../core/validation.ts';

// The agents' clients: registered dynamically (RFC 7591, public clients only), or identified by
// the URL of their Client ID Metadata Document, fetched under the webhooks' address rules.

export type ClientDeps = Pick<AppContext, 'db' | 'clock' | 'outbound'>;

/** Registered clients nobody used for this long are forgotten. */
export const CLIENT_UNUSED_EXPIRY_MS = 90 * DAY;
const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
const METADATA_DOCUMENT_TIMEOUT_MS = 5_000;
const METADATA_DOCUMENT_MIN_CACHE_MS = 5 * MINUTE;
const METADATA_DOCUMENT_MAX_CACHE_MS = DAY;
// last_used_at moves at most this often (a refresh every five minutes need not write it).
const TOUCH_EVERY_MS = HOUR;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
// Editors that register their own scheme for MCP sign-in (RFC 8252 7.1 asks for reverse domain
// names; these predate that advice and are what their users run).
export const EDITOR_SCHEMES = new Set(['cursor:', 'vscode:', 'vscode-insiders:', 'vscodium:', 'windsurf:', 'zed:']);
// A reverse domain name as a scheme (com.example.app:): two or more DNS labels, the first a
// letter (a scheme must start with one). Anything else (ms-msdt:, search-ms:, view-source:,
// jar:, chrome:) would hand the redirect to a handler of the system or the browser.
const REVERSE_DOMAIN_SCHEME = /^[a-z][a-z0-9-]{0,62}(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))+:$/;

export type RedirectKind = 'https' | 'loopback' | 'private_use';

/** What kind of redirect URI this is, or why it cannot be one. */
export function redirectKind(text: string): RedirectKind | string {
  if (!URL.canParse(text)) return 'is not an absolute URI';
  const url = new URL(text);
  if (url.hash !== '' || text.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain a username or password';
  if (url.protocol === 'https:') return url.hostname === '' ? 'has no host' : 'https';
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? 'loopback' : 'may use http only on a loopback address (127.0.0.1, [::1], localhost)';
  if ((REVERSE_DOMAIN_SCHEME.test(url.protocol) && url.protocol.length <= 254) || EDITOR_SCHEMES.has(url.protocol)) return 'private_use';
  return 'must use https, http on a loopback address, a reverse-domain private-use scheme (com.example.app:/callback) '
    + `or an editor's own scheme (${[...EDITOR_SCHEMES].join(' ')})`;
}

/**
 * Whether `given` is one of the client's redirect URIs and still a kind we accept: exactly,
 * character for character; for loopback http any port is allowed (RFC 8252 7.3), everything
 * else must still match.
 */
export function matchRedirectUri(registered: readonly string[], given: string): boolean {
  // A client registered before a scheme was refused keeps it in its row; it is never used.
  const kind = redirectKind(given);
  if (kind !== 'https' && kind !== 'loopback' && kind !== 'private_use') return false;
  if (registered.includes(given)) return true;
  if (kind !== 'loopback') return false;
  const withoutPort = (text: string) => {
    const url = new URL(text);
    url.port = '';
    return url.href;
  };
  const target = withoutPort(given);
  // The given text itself must be the normal form (no case or encoding games beyond the port).
  if (new URL(given).href !== given) return false;
  return registered.some((uri) => redirectKind(uri) === 'loopback' && withoutPort(uri) === target);
}

const text = (max: number) => z.string().min(1).max(max);

const RegistrationInput = z.object({
  redirect_uris: z.array(z.string().max(2048)).min(1).max(10),
  client_name: text(100).optional(),
  client_uri: z.string().max(2048).optional(),
  logo_uri: z.string().max(2048).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  token_endpoint_auth_method: z.string().optional(),
  application_type: z.string().optional(),
  scope: z.string().max(1000).optional(),
  software_id: text(200).optional(),
  software_version: text(200).optional(),
}).passthrough();

function httpsOrNull(value: string | undefined, field: string): string | null {
  if (value === undefined) return null;
  if (!URL.canParse(value) || new URL(value).protocol !== 'https:') throw new OAuthError('invalid_client_metadata', `${field} must be an https:// URL.`);
  return value;
}

/** The checked metadata of a client, from a registration request or a metadata document. */
function clientMetadata(input: unknown): Omit<OAuthClientRow, 'client_id' | 'kind' | 'created_at' | 'last_used_at' | 'fetched_at'> {
  if (hasControlCharacters(input)) throw new OAuthError('invalid_client_metadata', 'Client metadata must not contain control characters.');
  // A client's name is shown to the person approving it: no direction overrides or hidden characters.
  if (hasInvisibleFormatting(input)) {
    throw new OAuthError('invalid_client_metadata', 'Client metadata must not contain invisible formatting characters (direction overrides, isolates, zero-width characters).');
  }
  const parsed = RegistrationInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthError(issue?.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}.`);
  }
  const body = parsed.data;
  const kinds = body.redirect_uris.map((uri) => {
    const kind = redirectKind(uri);
    if (kind !== 'https' && kind !== 'loopback' && kind !== 'private_use') throw new OAuthError('invalid_redirect_uri', `redirect_uri ${JSON.stringify(uri)} ${kind}.`);
    return kind;
  });
  const applicationType = body.application_type ?? (kinds.includes('private_use') ? 'native' : 'web');
  if (applicationType !== 'web' && applicationType !== 'native') throw new OAuthError('invalid_client_metadata', 'application_type must be web or native.');
  if (applicationType === 'web' && kinds.includes('private_use')) throw new OAuthError('invalid_redirect_uri', 'A web client cannot use a private-use scheme redirect_uri; register as application_type native.');
  const grantTypes = body.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!grantTypes.includes('authorization_code') || grantTypes.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token')) {
    throw new OAuthError('invalid_client_metadata', 'grant_types may hold authorization_code (required) and refresh_token only.');
  }
  const responseTypes = body.response_types ?? ['code'];
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw new OAuthError('invalid_client_metadata', 'response_types must be ["code"].');
  // Agents are public clients: PKCE protects their codes; no client secret is issued or accepted.
  const authMethod = body.token_endpoint_auth_method ?? 'none';
  if (authMethod !== 'none') throw new OAuthError('invalid_client_metadata', 'token_endpoint_auth_method must be none: agents are public clients (PKCE is required instead).');
  if (body.scope !== undefined && body.scope.split(' ').some((scope) => !(API_SCOPES as readonly string[]).includes(scope))) {
    throw new OAuthError('invalid_client_metadata', `scope may list only ${API_SCOPES.join(', ')}.`);
  }
  return {
    client_name: body.client_name ?? null,
    client_uri: httpsOrNull(body.client_uri, 'client_uri'),
    logo_uri: httpsOrNull(body.logo_uri, 'logo_uri'),
    redirect_uris: body.redirect_uris,
    application_type: applicationType,
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: authMethod,
    scope: body.scope ?? null,
    software_id: body.software_id ?? null,
    software_version: body.software_version ?? null,
  };
}

/** The registration response (RFC 7591 3.2.1). */
export function registrationResponse(client: OAuthClientRow) {
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(client.created_at.getTime() / 1000),
    redirect_uris: client.redirect_uris,
    grant_types: client.grant_types,
    response_types: client.response_types,
    token_endpoint_auth_method: client.token_endpoint_auth_method,
    application_type: client.application_type,
    ...(client.client_name === null ? {} : { client_name: client.client_name }),
    ...(client.client_uri === null ? {} : { client_uri: client.client_uri }),
    ...(client.logo_uri === null ? {} : { logo_uri: client.logo_uri }),
    ...(client.scope === null ? {} : { scope: client.scope }),
    ...(client.software_id === null ? {} : { software_id: client.software_id }),
    ...(client.software_version === null ? {} : { software_version: client.software_version }),
  };
}

/** Dynamic client registration (RFC 7591): a public client with its own client_id. */
export async function registerClient(deps: ClientDeps, input: unknown): Promise<OAuthClientRow> {
  const metadata = clientMetadata(input);
  const now = deps.clock.now();
  return deps.db.insertInto('oauth_clients').values({
    ...metadata,
    client_id: `agc_${randomBase62(24)}`,
    kind: 'registered',
    created_at: now,
    last_used_at: now,
  }).returningAll().executeTakeFirstOrThrow();
}

/** Whether a client_id is a Client ID Metadata Document URL (an https URL with a path). */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!clientId.startsWith('https://') || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.pathname !== '/' && url.pathname !== '' && url.hash === '' && url.username === '' && url.password === '';
}

function cacheMs(cacheControl: string | null): number {
  const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '')?.[1];
  const ms = maxAge === undefined ? HOUR : Number(maxAge) * 1000;
  return Math.min(METADATA_DOCUMENT_MAX_CACHE_MS, Math.max(METADATA_DOCUMENT_MIN_CACHE_MS, ms));
}

// A document that could not be fetched is not asked for again for a minute: a stream of made-up
// client_ids cannot turn into a stream of outbound requests to one place.
const FAILED_FETCH_MS = MINUTE;
const failedFetches = new Map<string, number>();

/** Fetches (or reuses) a client's metadata document and records the client. */
async function metadataDocumentClient(deps: ClientDeps, clientId: string, known: OAuthClientRow | undefined): Promise<OAuthClientRow> {
  const now = deps.clock.now();
  if ((failedFetches.get(clientId) ?? -Infinity) > now.getTime()) throw new OAuthError('invalid_client', 'The client\'s metadata document could not be fetched a moment ago; try again in a minute.');
  try {
    return await fetchMetadataDocument(deps, clientId, known, now);
  } catch (error) {
    if (failedFetches.size >= 10_000) failedFetches.clear();
    failedFetches.set(clientId, now.getTime() + FAILED_FETCH_MS);
    throw error;
  }
}

async function fetchMetadataDocument(deps: ClientDeps, clientId: string, known: OAuthClientRow | undefined, now: Date): Promise<OAuthClientRow> {
  let fetched: { status: number; body: string; cacheControl: string | null };
  try {
    fetched = await deps.outbound.fetchDocument(clientId, { maxBytes: METADATA_DOCUMENT_MAX_BYTES, timeoutMs: METADATA_DOCUMENT_TIMEOUT_MS });
  } catch (error) {
    throw new OAuthError('invalid_client', `The client's metadata document could not be fetched: ${error instanceof Refused ? error.message : 'request failed'}.`);
  }
  if (fetched.status !== 200) throw new OAuthError('invalid_client', `The client's metadata document answered ${fetched.status}.`);
  let document: unknown;
  try {
    document = JSON.parse(fetched.body);
  } catch {
    throw new OAuthError('invalid_client', 'The client\'s metadata document is not JSON.');
  }
  if (typeof document !== 'object' || document === null || (document as { client_id?: unknown }).client_id !== clientId) {
    throw new OAuthError('invalid_client', 'The client\'s metadata document must name its own URL as client_id.');
  }
  let metadata;
  try {
    metadata = clientMetadata(document);
  } catch (error) {
    throw new OAuthError('invalid_client', `The client's metadata document is not acceptable: ${error instanceof Error ? error.message : String(error)}`);
  }
  // fetched_at is when the cached copy stops being fresh.
  const row = { ...metadata, fetched_at: new Date(now.getTime() + cacheMs(fetched.cacheControl)), last_used_at: now };
  return deps.db.insertInto('oauth_clients')
    .values({ ...row, client_id: clientId, kind: 'metadata_document', created_at: known?.created_at ?? now })
    .onConflict((conflict) => conflict.column('client_id').doUpdateSet(row))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The client named by client_id, or `invalid_client`. */
export async function findClient(deps: ClientDeps, clientId: string): Promise<OAuthClientRow> {
  if (clientId === '' || clientId.length > 2048 || hasControlCharacters(clientId)) throw new OAuthError('invalid_client', 'client_id is missing, too long or not text.');
  const now = deps.clock.now();
  const known = await deps.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  if (isMetadataDocumentId(clientId)) {
    if (known && known.fetched_at !== null && known.fetched_at > now) return known;
    return metadataDocumentClient(deps, clientId, known);
  }
  if (!known || known.kind !== 'registered' || now.getTime() - known.last_used_at.getTime() > CLIENT_UNUSED_EXPIRY_MS) {
    throw new OAuthError('invalid_client', 'Unknown client_id: register the client first (registration_endpoint).');
  }
  if (now.getTime() - known.last_used_at.getTime() > TOUCH_EVERY_MS) {
    await deps.db.updateTable('oauth_clients').set({ last_used_at: now }).where('client_id', '=', clientId).execute();
  }
  return known;
}
