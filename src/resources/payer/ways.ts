import type { ProvidersConfig } from '../../core/config.ts';
import { configuredProviders } from '../providers/adapters.ts';
import { offerProviders, type OfferedProvider } from '../providers/routing.ts';
import { cryptoAllowed, type PayerView } from './view.ts';

// The ways a started payment can be paid (spec 3, "given a way to pay"): the card providers the
// routing offers this buyer, and the buyer's own wallet when crypto is allowed.

export interface WaysToPay {
  providers: OfferedProvider[];
  /** In Live, the deposit address and what to send there; in Test, the simulation panel; null when crypto is not allowed. */
  wallet: { kind: 'live'; address: string; usdValueMinor: number } | { kind: 'test' } | null;
}

/** Where the buyer is, for which providers serve them: the billing address, else the shipping address. */
function countryOf(view: PayerView): string | null {
  return view.order?.billTo?.country ?? view.order?.shipTo?.country ?? null;
}

export function waysToPay(view: PayerView, providers: ProvidersConfig): WaysToPay {
  let offered = offerProviders(view.routing, { currency: view.currency, usdValueMinor: view.usdValueMinor ?? 0, country: countryOf(view) });
  // A provider this deployment has no keys for cannot take a Live buyer; Test uses its stand-in page.
  if (view.livemode) {
    const configured = new Set(configuredProviders(providers));
    offered = offered.filter((provider) => configured.has(provider.id));
    if (offered.length > 0 && !offered.some((provider) => provider.recommended) && view.routing.choice !== 'buyer') {
      offered = offered.map((provider, index) => ({ ...provider, recommended: index === 0 }));
    }
  }
  const wallet = !cryptoAllowed(view)
    ? null
    : view.livemode
      ? (view.depositAddress && view.usdValueMinor !== null ? { kind: 'live' as const, address: view.depositAddress, usdValueMinor: view.usdValueMinor } : null)
      : { kind: 'test' as const };
  return { providers: offered, wallet };
}
