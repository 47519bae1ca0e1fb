import { sql } from 'kysely';
import type { Clock } from '../core/clock.ts';
import { MINUTE } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import { onAuthChange } from '../db/auth-changes.ts';
import type { Principal } from './principal.ts';
import { canManageKeys } from '../tenancy/roles.ts';
import { BUSINESS_STATE_COLUMNS, businessStateOf } from '../tenancy/businesses.ts';
import { API_SCOPES, scopesForKey, type Scope } from './scopes.ts';
import type { AccessTokens } from './access-tokens.ts';
import { hashSecret, secretKeyMode } from './secret-keys.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** The credential text of an Authorization header, or null when none was sent. */
export function bearerCredential(header: string | undefined): string | null {
  if (header === undefined || header.trim() === '') return null;
  return BEARER.exec(header)?.[1] ?? '';
}

// Writing last_used_at on every request would add a write to every read; once a minute per
// key is as precise as anyone reads it.
const TOUCH_EVERY_MS = MINUTE;

// A verified key is trusted for a few seconds, so a read costs one query, not two. Every
// revocation, suspension or role change clears the cache at once (auth/changes.ts); the time
// limit only bounds a change whose notice was lost, and nothing is cached while notices
// cannot arrive.
const CACHE_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

interface Cached {
  principal: Principal;
  lastUsed: Date | null;
  until: number;
}

/** How agents' access tokens are checked: who issues them, and the resource asked of by default (the API base). */
export interface AgentTokenCheck {
  tokens: AccessTokens;
  /** The audience a token must name unless the caller names another (the MCP endpoint). */
  audience: string;
}

const BUSINESS_COLUMNS = BUSINESS_STATE_COLUMNS.map((column) => `b.${column}` as const);

export class Authenticator {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #canCache: () => boolean;
  readonly #agents: AgentTokenCheck | undefined;
  readonly #touched = new Map<string, number>();
  #cache = new Map<string, Cached>();

  /** canCache: whether change notices currently arrive (see listenForAuthChanges). */
  constructor(db: Db, clock: Clock, canCache: () => boolean, agents?: AgentTokenCheck) {
    this.#db = db;
    this.#clock = clock;
    this.#canCache = canCache;
    this.#agents = agents;
    onAuthChange(() => {
      this.#cache = new Map();
    });
  }

  /** audience: the resource the request is for, when it is not the API (a token is valid only for its own). */
  async authenticate(header: string | undefined, audience?: string): Promise<Principal> {
    const credential = bearerCredential(header);
    if (credential === null) {
      throw new ApiError('invalid_api_key', 'No credential was sent. Send Authorization: Bearer <secret key>.');
    }
    // curl -u sk_test_…: (how some other payment APIs take a key) sends it as Basic.
    if (credential === '' && /^\s*basic\s/i.test(header ?? '')) {
      throw new ApiError('invalid_api_key', 'The credential was sent as Basic authentication. Send the secret key as Authorization: Bearer <secret key>.');
    }
    const mode = secretKeyMode(credential);
    if (mode === null) {
      if (JWT_SHAPE.test(credential)) {
        if (!this.#agents) throw new ApiError('invalid_token', 'The access token is not valid for this service. Get a new one.');
        return this.#authenticateAgent(credential, this.#agents.tokens, audience ?? this.#agents.audience);
      }
      throw new ApiError('invalid_api_key', 'The credential is not a valid secret key.');
    }
    const hash = hashSecret(credential);
    const cacheKey = hash.toString('base64');
    const cached = this.#cache.get(cacheKey);
    if (cached && cached.until > this.#clock.now().getTime() && this.#canCache()) {
      this.#touch(keyOf(cached.principal), cached.lastUsed);
      return cached.principal;
    }
    const cache = this.#cache;
    const row = await this.#db
      .selectFrom('api_keys as k')
      .innerJoin('businesses as b', 'b.id', 'k.business_id')
      .select(['k.id as key_id', 'k.kind', 'k.access', 'k.livemode', 'k.revoked_at', 'k.last_used_at', ...BUSINESS_COLUMNS])
      .where('k.secret_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null || row.livemode !== mode.livemode) {
      throw new ApiError('invalid_api_key', 'The secret key is invalid or has been revoked.');
    }
    this.#touch(row.key_id, row.last_used_at);
    const principal: Principal = {
      businessId: row.id,
      livemode: row.livemode,
      scopes: new Set(scopesForKey(row.kind, row.access)),
      actor: { kind: 'secret_key', keyId: row.key_id },
      business: businessStateOf(row),
    };
    this.#remember(cache, cacheKey, principal, row.last_used_at);
    return principal;
  }

  /** Caches a principal, unless a change was announced while it was read (the map was replaced). */
  #remember(cache: Map<string, Cached>, key: string, principal: Principal, lastUsed: Date | null): void {
    if (cache !== this.#cache || !this.#canCache()) return;
    if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
    cache.set(key, { principal, lastUsed, until: this.#clock.now().getTime() + CACHE_MS });
  }

  /**
   * An agent's access token (spec 5.4, 5.6): a valid token of ours for this resource, then its
   * connection as it is now: disconnected, or approved by a person who no longer manages keys,
   * is `401 agent_disconnected`. Agents never hold webhook scopes.
   */
  async #authenticateAgent(token: string, tokens: AccessTokens, audience: string): Promise<Principal> {
    const claims = await tokens.verify(token, audience);
    const cacheKey = `agent:${claims.connection_id}`;
    const cached = this.#cache.get(cacheKey);
    let principal: Principal;
    let lastUsed: Date | null;
    if (cached && cached.until > this.#clock.now().getTime() && this.#canCache()) {
      ({ principal, lastUsed } = cached);
    } else {
      const cache = this.#cache;
      const row = await this.#db
        .selectFrom('agent_connections as c')
        .innerJoin('businesses as b', 'b.id', 'c.business_id')
        .leftJoin('memberships as m', (join) => join.onRef('m.business_id', '=', 'c.business_id').onRef('m.person_id', '=', 'c.approved_by'))
        .select(['c.id as connection_id', 'c.livemode', 'c.client_id', 'c.scopes', 'c.disconnected_at', 'c.last_used_at', 'm.role', ...BUSINESS_COLUMNS])
        .where('c.id', '=', claims.connection_id)
        .executeTakeFirst();
      if (!row || row.id !== claims.business || row.livemode !== (claims.mode === 'live') || row.client_id !== claims.client_id) {
        throw new ApiError('invalid_token', 'The access token is not valid for this service. Get a new one.');
      }
      if (row.disconnected_at !== null || !canManageKeys(row.role)) {
        throw new ApiError('agent_disconnected', 'This agent was disconnected, or the person who approved it no longer manages keys. Ask for it to be connected again.');
      }
      principal = {
        businessId: row.id,
        livemode: row.livemode,
        scopes: new Set(row.scopes.filter((scope): scope is Scope => (API_SCOPES as readonly string[]).includes(scope))),
        actor: { kind: 'agent', connectionId: row.connection_id },
        business: businessStateOf(row),
      };
      lastUsed = row.last_used_at;
      this.#remember(cache, cacheKey, principal, lastUsed);
    }
    // The token's own scope can only narrow the connection's.
    const granted = new Set(claims.scope.split(' '));
    const scopes = new Set([...principal.scopes].filter((scope) => granted.has(scope)));
    this.#touchConnection(claims.connection_id, lastUsed);
    return scopes.size === principal.scopes.size ? principal : { ...principal, scopes };
  }

  #touchConnection(connectionId: string, lastUsed: Date | null): void {
    const now = this.#clock.now();
    if (!this.#due(`agent:${connectionId}`, lastUsed, now)) return;
    void this.#db
      .updateTable('agent_connections')
      .set({ last_used_at: now })
      .where('id', '=', connectionId)
      .where(sql<boolean>`last_used_at IS NULL OR last_used_at < ${now}`)
      .execute()
      .catch(() => undefined);
  }

  /** Whether a last-used time is due to be written (at most once a minute per credential). */
  #due(key: string, lastUsed: Date | null, now: Date): boolean {
    const last = Math.max(lastUsed?.getTime() ?? 0, this.#touched.get(key) ?? 0);
    if (now.getTime() - last < TOUCH_EVERY_MS) return false;
    if (this.#touched.size >= CACHE_MAX_ENTRIES) this.#touched.clear();
    this.#touched.set(key, now.getTime());
    return true;
  }

  #touch(keyId: string, lastUsed: Date | null): void {
    const now = this.#clock.now();
    if (!this.#due(keyId, lastUsed, now)) return;
    // Best effort and off the request path: a lost update only delays the next one.
    void this.#db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', keyId)
      .where(sql<boolean>`last_used_at IS NULL OR last_used_at < ${now}`)
      .execute()
      .catch(() => undefined);
  }
}

/** The key a cached secret-key principal was made from. */
function keyOf(principal: Principal): string {
  return principal.actor.kind === 'secret_key' ? principal.actor.keyId : '';
}


