import type { ProvidersConfig } from '../../core/config.ts';
import { ApiError } from '../../core/errors.ts';
import type { Routing } from '../../db/schema.ts';
import { configuredProviders } from './adapters.ts';
import { findProvider, type Provider } from './catalogue.ts';
import { offerProviders, type Buyer, type OfferedProvider } from './routing.ts';

// What Live buyers may be sent to: only card providers this deployment has keys for, and only
// while the network they deliver to (USDC on Polygon, adapters/provider-adapter.ts) is served.
// Test mode sends buyers to its stand-in page, whatever is configured.

/** The coin every card provider delivers to the deposit address. */
export const PROVIDER_COIN = 'polygon_usdc';

/**
 * A fixed provider this deployment has no keys for: a Live payment so routed, without fallback,
 * cannot be paid by card at all (with fallback, smart routing takes over).
 */
export function unconfiguredFixedProvider(routing: Routing, config: ProvidersConfig): Provider | undefined {
  if (routing.choice !== 'fixed' || routing.provider === null || routing.fallback) return undefined;
  if (configuredProviders(config).includes(routing.provider)) return undefined;
  return findProvider(routing.provider) ?? { id: routing.provider, name: routing.provider, card: true, currencies: [], minAmountMinor: 0, maxAmountMinor: 0, countries: null };
}

/** The card providers a Live buyer is offered: the routing's, among the configured ones, the first recommended unless the buyer chooses. */
export function liveProviders(routing: Routing, buyer: Buyer, config: ProvidersConfig, served: readonly string[]): OfferedProvider[] {
  if (!served.includes(PROVIDER_COIN)) return [];
  const configured = new Set(configuredProviders(config));
  // A fixed provider without keys never takes the buyer: with fallback, the smart list instead.
  const fixedAway = routing.choice === 'fixed' && routing.provider !== null && !configured.has(routing.provider);
  const offered = offerProviders(fixedAway && routing.fallback ? { choice: 'smart', provider: null, fallback: false } : routing, buyer);
  const usable = offered.filter((provider) => configured.has(provider.id));
  if (usable.length > 0 && !usable.some((provider) => provider.recommended) && routing.choice !== 'buyer') {
    return usable.map((provider, index) => ({ ...provider, recommended: index === 0 }));
  }
  return usable;
}

/**
 * A Live checkout or session fixed, without fallback, to a card provider this deployment has no
 * keys for could never be paid by card, and its starts are refused: the merchant is told when
 * saving it (400 invalid_routing), not their buyers later. Test mode simulates every provider.
 */
export function assertRoutingServable(livemode: boolean, routing: Routing | undefined, config: ProvidersConfig): void {
  if (!livemode || routing === undefined) return;
  const provider = unconfiguredFixedProvider(routing, config);
  if (!provider) return;
  const configured = configuredProviders(config);
  throw new ApiError('invalid_routing', `${provider.name} cannot take Live payments here: this service has no keys for it, so its buyers could not pay by card. ` +
    `Choose smart or buyer routing, turn fallback on, or fix one of the providers configured${configured.length > 0 ? ` (${configured.join(', ')})` : ' (none yet)'}.`, 'routing.provider');
}
