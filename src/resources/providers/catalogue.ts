import type { Currency } from '../../core/money.ts';

// The card providers a buyer can be sent to. Checkout routing is validated against this
// catalogue, and session start (payments core) picks from it per buyer.
export interface Provider {
  id: string;
  name: string;
  /** Takes card payments; providers without cards pay only from an account they hold. */
  card: boolean;
  currencies: readonly Currency[];
  minAmountMinor: number;
  maxAmountMinor: number;
  /** Buyer countries served (ISO codes); null means everywhere the provider operates. */
  countries: readonly string[] | null;
}

const ALL: readonly Currency[] = ['USD', 'EUR', 'GBP', 'CAD', 'AUD'];

export const PROVIDERS: readonly Provider[] = [
  { id: 'moonpay', name: 'MoonPay', card: true, currencies: ALL, minAmountMinor: 2_000, maxAmountMinor: 10_000_000, countries: null },
  { id: 'transak', name: 'Transak', card: true, currencies: ALL, minAmountMinor: 1_500, maxAmountMinor: 5_000_000, countries: null },
  { id: 'ramp', name: 'Ramp Network', card: true, currencies: ['USD', 'EUR', 'GBP'], minAmountMinor: 100, maxAmountMinor: 2_000_000, countries: null },
  { id: 'banxa', name: 'Banxa', card: true, currencies: ['USD', 'EUR', 'AUD', 'CAD'], minAmountMinor: 2_000, maxAmountMinor: 1_500_000, countries: null },
  { id: 'mercuryo', name: 'Mercuryo', card: true, currencies: ['USD', 'EUR', 'GBP'], minAmountMinor: 1_000, maxAmountMinor: 500_000, countries: null },
  { id: 'wert', name: 'Wert', card: true, currencies: ['USD', 'EUR'], minAmountMinor: 100, maxAmountMinor: 1_000_000, countries: null },
  { id: 'coinbase', name: 'Coinbase', card: false, currencies: ALL, minAmountMinor: 100, maxAmountMinor: 10_000_000, countries: null },
  { id: 'binance_pay', name: 'Binance Pay', card: false, currencies: ['USD', 'EUR'], minAmountMinor: 100, maxAmountMinor: 10_000_000, countries: null },
];

export function findProvider(id: string): Provider | undefined {
  return PROVIDERS.find((provider) => provider.id === id);
}

export const CARD_PROVIDER_IDS = PROVIDERS.filter((provider) => provider.card).map((provider) => provider.id);
