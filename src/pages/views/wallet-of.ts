import { coinLabel, paymentRequestUri } from '../../core/payment-request.ts';
import { fromMicros } from '../../resources/orders/derive.ts';
import type { PayerView } from '../../resources/payer/view.ts';
import type { WaysToPay } from '../../resources/payer/ways.ts';
import { QrCode } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { price } from './frame.ts';
import type { Wallet } from './wallet.ts';

// What the wallet panel shows: the buyer's own wallet pays USDC on Polygon, one coin per dollar of
// the payment's USD value locked at start, in the coin's six decimals and as a scannable request.

const COIN = 'polygon_usdc';

export function walletOf(t: Messages, payment: PayerView, wallet: WaysToPay['wallet']): Wallet | null {
  if (wallet === null) return null;
  if (wallet.kind === 'test') return wallet;
  const amountMicros = BigInt(wallet.usdValueMinor) * 10_000n;
  const { token, network } = coinLabel(COIN);
  return {
    kind: 'live',
    address: wallet.address,
    amountCoin: fromMicros(amountMicros),
    token,
    network,
    price: price(t, payment.amountMinor, payment.currency),
    qr: QrCode({ text: paymentRequestUri({ coin: COIN, to: wallet.address, amountMicros }), label: t.qrLabel(token, network) }),
  };
}
