import { MINUTE, type Clock } from '../core/clock.ts';
import type { RateLimitConfig } from '../core/config.ts';
import { WindowCounter, type RefusalRecorder } from '../core/rate-limiter.ts';

// Payments started by strangers on the payer pages. They have budgets of their own, per business
// and mode, apart from the merchant's API starts (auth/gate.ts), so page traffic can never keep
// the merchant's server from starting a payment; and each visitor (its client address, and its
// browser's form cookie) may take only a small share of the pages' budget. An address is the
// bound a visitor cannot shed (a new cookie is one page load away); the browser's count covers
// one browser moving between addresses.

/** Who posted a start: the client address and the browser's form nonce (pages/requests.ts). */
export interface Visitor {
  address: string;
  /** The browser's form nonce; empty for a caller without one (a program at the x402 address). */
  browser: string;
}

/** What a start is for: the business and mode of the payment. */
export interface StartedFor {
  businessId: string;
  livemode: boolean;
}

/**
 * A start the payer pages refused: the visitor used its share, or the business's pages used
 * theirs. The pages answer it with a page that says which, in the buyer's language (429).
 */
export class PayerStartRefused extends Error {
  readonly by: 'visitor' | 'business';
  constructor(by: 'visitor' | 'business') {
    super(by === 'visitor' ? 'This visitor passed its share of payment starts a minute.' : 'This business passed its payer pages\' payment starts a minute.');
    this.by = by;
  }
}

export class PayerStarts {
  readonly #enabled: boolean;
  readonly #perVisitor: WindowCounter;
  readonly #perBusiness: WindowCounter;

  constructor(limits: RateLimitConfig, clock: Clock, refusals: RefusalRecorder) {
    this.#enabled = limits.enabled;
    this.#perVisitor = new WindowCounter(limits.payerStartsPerVisitorPerMinute, MINUTE, clock, refusals.refusals('payer_visitor_starts'));
    this.#perBusiness = new WindowCounter(limits.payerStartsPerMinute, MINUTE, clock, refusals.refusals('payer_starts'));
  }

  /**
   * Counts one start, or refuses it. The visitor is counted first: a visitor over its share is
   * refused without drawing on the business's budget, so one visitor's posts cannot use it up.
   */
  admit(visitor: Visitor, payment: StartedFor): void {
    if (!this.#enabled) return;
    const place = `${payment.businessId}:${payment.livemode ? 'live' : 'test'}`;
    // A program (the x402 address) has no browser: its address alone is the visitor. (Cookie-less
    // callers counted under one empty browser would share one visitor's share of the business.)
    if (!this.#perVisitor.take(`${place}:address:${visitor.address}`)
      || (visitor.browser !== '' && !this.#perVisitor.take(`${place}:browser:${visitor.browser}`))) {
      throw new PayerStartRefused('visitor');
    }
    if (!this.#perBusiness.take(place)) throw new PayerStartRefused('business');
  }
}
