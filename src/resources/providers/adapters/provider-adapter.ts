import type { ProvidersConfig } from '../../../core/config.ts';
import type { Currency } from '../../../core/money.ts';

// What every card-provider adapter is, and the one way they build a hosted page's address.

export interface PurchaseRequest {
  /** The payment's one-time deposit address (0x…, Polygon). */
  walletAddress: string;
  /** What the buyer buys and where it is delivered: USDC on Polygon. */
  coin: 'polygon_usdc';
  /** The price as the merchant set it: currency and decimal string ("25.00"). */
  fiatCurrency: Currency;
  fiatAmount: string;
  /** The buyer's email when known (prefills the provider's form); null otherwise. */
  email: string | null;
  /** Where the provider sends the buyer back (our payer page). */
  returnUrl: string;
  /** Our payment id, for the provider's external reference where it has one. */
  paymentId: string;
  /**
   * The buyer's IP address as this service sees it (Fastify's request.ip; set TRUST_PROXY behind
   * a proxy). Mercuryo's signature covers the IP of the browser that opens its page.
   */
  buyerIp: string;
}

export interface ProviderAdapter {
  /** The catalogue id. */
  id: string;
  /** Whether this deployment has what the provider needs (keys); unconfigured providers are not offered in Live. */
  configured(config: ProvidersConfig): boolean;
  /** The provider's hosted purchase page for this request, signed where the provider requires it. */
  purchaseUrl(request: PurchaseRequest, config: ProvidersConfig): string;
}

/**
 * `page` (an https address of ours, never configuration) with `parameters` in order, every value
 * encoded by URLSearchParams; a null value (an unknown email) is left out.
 */
export function hostedPage(page: string, parameters: Record<string, string | null>): URL {
  const url = new URL(page);
  if (url.protocol !== 'https:') throw new Error(`A provider page must be https: ${page}`);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== null) url.searchParams.append(name, value);
  }
  return url;
}

/**
 * An adapter from where its keys are in the configuration (undefined: not configured) and how its
 * page is built from them; asking for the page of a provider without keys is a caller's mistake.
 */
export function defineAdapter<Keys>(adapter: {
  id: string;
  keys: (config: ProvidersConfig) => Keys | undefined;
  page: (request: PurchaseRequest, keys: Keys) => URL;
}): ProviderAdapter {
  return {
    id: adapter.id,
    configured: (config) => adapter.keys(config) !== undefined,
    purchaseUrl(request, config) {
      const keys = adapter.keys(config);
      if (keys === undefined) throw new Error(`The ${adapter.id} provider is not configured; check configured() before asking for its page.`);
      return adapter.page(request, keys).href;
    },
  };
}
