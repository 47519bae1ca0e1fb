import type { Routing } from '../../db/schema.ts';
import { PROVIDERS, type Provider } from './catalogue.ts';

export interface Buyer {
  currency: string;
  /** The order value in USD cents, which provider limits are set in. */
  usdValueMinor: number;
  /** ISO country of the buyer, when known. */
  country: string | null;
}

export interface OfferedProvider {
  id: string;
  name: string;
  recommended: boolean;
}

function canTake(provider: Provider, buyer: Buyer): boolean {
  return provider.card
    && (provider.currencies as readonly string[]).includes(buyer.currency)
    && buyer.usdValueMinor >= provider.minAmountMinor
    && buyer.usdValueMinor <= provider.maxAmountMinor
    && (provider.countries === null || buyer.country === null || provider.countries.includes(buyer.country));
}

/**
 * The card providers offered to one buyer (spec 2.2 routing): smart routing offers every
 * provider that can take the buyer, best first and the first recommended; `buyer` offers the
 * same list for the buyer to choose, none recommended; `fixed` offers only its provider, or
 * falls back to smart routing when that provider cannot take the buyer and fallback is on.
 */
export function offerProviders(routing: Routing, buyer: Buyer): OfferedProvider[] {
  const eligible = PROVIDERS.filter((provider) => canTake(provider, buyer));
  const smart = eligible.map((provider, index) => ({ id: provider.id, name: provider.name, recommended: index === 0 }));
  switch (routing.choice) {
    case 'smart':
      return smart;
    case 'buyer':
      return smart.map((provider) => ({ ...provider, recommended: false }));
    case 'fixed': {
      const fixed = eligible.find((provider) => provider.id === routing.provider);
      if (fixed) return [{ id: fixed.id, name: fixed.name, recommended: true }];
      return routing.fallback ? smart : [];
    }
  }
}

/** Routing in the documented key order (jsonb does not keep it). */
export function routingOut(routing: Routing): Routing {
  return { choice: routing.choice, provider: routing.provider, fallback: routing.fallback };
}
