import type { ProvidersConfig } from '../../core/config.ts';
import { CARD_PROVIDER_IDS } from './catalogue.ts';
import { banxa } from './adapters/banxa.ts';
import { mercuryo } from './adapters/mercuryo.ts';
import { moonpay } from './adapters/moonpay.ts';
import type { ProviderAdapter } from './adapters/provider-adapter.ts';
import { ramp } from './adapters/ramp.ts';
import { wert } from './adapters/wert.ts';

export type { ProviderAdapter, PurchaseRequest } from './adapters/provider-adapter.ts';

// The card providers a Live buyer can be sent to (adapters/README.md). Transak has no adapter:
// its page must now be made by a server call per buyer, which a URL builder cannot do.
const ADAPTERS: readonly ProviderAdapter[] = [moonpay, ramp, banxa, mercuryo, wert];

export function adapterFor(id: string): ProviderAdapter | undefined {
  return ADAPTERS.find((adapter) => adapter.id === id);
}

/** Card providers this deployment can send Live buyers to, in catalogue order. */
export function configuredProviders(config: ProvidersConfig): string[] {
  return CARD_PROVIDER_IDS.filter((id) => adapterFor(id)?.configured(config) ?? false);
}
