import { MINUTE, type Clock } from '../core/clock.ts';
import { ApiError, rateLimited } from '../core/errors.ts';
import { WindowCounter, type RefusalRecorder } from '../core/rate-limiter.ts';
import type { RateLimitConfig } from '../core/config.ts';
import type { Authenticator } from './authenticate.ts';
import type { Principal } from './principal.ts';
import { readsOnly, type Scope } from './scopes.ts';
import { assertWritable } from '../tenancy/businesses.ts';

/** What admitting a call needs to know of the operation (an Operation is one). */
export interface Admission {
  scope: Scope;
  /** Allowed while the business is suspended (deleting a webhook endpoint). */
  allowWhenSuspended?: boolean;
  /** Counts toward the business's session starts per minute in its mode (spec 8). */
  sessionStart?: boolean;
}

/**
 * Admission of one call to one operation, the same for every transport: credential ->
 * principal, rate limits (spec 8), suspension, scope (spec 5.5).
 */
export class Gate {
  readonly #authenticator: Authenticator;
  readonly #limits: RateLimitConfig;
  readonly #perBusiness: WindowCounter;
  readonly #perAgent: WindowCounter;
  readonly #failuresPerAddress: WindowCounter;
  readonly #sessionStarts: WindowCounter;

  /** refusals: counts each limit's refusals (the metrics). */
  constructor(authenticator: Authenticator, limits: RateLimitConfig, clock: Clock, refusals?: RefusalRecorder) {
    const refused = (limit: string) => refusals?.refusals(limit);
    this.#authenticator = authenticator;
    this.#limits = limits;
    this.#perBusiness = new WindowCounter(limits.businessPerMinute, MINUTE, clock, refused('business'));
    this.#perAgent = new WindowCounter(limits.agentPerMinute, MINUTE, clock, refused('agent'));
    this.#failuresPerAddress = new WindowCounter(limits.unauthenticatedPerMinute, MINUTE, clock, refused('unauthenticated'));
    this.#sessionStarts = new WindowCounter(limits.sessionStartsPerMinute, MINUTE, clock, refused('session_starts'));
  }

  async admit(authorization: string | undefined, address: string, operation: Admission): Promise<Principal> {
    const principal = await this.identify(authorization, address);
    this.admitCall(principal, operation);
    return principal;
  }

  /**
   * The caller of a request, or the 401 (with the per-address limit on failed credentials).
   * audience: the resource asked of, when it is not the API (the MCP endpoint).
   */
  async identify(authorization: string | undefined, address: string, audience?: string): Promise<Principal> {
    try {
      return await this.#authenticator.authenticate(authorization, audience);
    } catch (error) {
      if (this.#limits.enabled && error instanceof ApiError && error.status === 401 && !this.#failuresPerAddress.take(address)) {
        throw rateLimited(`This address passed the limit of ${this.#limits.unauthenticatedPerMinute} requests a minute with a missing or invalid credential`);
      }
      throw error;
    }
  }

  /** One call of an operation by a known caller: rate limits (spec 8), suspension, scope (spec 5.5). */
  admitCall(principal: Principal, operation: Admission): void {
    // Keys share their account's limit; each connected agent has its own (spec 8).
    if (this.#limits.enabled) {
      const { actor } = principal;
      const allowed = actor.kind === 'agent' ? this.#perAgent.take(actor.connectionId) : this.#perBusiness.take(principal.businessId);
      if (!allowed) {
        throw rateLimited(actor.kind === 'agent'
          ? `This agent passed its limit of ${this.#limits.agentPerMinute} requests a minute`
          : `This account passed its limit of ${this.#limits.businessPerMinute} requests a minute, counted across all its keys and both modes`);
      }
    }
    authorize(principal, operation);
    // Session starts count toward the account's limit in their mode: every key's and every
    // agent's, Test included (an agent's Test starts mail receipts too: issue 31).
    if (operation.sessionStart) this.#admitStart(principal);
  }

  /**
   * One session start through the API (a key, an agent): 12 per minute per account
   * (spec 8), counted per mode so Test starts never use up Live's. Buyers on the payer pages
   * have budgets of their own (pages/starts.ts) and never draw on this one.
   */
  #admitStart(principal: Principal): void {
    if (this.#limits.enabled && !this.#sessionStarts.take(`${principal.businessId}:${principal.livemode ? 'live' : 'test'}`)) {
      throw rateLimited(`This account passed its limit of ${this.#limits.sessionStartsPerMinute} ${principal.livemode ? 'Live' : 'Test'} payment starts a minute`);
    }
  }
}

/**
 * The account's state and the scope: a suspended account answers 403 suspended to its keys and
 * agents (spec 5.6); an archived one reads, and changes nothing (403 merchant_read_only). An
 * operation changes the account when its scope is not a read scope.
 */
export function authorize(principal: Principal, operation: Admission): void {
  if (!operation.allowWhenSuspended) {
    if (principal.business.status === 'suspended') throw new ApiError('suspended', 'This account is suspended.');
    if (!readsOnly(operation.scope)) assertWritable(principal.business);
  }
  if (!principal.scopes.has(operation.scope)) {
    throw new ApiError('insufficient_scope', `This credential lacks the ${operation.scope} scope this operation needs.`,
      undefined, { scope: operation.scope });
  }
}
