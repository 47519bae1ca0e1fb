import { defineAdapter, hostedPage } from './provider-adapter.ts';

// Ramp Network's hosted widget with the parameter names its SDK sends (ramp-instant-sdk 6.2), which
// Ramp still converts to its newer names; the host key is public, so there is no signature.
export const ramp = defineAdapter({
  id: 'ramp',
  keys: (config) => config.ramp,
  page(request, keys) {
    return hostedPage('https://app.rampnetwork.com/', {
      hostApiKey: keys.hostApiKey,
      // Native USDC on Polygon (MATIC_USDC is the bridged USDC.e); unconfirmed, see README.md.
      swapAsset: 'MATIC_USDC2',
      userAddress: request.walletAddress,
      fiatCurrency: request.fiatCurrency,
      fiatValue: request.fiatAmount,
      userEmailAddress: request.email,
      finalUrl: request.returnUrl,
    });
  },
});
