import { defineAdapter, hostedPage } from './provider-adapter.ts';

// Wert's widget at the address its initializer builds (widget-initializer 7.0), with its options
// and no signature; docs.wert.io also describes a session made by a server call (README.md).
export const wert = defineAdapter({
  id: 'wert',
  keys: (config) => config.wert,
  page(request, keys) {
    const url = hostedPage('https://widget.wert.io/', {
      commodity: 'USDC',
      network: 'polygon',
      // Only USDC on Polygon is offered, so the buyer cannot switch coin or chain.
      commodities: JSON.stringify([{ commodity: 'USDC', network: 'polygon' }]),
      address: request.walletAddress,
      // Wert dropped its `currency` option in 2024; this list fixes the fiat instead.
      currencies: JSON.stringify([request.fiatCurrency]),
      currency_amount: request.fiatAmount,
      email: request.email,
      redirect_url: request.returnUrl,
      click_id: request.paymentId,
    });
    // Assigning the path encodes it; the partner id is also checked in config.
    url.pathname = `/${encodeURIComponent(keys.partnerId)}/widget`;
    return url;
  },
});
