import { ApiError } from '../../core/errors.ts';
import { ACCEPTED_COINS, coinLabel, type AcceptedCoinId } from '../../core/payment-request.ts';
import type { Routing } from '../../db/schema.ts';
import type { AppContext } from '../../verbs/context.ts';
import { servedCoins } from '../networks/served.ts';
import { unconfiguredFixedProvider } from '../providers/live.ts';

// Before a Live start writes anything: is there a way to pay it that something serves? Test mode
// simulates every network and provider, so it offers every accepted coin and refuses nothing.

const ALL_COINS = Object.keys(ACCEPTED_COINS) as AcceptedCoinId[];

const named = (coins: readonly string[]) => coins.map((coin) => {
  const { token, network } = coinLabel(coin);
  return `${coin} (${token} on ${network})`;
}).join(', ');

/**
 * The coins the buyer may send, or a refusal: 409 payments_unavailable when no network is served,
 * 409 provider_unavailable when the routing is fixed, without fallback, to a card provider this
 * deployment has no keys for, 409 coin_unavailable when the coin asked for is not served.
 */
export async function coinsForStart(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>, livemode: boolean, routing: Routing, coin?: AcceptedCoinId): Promise<AcceptedCoinId[]> {
  if (!livemode) return ALL_COINS;
  const served = await servedCoins(ctx.db, ctx.clock.now(), ctx.config.processorStatusFreshSeconds);
  if (served.length === 0) {
    throw new ApiError('payments_unavailable', 'This account cannot take Live payments right now: no network is watched by a healthy payment processor, so the buyer\'s money could not be received. Nothing was started; try again later.');
  }
  const provider = unconfiguredFixedProvider(routing, ctx.config.providers);
  if (provider) {
    throw new ApiError('provider_unavailable', `This payment is fixed to the card provider ${provider.name}, which this service has no keys for in Live, and its fallback is off. Nothing was started; change the routing to smart or turn fallback on.`);
  }
  if (coin !== undefined && !served.includes(coin)) {
    throw new ApiError('coin_unavailable', `coin ${named([coin])} cannot be paid right now: no healthy payment processor watches it. Coins that can: ${named(served)}. Nothing was started.`, 'coin');
  }
  return served;
}
