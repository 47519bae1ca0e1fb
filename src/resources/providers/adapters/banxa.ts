import { defineAdapter, hostedPage } from './provider-adapter.ts';

// Banxa's referral URL, https://<partner>.banxa.com/ with the order prefilled; no signature, and
// no order reference (a referral URL takes none).
export const banxa = defineAdapter({
  id: 'banxa',
  keys: (config) => config.banxa,
  page(request, keys) {
    const url = hostedPage('https://banxa.com/', {
      coinType: 'USDC',
      // Banxa's code for Polygon; unconfirmed, see README.md.
      blockchain: 'MATIC',
      walletAddress: request.walletAddress,
      fiatType: request.fiatCurrency,
      fiatAmount: request.fiatAmount,
      email: request.email,
      returnUrl: request.returnUrl,
    });
    // The partner is a DNS label (checked in config), so it can only name a banxa.com host.
    url.hostname = `${keys.partner}.banxa.com`;
    return url;
  },
});
