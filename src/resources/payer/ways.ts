import type { ProvidersConfig } from '../../core/config.ts';
import { ApiError } from '../../core/errors.ts';
import type { AcceptedCoinId } from '../../core/payment-request.ts';
import type { AppContext } from '../../verbs/context.ts';
import { coinsForStart } from '../checkout-sessions/live-ways.ts';
import { liveProviders } from '../providers/live.ts';
import { offerProviders, type OfferedProvider } from '../providers/routing.ts';
import { coinsByHealth } from '../networks/served.ts';
import { cryptoAllowed, type PayerView } from './view.ts';

// The ways a started payment can be paid (spec 3, "given a way to pay"): the card providers the
// routing offers this buyer, and the buyer's own wallet when crypto is allowed. In Live only what
// something serves: networks a healthy processor watches, providers with keys here.

export interface WaysToPay {
  providers: OfferedProvider[];
  /** In Live, the deposit address and the coins that may be sent there; in Test, the simulation panel; null when crypto is not allowed. */
  wallet: { kind: 'live'; address: string; usdValueMinor: number; coins: AcceptedCoinId[] } | { kind: 'test' } | null;
}

/**
 * What the payer page may offer now: the coins served (every accepted coin in Test), or that a
 * start would be refused, and why. `delayed`: coins offered whose network is not served now.
 */
export type Offer = { coins: AcceptedCoinId[]; delayed: AcceptedCoinId[]; refused: null } | { coins: []; delayed: []; refused: ApiError };

export async function offerFor(app: Pick<AppContext, 'db' | 'clock' | 'config'>, view: PayerView): Promise<Offer> {
  // A buyer already shown a deposit address may have paid: the address stays valid through an
  // outage (the processor finds the money once its node answers), so it is never taken back.
  // While some network is served it is offered as usual; when none is, the networks reported.
  if (view.livemode && view.startedAt !== null && view.depositAddress !== null) {
    const { served, delayed } = await coinsByHealth(app.db, app.clock.now(), app.config.processorStatusFreshSeconds);
    return served.length > 0 ? { coins: served, delayed: [], refused: null } : { coins: delayed, delayed, refused: null };
  }
  try {
    return { coins: await coinsForStart(app, view.livemode, view.routing), delayed: [], refused: null };
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return { coins: [], delayed: [], refused: error };
    throw error;
  }
}

/** Where the buyer is, for which providers serve them: the billing address, else the shipping address. */
function countryOf(view: PayerView): string | null {
  return view.order?.billTo?.country ?? view.order?.shipTo?.country ?? null;
}

/** `delayed`: coins the wallet may still send to an address already shown, whose network is not served now (no provider is offered for them). */
export function waysToPay(view: PayerView, providers: ProvidersConfig, coins: readonly AcceptedCoinId[], delayed: readonly AcceptedCoinId[] = []): WaysToPay {
  const buyer = { currency: view.currency, usdValueMinor: view.usdValueMinor ?? 0, country: countryOf(view) };
  // A provider this deployment has no keys for cannot take a Live buyer; Test uses its stand-in page.
  const served = coins.filter((coin) => !delayed.includes(coin));
  const offered = view.livemode ? liveProviders(view.routing, buyer, providers, served) : offerProviders(view.routing, buyer);
  const wallet = !cryptoAllowed(view)
    ? null
    : view.livemode
      ? (view.depositAddress && view.usdValueMinor !== null && coins.length > 0
        ? { kind: 'live' as const, address: view.depositAddress, usdValueMinor: view.usdValueMinor, coins: [...coins] }
        : null)
      : { kind: 'test' as const };
  return { providers: offered, wallet };
}
