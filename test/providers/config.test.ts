import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.ts';

// The card providers' configuration: every provider optional, a provider's keys all or none,
// values that become part of an address checked, and secrets that never print.

describe('provider configuration', () => {
  it('is empty without variables', () => {
    expect(loadConfig({}).providers).toEqual({ moonpay: undefined, ramp: undefined, banxa: undefined, mercuryo: undefined, wert: undefined });
  });

  it.each([
    [{ MOONPAY_API_KEY: 'pk_live_x' }, 'MOONPAY_API_KEY and MOONPAY_SECRET_KEY go together; MOONPAY_SECRET_KEY is missing.'],
    [{ MOONPAY_SECRET_KEY: 'sk_live_x' }, 'MOONPAY_API_KEY and MOONPAY_SECRET_KEY go together; MOONPAY_API_KEY is missing.'],
    [{ MERCURYO_WIDGET_ID: 'widget' }, 'MERCURYO_WIDGET_ID and MERCURYO_SECRET go together; MERCURYO_SECRET is missing.'],
    [{ MERCURYO_SECRET: 'secret' }, 'MERCURYO_WIDGET_ID and MERCURYO_SECRET go together; MERCURYO_WIDGET_ID is missing.'],
  ])('refuses half a configuration in one sentence (%o)', (env, sentence) => {
    expect(() => loadConfig(env)).toThrow(`Invalid configuration:\n  ${sentence}`);
  });

  it('refuses half an OIDC configuration the same way', () => {
    expect(() => loadConfig({ OIDC_ISSUER: 'https://id.example.test' })).toThrow(
      'Invalid configuration:\n  OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together; OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are missing.',
    );
  });

  it.each(['-examplepay', 'examplepay-', 'example.pay', 'example pay', 'evil.com/x', 'a'.repeat(64), ''])(
    'refuses a Banxa partner that is not one DNS label (%j)',
    (partner) => {
      expect(() => loadConfig({ BANXA_PARTNER: partner })).toThrow(/BANXA_PARTNER/);
    },
  );

  it('takes a Banxa partner label in any case and keeps it in lower case', () => {
    expect(loadConfig({ BANXA_PARTNER: 'Example-Pay1' }).providers.banxa).toEqual({ partner: 'example-pay1' });
  });

  it.each(['../admin', 'a/b', 'id?x=1', ''])('refuses a Wert partner id that is not one path segment (%j)', (partnerId) => {
    expect(() => loadConfig({ WERT_PARTNER_ID: partnerId })).toThrow(/WERT_PARTNER_ID/);
  });

  it('keeps secrets out of logs, JSON and strings, and gives them up only through reveal()', () => {
    const providers = loadConfig({ MOONPAY_API_KEY: 'pk', MOONPAY_SECRET_KEY: 'sk_top_secret', MERCURYO_WIDGET_ID: 'w', MERCURYO_SECRET: 'mercuryo_top_secret' }).providers;
    for (const shown of [inspect(providers, { depth: 10 }), JSON.stringify(providers), `${providers.moonpay?.secretKey}`]) {
      expect(shown).not.toContain('top_secret');
    }
    expect(providers.moonpay?.secretKey.reveal()).toBe('sk_top_secret');
    expect(providers.mercuryo?.secret.reveal()).toBe('mercuryo_top_secret');
  });
});
