import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { unixSeconds, type Clock } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import type { AgentConnectionRow, KeyAccess } from '../db/schema.ts';
import { SIGNING_ALG, type SigningKeys } from './signing-keys.ts';

// Agents' access tokens (spec 5.4): JWTs of RFC 9068 (`typ: at+jwt`), signed EdDSA, about five
// minutes long, naming the business, the mode, the access level and the connection. Verification
// pins the algorithm, the issuer, the audience (the one resource the token was issued for) and
// the type; anything else is `401 invalid_token`.

export const ACCESS_TOKEN_TTL_SECONDS = 300;
export const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface AgentTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  client_id: string;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  business: string;
  mode: 'test' | 'live';
  access: KeyAccess;
  connection_id: string;
}

// An agent sends the same token for its five minutes: its signature is checked once, then the
// verified claims are reused (still checked for expiry and audience on every use).
const VERIFIED_MAX_ENTRIES = 10_000;

export class AccessTokens {
  readonly #keys: SigningKeys;
  readonly #issuer: string;
  readonly #clock: Clock;
  #verified = new Map<string, AgentTokenClaims>();

  constructor(keys: SigningKeys, issuer: string, clock: Clock) {
    this.#keys = keys;
    this.#issuer = issuer;
    this.#clock = clock;
  }

  get issuer(): string {
    return this.#issuer;
  }

  /** A fresh access token for a connection, for the resource it was approved for. */
  async issue(connection: AgentConnectionRow): Promise<{ token: string; expiresIn: number; scope: string }> {
    const { kid, key } = await this.#keys.signing();
    const now = unixSeconds(this.#clock.now());
    const scope = connection.scopes.join(' ');
    const token = await new SignJWT({
      client_id: connection.client_id,
      scope,
      business: connection.business_id,
      mode: connection.livemode ? 'live' : 'test',
      access: connection.access,
      connection_id: connection.id,
    })
      .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYPE, kid })
      .setIssuer(this.#issuer)
      .setAudience(connection.resource)
      .setSubject(connection.approved_by)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TOKEN_TTL_SECONDS)
      .sign(key);
    return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS, scope };
  }

  /** The claims of a token issued by us for `audience`, or `401 invalid_token`. */
  async verify(token: string, audience: string): Promise<AgentTokenClaims> {
    const known = this.#verified.get(token);
    if (known && known.aud === audience) {
      if (known.exp > unixSeconds(this.#clock.now())) return known;
      this.#verified.delete(token);
    }
    const claims = await this.#verifySignature(token, audience);
    if (this.#verified.size >= VERIFIED_MAX_ENTRIES) this.#verified = new Map();
    this.#verified.set(token, claims);
    return claims;
  }

  async #verifySignature(token: string, audience: string): Promise<AgentTokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.#keys.verificationKeys, {
        algorithms: [SIGNING_ALG],
        issuer: this.#issuer,
        audience,
        typ: ACCESS_TOKEN_TYPE,
        currentDate: this.#clock.now(),
        requiredClaims: ['sub', 'jti', 'iat', 'exp', 'client_id', 'scope', 'business', 'mode', 'access', 'connection_id'],
      });
      if (typeof payload.connection_id !== 'string' || typeof payload.business !== 'string' || typeof payload.scope !== 'string'
        || (payload.mode !== 'test' && payload.mode !== 'live') || (payload.access !== 'full' && payload.access !== 'read_only')) {
        throw new ApiError('invalid_token', 'The access token is not valid for this service. Get a new one.');
      }
      if (typeof payload.aud !== 'string') throw new ApiError('invalid_token', 'The access token is not valid for this service. Get a new one.');
      return payload as unknown as AgentTokenClaims;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new ApiError('invalid_token', 'The access token has expired. Get a new one from the token endpoint.');
      // A bad token is invalid_token; the key table being unreadable (an outage) is not the token's fault.
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) throw new ApiError('invalid_token', 'The access token is not valid for this service. Get a new one.');
      throw error;
    }
  }
}
