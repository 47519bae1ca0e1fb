import { describe, expect, it } from 'vitest';
import { en } from '../../src/pages/messages/en.ts';
import { PayerPage } from '../../src/pages/views/frame.ts';
import { regionCode, regionsOf } from '../../src/pages/views/regions.ts';
import { durationParts, timeLeft } from '../../src/pages/views/time-left.ts';
import { REGION_CODES } from '../../src/resources/shared/addresses.ts';
import { de } from '../../src/pages/messages/de.ts';
import { html, renderPage } from '../../src/ui/index.ts';

// The payer frame's hooks for the merchant's brand (the logo beside the name), and the time left
// in words at each scale, as the server writes them.

const render = (logoPath: string | null) => renderPage(PayerPage({
  t: en, business: 'Kestrel Coffee Roasters', logoPath, livemode: true, title: 'Pay',
  summary: html`<p>Summary</p>`, children: html`<p>Steps</p>`,
}), { nonce: 'n0nce' }).toString();

describe('the payer frame', () => {
  it('shows the logo beside the business name, decorative and bounded, only when set', () => {
    expect(render('/assets/logos/biz_1.png')).toContain('<p class="business-mark"><img src="/assets/logos/biz_1.png" alt width="48" height="48"/><span>Kestrel Coffee Roasters</span></p>');
    expect(render(null)).toContain('<p class="business-mark"><span>Kestrel Coffee Roasters</span></p>');
    expect(render(null)).not.toContain('<img');
    // A path that is not a web address never reaches the page (the renderer's guard).
    expect(render('javascript:alert(1)')).not.toContain('javascript:');
  });

  it('puts the summary before the steps in the document (a phone reads it first)', () => {
    const page = render(null);
    expect(page.indexOf('Summary')).toBeLessThan(page.indexOf('Steps'));
    expect(page).toContain('<div class="pay-summary">');
  });
});

describe('the time left in words', () => {
  it('says days and hours, then hours and minutes, then minutes, then seconds', () => {
    const minute = 60_000;
    const hour = 60 * minute;
    expect(durationParts(6 * 24 * hour + 23 * hour + 59 * minute)).toEqual({ days: 6, hours: 23 });
    expect(durationParts(2 * 24 * hour + 10 * minute)).toEqual({ days: 2 });
    expect(durationParts(5 * hour + 3 * minute + 10_000)).toEqual({ hours: 5, minutes: 3 });
    expect(durationParts(14 * minute + 59_000)).toEqual({ minutes: 14 });
    expect(durationParts(45_500)).toEqual({ seconds: 45 });
    expect(durationParts(-5)).toEqual({ seconds: 0 });
    expect(timeLeft(en, 6 * 24 * hour + 23 * hour)).toBe('6 days, 23 hours');
    expect(timeLeft(en, 14 * minute)).toBe('14 minutes');
    expect(timeLeft(en, 45_000)).toBe('45 seconds');
    expect(timeLeft(de, 6 * 24 * hour + 23 * hour)).toBe('6 Tage, 23 Stunden');
    expect(timeLeft(de, hour + minute)).toBe('1 Stunde, 1 Minute');
  });
});

describe('the region lists', () => {
  it('name every region code the API takes, and take a typed name or code as its code', () => {
    for (const [country, codes] of Object.entries(REGION_CODES)) {
      const listed = regionsOf(country);
      expect(listed.map((region) => region.code).sort()).toEqual([...codes].sort());
      expect(listed.filter((region) => region.name === region.code)).toEqual([]);
    }
    expect(regionCode('US', 'california')).toBe('CA');
    expect(regionCode('US', ' u.s. virgin islands')).toBe('VI');
    expect(regionCode('AU', 'nsw')).toBe('NSW');
    expect(regionCode('CA', 'Nowhere')).toBe('Nowhere');
    expect(regionCode('DE', 'Bayern')).toBe('Bayern');
  });
});
