import { sql } from 'kysely';
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';
import { randomBase62 } from '../core/ids.ts';
import type { Clock } from '../core/clock.ts';
import { MINUTE } from '../core/clock.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { Db } from '../db/database.ts';

// The keys that sign agents' access tokens (EdDSA, Ed25519). The newest key not retired signs;
// every key still able to have a live token is published in the JWKS, so a rotation never breaks
// a token already issued. Private keys are stored encrypted with the service's secret key.

export const SIGNING_ALG = 'EdDSA';
/** A retired key is published this long after it stopped signing: longer than any token lives. */
export const RETIRED_KEY_PUBLISHED_MS = 30 * MINUTE;
// How long a process trusts its loaded copy of the key table before reading it again.
const RELOAD_MS = MINUTE;
const UNKNOWN_KID_RELOAD_MS = 5_000;

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  privateJwk: JWK;
  createdAt: Date;
  retiredAt: Date | null;
}

export class SigningKeys {
  readonly #db: Db;
  readonly #secrets: SecretBox;
  readonly #clock: Clock;
  #keys: LoadedKey[] = [];
  #loadedAt = -Infinity;
  #keySet: JWTVerifyGetKey | undefined;

  constructor(db: Db, secrets: SecretBox, clock: Clock) {
    this.#db = db;
    this.#secrets = secrets;
    this.#clock = clock;
  }

  async #load(force = false): Promise<void> {
    const now = this.#clock.now().getTime();
    if (!force && now - this.#loadedAt < RELOAD_MS) return;
    const rows = await this.#db
      .selectFrom('oauth_signing_keys')
      .selectAll()
      .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', new Date(now - RETIRED_KEY_PUBLISHED_MS))]))
      .orderBy('created_at', 'desc')
      .execute();
    this.#keys = rows.map((row) => ({
      kid: row.kid,
      publicJwk: row.public_jwk as JWK,
      privateJwk: JSON.parse(this.#secrets.open(row.private_jwk_encrypted)) as JWK,
      createdAt: row.created_at,
      retiredAt: row.retired_at,
    }));
    this.#keySet = createLocalJWKSet(this.jwksOf(this.#keys));
    this.#loadedAt = now;
  }

  private jwksOf(keys: LoadedKey[]): JSONWebKeySet {
    return { keys: keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: SIGNING_ALG, use: 'sig' })) };
  }

  /** Inserts a fresh key pair, in a transaction holding the key-creation lock. */
  async #insertKey(trx: Db): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { crv: 'Ed25519', extractable: true });
    await trx.insertInto('oauth_signing_keys').values({
      kid: randomBase62(16),
      alg: SIGNING_ALG,
      public_jwk: JSON.stringify(await exportJWK(publicKey)),
      private_jwk_encrypted: this.#secrets.seal(JSON.stringify(await exportJWK(privateKey))),
      created_at: this.#clock.now(),
    }).execute();
  }

  /** Under the key-creation lock (one creator at a time across processes): `change`, then reload. */
  async #changeKeys(change: (trx: Db) => Promise<void>): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended('oauth_signing_keys', 0))`.execute(trx);
      await change(trx);
    });
    await this.#load(true);
  }

  /** Makes a new signing key; the previous ones stop signing but stay published for a while. */
  async rotate(): Promise<void> {
    await this.#changeKeys(async (trx) => {
      await trx.updateTable('oauth_signing_keys').set({ retired_at: this.#clock.now() }).where('retired_at', 'is', null).execute();
      await this.#insertKey(trx);
    });
  }

  /** The key that signs now: the newest not retired, made on first use. */
  async signing(): Promise<{ kid: string; key: Awaited<ReturnType<typeof importJWK>> }> {
    await this.#load();
    let current = this.#keys.find((key) => key.retiredAt === null);
    if (!current) {
      await this.#ensureOne();
      current = this.#keys.find((key) => key.retiredAt === null);
      if (!current) throw new Error('No signing key after making one.');
    }
    return { kid: current.kid, key: await importJWK(current.privateJwk, SIGNING_ALG) };
  }

  async #ensureOne(): Promise<void> {
    await this.#load(true);
    if (this.#keys.some((key) => key.retiredAt === null)) return;
    await this.#changeKeys(async (trx) => {
      const existing = await trx.selectFrom('oauth_signing_keys').select('kid').where('retired_at', 'is', null).executeTakeFirst();
      if (!existing) await this.#insertKey(trx);
    });
  }

  /** The published keys (JWKS). */
  async jwks(): Promise<JSONWebKeySet> {
    await this.#load();
    if (this.#keys.length === 0) await this.#ensureOne();
    return this.jwksOf(this.#keys);
  }

  /**
   * The key set tokens are verified against. An unknown kid (a key another process just made)
   * reloads the table, at most every few seconds, so made-up kids cannot make every request read it.
   */
  readonly verificationKeys: JWTVerifyGetKey = async (header, token) => {
    await this.#load();
    const now = this.#clock.now().getTime();
    if (header.kid !== undefined && !this.#keys.some((key) => key.kid === header.kid) && now - this.#loadedAt > UNKNOWN_KID_RELOAD_MS) {
      await this.#load(true);
    }
    if (!this.#keySet) throw new Error('No signing keys.');
    return this.#keySet(header, token);
  };
}
