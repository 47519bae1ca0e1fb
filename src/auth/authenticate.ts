import { sql } from 'kysely';
import type { Clock } from '../core/clock.ts';
import { MINUTE } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import { onAuthChange } from './changes.ts';
import type { Principal } from './principal.ts';
import { scopesForKey } from './scopes.ts';
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

export class Authenticator {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #canCache: () => boolean;
  readonly #touched = new Map<string, number>();
  #cache = new Map<string, Cached>();

  /** canCache: whether change notices currently arrive (see listenForAuthChanges). */
  constructor(db: Db, clock: Clock, canCache: () => boolean) {
    this.#db = db;
    this.#clock = clock;
    this.#canCache = canCache;
    onAuthChange(() => {
      this.#cache = new Map();
    });
  }

  async authenticate(header: string | undefined): Promise<Principal> {
    const credential = bearerCredential(header);
    if (credential === null) {
      throw new ApiError('invalid_api_key', 'No credential was sent. Send Authorization: Bearer <secret key>.');
    }
    const mode = secretKeyMode(credential);
    if (mode === null) {
      if (JWT_SHAPE.test(credential)) {
        throw new ApiError('invalid_token', 'The access token is not valid for this service. Get a new one.');
      }
      throw new ApiError('invalid_api_key', 'The credential is not a valid secret key.');
    }
    const hash = hashSecret(credential);
    const cacheKey = hash.toString('base64');
    const cached = this.#cache.get(cacheKey);
    if (cached && cached.until > this.#clock.now().getTime() && this.#canCache()) {
      this.#touch(cached.principal.keyId ?? '', cached.lastUsed);
      return cached.principal;
    }
    const cache = this.#cache;
    const row = await this.#db
      .selectFrom('api_keys as k')
      .innerJoin('businesses as b', 'b.id', 'k.business_id')
      .select(['k.id as key_id', 'k.kind', 'k.access', 'k.livemode', 'k.revoked_at', 'k.last_used_at',
        'b.id', 'b.name', 'b.status', 'b.commerce', 'b.disabled_integrations', 'b.payout_wallet', 'b.crypto_enabled', 'b.fee_bps'])
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
      kind: 'secret_key',
      keyId: row.key_id,
      connectionId: null,
      business: {
        id: row.id,
        name: row.name,
        status: row.status,
        commerce: row.commerce,
        disabled_integrations: row.disabled_integrations,
        payout_wallet: row.payout_wallet,
        crypto_enabled: row.crypto_enabled,
        fee_bps: row.fee_bps,
      },
    };
    // Only if no change was announced while the query ran (the map was not replaced).
    if (cache === this.#cache && this.#canCache()) {
      if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
      cache.set(cacheKey, { principal, lastUsed: row.last_used_at, until: this.#clock.now().getTime() + CACHE_MS });
    }
    return principal;
  }

  #touch(keyId: string, lastUsed: Date | null): void {
    const now = this.#clock.now();
    const last = Math.max(lastUsed?.getTime() ?? 0, this.#touched.get(keyId) ?? 0);
    if (now.getTime() - last < TOUCH_EVERY_MS) return;
    this.#touched.set(keyId, now.getTime());
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
