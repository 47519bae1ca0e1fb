import type { ProvidersConfig } from '../../core/config.ts';
import { ApiError } from '../../core/errors.ts';
import type { AcceptedCoinId } from '../../core/payment-request.ts';
import type { AppContext } from '../../verbs/context.ts';
import { coinsForStart } from '../checkout-sessions/live-ways.ts';
import { liveProviders } from '../providers/live.ts';
import { offerProviders, type OfferedProvider } from '../providers/routing.ts';
import { cryptoAllowed, type PayerView } from './view.ts';

// The ways a started payment can be paid (spec 3, "given a way to pay"): the card providers the
// routing offers this buyer, and the buyer's own wallet when crypto is allowed. In Live only what
// something serves: networks a healthy processor watches, providers with keys here.

export interface WaysToPay {
  providers: OfferedProvider[];
  /** In Live, the deposit address and the coins that may be sent there; in Test, the simulation panel; null when crypto is not allowed. */
  wallet: { kind: 'live'; address: string; usdValueMinor: number; coins: AcceptedCoinId[] } | { kind: 'test' } | null;
}

/** What the payer page may offer now: the coins served (every accepted coin in Test), or that a start would be refused, and why. */
export type Offer = { coins: AcceptedCoinId[]; refused: null } | { coins: []; refused: ApiError };

export async function offerFor(app: Pick<AppContext, 'db' | 'clock' | 'config'>, view: PayerView): Promise<Offer> {
  try {
    return { coins: await coinsForStart(app, view.livemode, view.routing), refused: null };
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return { coins: [], refused: error };
    throw error;
  }
}

/** Where the buyer is, for which providers serve them: the billing address, else the shipping address. */
function countryOf(view: PayerView): string | null {
  return view.order?.billTo?.country ?? view.order?.shipTo?.country ?? null;
}

export function waysToPay(view: PayerView, providers: ProvidersConfig, coins: readonly AcceptedCoinId[]): WaysToPay {
  const buyer = { currency: view.currency, usdValueMinor: view.usdValueMinor ?? 0, country: countryOf(view) };
  // A provider this deployment has no keys for cannot take a Live buyer; Test uses its stand-in page.
  const offered = view.livemode ? liveProviders(view.routing, buyer, providers, coins) : offerProviders(view.routing, buyer);
  const wallet = !cryptoAllowed(view)
    ? null
    : view.livemode
      ? (view.depositAddress && view.usdValueMinor !== null && coins.length > 0
        ? { kind: 'live' as const, address: view.depositAddress, usdValueMinor: view.usdValueMinor, coins: [...coins] }
        : null)
      : { kind: 'test' as const };
  return { providers: offered, wallet };
}
