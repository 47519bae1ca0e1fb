import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.ts';
import { adapterFor, configuredProviders, type PurchaseRequest } from '../../src/resources/providers/adapters.ts';
import { CARD_PROVIDER_IDS } from '../../src/resources/providers/catalogue.ts';

// Each adapter's page, parameter by parameter, with the signatures recomputed here from the
// providers' documented algorithms (node:crypto), never by calling the adapter's own code.

const SECRETS = { moonpay: 'sk_live_moonpay-secret', mercuryo: 'mercuryo-widget-secret' };
const FULL_ENV = {
  MOONPAY_API_KEY: 'pk_live_moonpay',
  MOONPAY_SECRET_KEY: SECRETS.moonpay,
  RAMP_HOST_API_KEY: 'ramp-host-key',
  BANXA_PARTNER: 'ExamplePay',
  MERCURYO_WIDGET_ID: '67710925-8b40-4767-846e-3b88db69f04d',
  MERCURYO_SECRET: SECRETS.mercuryo,
  WERT_PARTNER_ID: '01GCRJZ1P7NRB2ZN8JJTNEPMT9',
};
const full = loadConfig(FULL_ENV).providers;
const none = loadConfig({}).providers;

// An email with "+" and a return address with its own query: both must arrive as one value each.
const REQUEST: PurchaseRequest = {
  walletAddress: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e',
  coin: 'polygon_usdc',
  fiatCurrency: 'USD',
  fiatAmount: '25.00',
  email: 'buyer+tag@example.com',
  returnUrl: 'https://pay.example.test/pay/pay_123?return=provider&note=a b',
  paymentId: 'pay_123',
  buyerIp: '203.0.113.7',
};

function pageOf(id: string, request: PurchaseRequest = REQUEST): URL {
  const adapter = adapterFor(id);
  if (!adapter) throw new Error(`no adapter for ${id}`);
  return new URL(adapter.purchaseUrl(request, full));
}

function parameters(url: URL): [string, string][] {
  return [...url.searchParams];
}

describe('MoonPay', () => {
  it('opens buy.moonpay.com with every parameter, the signature last', () => {
    const url = pageOf('moonpay');
    expect(url.origin + url.pathname).toBe('https://buy.moonpay.com/');
    expect(parameters(url)).toEqual([
      ['apiKey', 'pk_live_moonpay'],
      ['currencyCode', 'usdc_polygon'],
      ['walletAddress', REQUEST.walletAddress],
      ['baseCurrencyCode', 'usd'],
      ['baseCurrencyAmount', '25.00'],
      ['email', 'buyer+tag@example.com'],
      ['redirectURL', REQUEST.returnUrl],
      ['externalTransactionId', 'pay_123'],
      ['signature', expect.any(String)],
    ]);
  });

  it('signs the query string as sent: base64 HMAC-SHA256 of "?…" keyed by the secret key', () => {
    const url = pageOf('moonpay');
    const signed = url.search.slice(0, url.search.lastIndexOf('&signature='));
    const expected = createHmac('sha256', SECRETS.moonpay).update(signed).digest('base64');
    expect(signed.startsWith('?apiKey=')).toBe(true);
    expect(url.searchParams.get('signature')).toBe(expected);
  });

  it('leaves the email out when it is unknown, and the signature still covers what is sent', () => {
    const url = pageOf('moonpay', { ...REQUEST, email: null });
    expect(url.searchParams.has('email')).toBe(false);
    const signed = url.search.slice(0, url.search.lastIndexOf('&signature='));
    expect(url.searchParams.get('signature')).toBe(createHmac('sha256', SECRETS.moonpay).update(signed).digest('base64'));
  });
});

describe('Ramp Network', () => {
  it('opens app.rampnetwork.com with every parameter and no signature', () => {
    const url = pageOf('ramp');
    expect(url.origin + url.pathname).toBe('https://app.rampnetwork.com/');
    expect(parameters(url)).toEqual([
      ['hostApiKey', 'ramp-host-key'],
      ['swapAsset', 'MATIC_USDC2'],
      ['userAddress', REQUEST.walletAddress],
      ['fiatCurrency', 'USD'],
      ['fiatValue', '25.00'],
      ['userEmailAddress', 'buyer+tag@example.com'],
      ['finalUrl', REQUEST.returnUrl],
    ]);
  });
});

describe('Banxa', () => {
  it("opens the partner's banxa.com subdomain (lower case) with every parameter", () => {
    const url = pageOf('banxa');
    expect(url.origin + url.pathname).toBe('https://examplepay.banxa.com/');
    expect(parameters(url)).toEqual([
      ['coinType', 'USDC'],
      ['blockchain', 'MATIC'],
      ['walletAddress', REQUEST.walletAddress],
      ['fiatType', 'USD'],
      ['fiatAmount', '25.00'],
      ['email', 'buyer+tag@example.com'],
      ['returnUrl', REQUEST.returnUrl],
    ]);
  });
});

describe('Mercuryo', () => {
  const signature = (ip: string) =>
    `v2:${createHash('sha512').update(`${REQUEST.walletAddress}${SECRETS.mercuryo}${ip}pay_123`).digest('hex')}`;

  it('opens exchange.mercuryo.io with every parameter', () => {
    const url = pageOf('mercuryo');
    expect(url.origin + url.pathname).toBe('https://exchange.mercuryo.io/');
    expect(parameters(url)).toEqual([
      ['widget_id', FULL_ENV.MERCURYO_WIDGET_ID],
      ['type', 'buy'],
      ['currency', 'USDC'],
      ['fix_currency', 'true'],
      ['network', 'POLYGON'],
      ['address', REQUEST.walletAddress],
      ['fiat_currency', 'USD'],
      ['fiat_amount', '25.00'],
      ['email', 'buyer+tag@example.com'],
      ['redirect_url', REQUEST.returnUrl],
      ['merchant_transaction_id', 'pay_123'],
      ['signature', signature('203.0.113.7')],
    ]);
  });

  it('signs "v2:" + hex SHA-512 of address, secret, IP and transaction id (the documented example)', () => {
    // widget.docs.mercuryo.io, "Signature Generation": these four inputs give "v2:83a6473f7b0aade8cd794c38f435d8db…".
    const config = loadConfig({ MERCURYO_WIDGET_ID: 'widget', MERCURYO_SECRET: 'your_secret_key_123' }).providers;
    const request = { ...REQUEST, walletAddress: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e', buyerIp: '192.168.1.1', paymentId: 'tx_123456' };
    const url = new URL(adapterFor('mercuryo')!.purchaseUrl(request, config));
    expect(url.searchParams.get('signature')).toMatch(/^v2:83a6473f7b0aade8cd794c38f435d8db[0-9a-f]{96}$/);
  });

  it('signs the plain IPv4 address of a buyer the socket reports as IPv4-mapped IPv6', () => {
    const url = pageOf('mercuryo', { ...REQUEST, buyerIp: '::ffff:203.0.113.7' });
    expect(url.searchParams.get('signature')).toBe(signature('203.0.113.7'));
  });
});

describe('Wert', () => {
  it('opens widget.wert.io/<partner_id>/widget with every parameter', () => {
    const url = pageOf('wert');
    expect(url.origin + url.pathname).toBe('https://widget.wert.io/01GCRJZ1P7NRB2ZN8JJTNEPMT9/widget');
    expect(parameters(url)).toEqual([
      ['commodity', 'USDC'],
      ['network', 'polygon'],
      ['commodities', '[{"commodity":"USDC","network":"polygon"}]'],
      ['address', REQUEST.walletAddress],
      ['currencies', '["USD"]'],
      ['currency_amount', '25.00'],
      ['email', 'buyer+tag@example.com'],
      ['redirect_url', REQUEST.returnUrl],
      ['click_id', 'pay_123'],
    ]);
  });
});

describe('every adapter', () => {
  const ids = ['moonpay', 'ramp', 'banxa', 'mercuryo', 'wert'];

  it.each(ids)('%s encodes every value: "+", "&", "?" and spaces cannot break out of their parameter', (id) => {
    const href = adapterFor(id)!.purchaseUrl(REQUEST, full);
    expect(href.startsWith('https://')).toBe(true);
    expect(href).toContain('buyer%2Btag%40example.com');
    expect(href).not.toContain('&return=provider');
    const url = new URL(href);
    expect(url.searchParams.has('return')).toBe(false);
    expect(url.searchParams.has('note')).toBe(false);
    expect([...url.searchParams.values()]).toContain(REQUEST.returnUrl);
  });

  it.each(ids)('%s leaves out an unknown email', (id) => {
    const url = new URL(adapterFor(id)!.purchaseUrl({ ...REQUEST, email: null }, full));
    expect([...url.searchParams.values()]).not.toContain('buyer+tag@example.com');
    expect([...url.searchParams.keys()].some((name) => /email/i.test(name))).toBe(false);
  });

  it.each(ids)('%s is configured only with its full configuration, and refuses a page without it', (id) => {
    const adapter = adapterFor(id)!;
    expect(adapter.configured(full)).toBe(true);
    expect(adapter.configured(none)).toBe(false);
    expect(() => adapter.purchaseUrl(REQUEST, none)).toThrow(`The ${id} provider is not configured`);
  });

  it('covers exactly the catalogue card providers but Transak, which needs a server-made session URL', () => {
    expect(CARD_PROVIDER_IDS.filter((id) => adapterFor(id) !== undefined)).toEqual(ids);
    expect(adapterFor('transak')).toBeUndefined();
    expect(adapterFor('coinbase')).toBeUndefined();
  });

  it('never puts a secret in the URL', () => {
    for (const id of ids) {
      const href = adapterFor(id)!.purchaseUrl(REQUEST, full);
      expect(href).not.toContain(SECRETS.moonpay);
      expect(href).not.toContain(SECRETS.mercuryo);
    }
  });
});

describe('configuredProviders', () => {
  it('lists exactly the configured providers, in catalogue order', () => {
    expect(configuredProviders(none)).toEqual([]);
    expect(configuredProviders(full)).toEqual(['moonpay', 'ramp', 'banxa', 'mercuryo', 'wert']);
    const some = loadConfig({ WERT_PARTNER_ID: 'wert-partner', MOONPAY_API_KEY: 'pk', MOONPAY_SECRET_KEY: 'sk' }).providers;
    expect(configuredProviders(some)).toEqual(['moonpay', 'wert']);
    const one = loadConfig({ BANXA_PARTNER: 'examplepay' }).providers;
    expect(configuredProviders(one)).toEqual(['banxa']);
  });
});
