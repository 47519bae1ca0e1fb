import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { defineAdapter, hostedPage } from './provider-adapter.ts';

// Mercuryo's widget by redirect. Every on-ramp URL is signed: "v2:" + hex SHA-512 of address, secret,
// the buyer's IP and merchant_transaction_id concatenated; Mercuryo checks it when the buyer picks
// a payment method, so a wrong one stops the purchase there.
export const mercuryo = defineAdapter({
  id: 'mercuryo',
  keys: (config) => config.mercuryo,
  page(request, keys) {
    // Mercuryo sees the plain IPv4 address of a buyer our dual-stack socket reports as ::ffff:a.b.c.d.
    const ip = ipaddr.process(request.buyerIp).toString();
    const signature = createHash('sha512')
      .update(`${request.walletAddress}${keys.secret.reveal()}${ip}${request.paymentId}`)
      .digest('hex');
    return hostedPage('https://exchange.mercuryo.io/', {
      widget_id: keys.widgetId,
      type: 'buy',
      currency: 'USDC',
      fix_currency: 'true',
      network: 'POLYGON',
      address: request.walletAddress,
      fiat_currency: request.fiatCurrency,
      fiat_amount: request.fiatAmount,
      email: request.email,
      redirect_url: request.returnUrl,
      merchant_transaction_id: request.paymentId,
      signature: `v2:${signature}`,
    });
  },
});
