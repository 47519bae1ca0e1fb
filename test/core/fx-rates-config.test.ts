import { describe, expect, it } from 'vitest';
import { ECB_DAILY_RATES_URL, loadConfig } from '../../src/core/config.ts';

// The rate feed's settings (docs/accept-payments.md, Exchange rates): the ECB's daily file unless set, `off` for
// none, and the age a Live start accepts.

describe('FX_RATES_URL and FX_RATES_MAX_AGE_HOURS', () => {
  it('default to the ECB\'s daily reference rates and 96 hours', () => {
    expect(loadConfig({}).fxRates).toEqual({ url: ECB_DAILY_RATES_URL, maxAgeHours: 96 });
    expect(ECB_DAILY_RATES_URL).toBe('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml');
  });

  it('take another http(s) address, or off for no feed, and a bound in hours', () => {
    expect(loadConfig({ FX_RATES_URL: 'http://rates.internal:8080/eurofxref-daily.xml', FX_RATES_MAX_AGE_HOURS: '72' }).fxRates)
      .toEqual({ url: 'http://rates.internal:8080/eurofxref-daily.xml', maxAgeHours: 72 });
    expect(loadConfig({ FX_RATES_URL: 'off' }).fxRates.url).toBeUndefined();
  });

  it('refuse anything else, naming the setting and never echoing the value', () => {
    for (const url of ['ftp://rates.example/x.xml', 'rates.example', 'OFF ']) {
      expect(() => loadConfig({ FX_RATES_URL: url })).toThrow('Invalid configuration:\n  FX_RATES_URL: an http(s):// URL of reference rates in the ECB\'s format, or off');
    }
    for (const hours of ['0', '721', '1.5', 'a day']) {
      expect(() => loadConfig({ FX_RATES_MAX_AGE_HOURS: hours })).toThrow(/FX_RATES_MAX_AGE_HOURS/);
    }
  });
});
