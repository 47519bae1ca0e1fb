import { coinLabel, paymentRequestUri, type AcceptedCoinId } from '../../core/payment-request.ts';
import { fromMicros } from '../../resources/orders/derive.ts';
import type { PayerView } from '../../resources/payer/view.ts';
import type { WaysToPay } from '../../resources/payer/ways.ts';
import { QrCode } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { price } from './frame.ts';
import type { Wallet } from './wallet.ts';

// What the wallet panel shows: the buyer's own wallet pays one of the coins served (the one asked
// for, else the first), one coin per dollar of the payment's USD value locked at start, in the
// coin's six decimals and as a scannable request. The deposit address is the same on every network.

/**
 * `contracts`: the token contract of each coin as the processor is configured (POLYGON_USDC and
 * the like), so the scanned request names the token that is watched.
 */
export function walletOf(t: Messages, payment: PayerView, wallet: WaysToPay['wallet'], asked: unknown, contracts: ReadonlyMap<string, string> = new Map()): Wallet | null {
  if (wallet === null) return null;
  if (wallet.kind === 'test') return wallet;
  const coin = wallet.coins.find((served) => served === asked) ?? wallet.coins[0];
  if (coin === undefined) return null;
  const amountMicros = BigInt(wallet.usdValueMinor) * 10_000n;
  const { token, network } = coinLabel(coin);
  return {
    kind: 'live',
    address: wallet.address,
    amountCoin: fromMicros(amountMicros),
    token,
    network,
    price: price(t, payment.amountMinor, payment.currency),
    qr: QrCode({ text: paymentRequestUri({ coin, to: wallet.address, amountMicros, contract: contracts.get(coin) }), label: t.qrLabel(token, network) }),
    coin,
    choices: wallet.coins.map((served: AcceptedCoinId) => ({ coin: served, ...coinLabel(served) })),
  };
}
