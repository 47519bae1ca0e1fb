import { createHmac } from 'node:crypto';
import { defineAdapter, hostedPage } from './provider-adapter.ts';

// MoonPay's buy widget. A URL that names a wallet must be signed or the widget does not load: base64
// HMAC-SHA256, keyed by the secret key, of the query string exactly as sent ("?…"), appended last.
export const moonpay = defineAdapter({
  id: 'moonpay',
  keys: (config) => config.moonpay,
  page(request, keys) {
    const url = hostedPage('https://buy.moonpay.com/', {
      apiKey: keys.apiKey,
      // currencyCode (not defaultCurrencyCode) fixes the coin: the buyer cannot pick another.
      currencyCode: 'usdc_polygon',
      walletAddress: request.walletAddress,
      // MoonPay's currency codes are lower case.
      baseCurrencyCode: request.fiatCurrency.toLowerCase(),
      baseCurrencyAmount: request.fiatAmount,
      email: request.email,
      redirectURL: request.returnUrl,
      externalTransactionId: request.paymentId,
    });
    const signature = createHmac('sha256', keys.secretKey.reveal()).update(url.search).digest('base64');
    url.searchParams.append('signature', signature);
    return url;
  },
});
