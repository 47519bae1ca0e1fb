import { ApiError } from '../../core/errors.ts';
import { formatAmount, type Currency } from '../../core/money.ts';
import type { AppContext } from '../../verbs/context.ts';
import { applyMove } from '../payments/machine.ts';
import { adapterFor } from '../providers/adapters.ts';
import { findProvider } from '../providers/catalogue.ts';
import { buyerOf, type PayerView } from './view.ts';
import { offerFor, waysToPay } from './ways.ts';

/**
 * The buyer chooses a card provider (spec 3, open -> pending): recorded, so a payment link can
 * no longer be canceled, then the buyer is sent to the provider's page for this payment's
 * deposit address and price (in Test mode, to the built-in Test provider page). Choosing
 * another provider while pending records the new choice. Returns where to send the browser.
 */
export async function chooseProvider(app: AppContext, view: PayerView, providerId: string, paths: { testProvider: string; returnUrl: string; buyerIp: string }): Promise<string> {
  if (view.status !== 'open' && view.status !== 'pending') throw new ApiError('invalid_state', 'This payment no longer takes a card payment.');
  if (view.startedAt === null) throw new ApiError('invalid_state', 'Give your details first.');
  const { coins, delayed } = await offerFor(app, view);
  const offered = waysToPay(view, app.config.providers, coins, delayed).providers.find((provider) => provider.id === providerId);
  const provider = offered ? findProvider(offered.id) : undefined;
  if (!provider) throw new ApiError('invalid_value', 'This card provider cannot take this payment.', 'provider');
  const ctx = { ...app, principal: buyerOf(view) };
  const moved = await ctx.db.transaction().execute((trx) => applyMove(trx, ctx, view.id, view.status === 'open' ? 'reach_provider' : 'switch_provider', {
    set: { provider_reached_at: ctx.clock.now(), provider: provider.id, provider_name: provider.name, method: 'card' },
  }));
  if (!moved) throw new ApiError('invalid_state', 'This payment changed meanwhile; reload the page.');
  if (!view.livemode) return paths.testProvider;
  const adapter = adapterFor(provider.id);
  if (!adapter || view.depositAddress === null) throw new ApiError('invalid_value', 'This card provider cannot take this payment.', 'provider');
  return adapter.purchaseUrl({
    walletAddress: view.depositAddress,
    coin: 'polygon_usdc',
    fiatCurrency: view.currency as Currency,
    fiatAmount: formatAmount(view.amountMinor),
    email: view.customerEmail,
    returnUrl: paths.returnUrl,
    paymentId: view.id,
    buyerIp: paths.buyerIp,
  }, app.config.providers);
}
