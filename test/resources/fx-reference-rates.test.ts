import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { usdPerUnit } from '../../src/resources/fx-rates/derive.ts';
import { shownAddress } from '../../src/resources/fx-rates/fetch-feed.ts';
import { parseReferenceRates, RefusedFeed } from '../../src/resources/fx-rates/reference-rates.ts';

// The ECB file's reader and the USD rates derived from it, on the published format and on what
// a hostile or broken feed could send instead.

const ECB_DAILY = readFileSync(new URL('../fixtures/fx/eurofxref-daily.xml', import.meta.url), 'utf8');

const refusal = (xml: string) => {
  try {
    parseReferenceRates(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(RefusedFeed);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('reading the reference rates', () => {
  it('reads the published file: its day and every currency per euro', () => {
    const day = parseReferenceRates(ECB_DAILY);
    expect(day.day).toBe('2026-10-01');
    expect(day.perEuro.get('USD')).toBe('1.0512');
    expect(day.perEuro.get('GBP')).toBe('0.8624');
    expect(day.perEuro.size).toBe(30);
    expect(day.ambiguous.size).toBe(0);
  });

  it('derives USD per EUR, GBP, CAD and AUD exactly, rounded half up to 8 places', () => {
    expect(usdPerUnit(parseReferenceRates(ECB_DAILY))).toEqual([
      { currency: 'EUR', usdPerUnit: '1.05120000' },
      { currency: 'GBP', usdPerUnit: '1.21892393' },
      { currency: 'CAD', usdPerUnit: '0.71500476' },
      { currency: 'AUD', usdPerUnit: '0.65033408' },
    ]);
  });

  it('takes double quotes, comments and a file of several days (the newest wins)', () => {
    const xml = `<?xml version="1.0"?><!-- <Cube time="2030-01-01"> --><Envelope><Cube>
      <Cube time="2026-09-29"><Cube currency="USD" rate="1.01"/></Cube>
      <Cube time="2026-09-30"><Cube currency="USD" rate="1.02"/></Cube>
      <Cube time="2026-09-28"><Cube currency="USD" rate="1.03"/></Cube></Cube></Envelope>`;
    const day = parseReferenceRates(xml);
    expect(day.day).toBe('2026-09-30');
    expect(day.perEuro.get('USD')).toBe('1.02');
  });

  it('refuses what the format never has: a DTD and its entities (no expansion), CDATA', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
      <Cube><Cube time="2026-10-01"><Cube currency="USD" rate="&lol2;"/></Cube></Cube>`;
    expect(refusal(laughs)).toContain('DOCTYPE');
    expect(refusal(`<Cube><![CDATA[<Cube time="2026-10-01">]]></Cube>`)).toContain('CDATA');
  });

  it('refuses a document it cannot trust as a whole', () => {
    expect(refusal('not xml at all')).toBe('it holds no day of rates');
    expect(refusal('{"rates": {"USD": 1.05}}')).toBe('it holds no day of rates');
    expect(refusal(`<Cube><Cube time="2026-10-01"><Cube currency="USD" rate="1.05"`)).toBe('a tag never ends');
    expect(refusal(`<Cube><Cube time="2026-13-45"></Cube></Cube>`)).toContain('is not a day');
    expect(refusal(`<Cube><Cube time="2026-10-01"/><Cube time="2026-10-01"/></Cube>`)).toContain('twice');
    expect(refusal(`<Cube><Cube currency="USD" rate="1.05"/></Cube>`)).toBe('a rate stands outside any day');
    expect(refusal(`<Cube><Cube time="2026-10-01"><Cube currency="usd\u0000" rate="1"/></Cube></Cube>`)).toContain('not a currency code');
    expect(refusal(`<Cube time="2026-10-01" time="2026-10-02"/>`)).toContain('twice');
    expect(refusal(`<Cube time="2026-10-01" ${'a="b" '.repeat(200)}/>`)).toContain('over 512 characters');
    expect(refusal(`<Cube <Cube time="2026-10-01">`)).toBe('a tag opens inside a tag');
  });

  it('reads a huge hostile document in linear time', () => {
    const started = performance.now();
    expect(() => parseReferenceRates(`<Cube ${' '.repeat(60_000)}`)).toThrow(RefusedFeed);
    expect(() => parseReferenceRates(`${'<a>'.repeat(20_000)}`)).toThrow('no day');
    // Tags near the length cap, each with a long run no attribute matches: bounded work per tag.
    expect(parseReferenceRates(`<Cube time="2026-10-01">${`<Cube ${'a'.repeat(500)}>`.repeat(120)}`).perEuro.size).toBe(0);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('refuses a bad rate of a priced currency alone, and ignores currencies it does not price in', () => {
    const day = (rates: string) => parseReferenceRates(`<Cube><Cube time="2026-10-01">${rates}</Cube></Cube>`);
    const usd = '<Cube currency="USD" rate="1.05"/><Cube currency="CAD" rate="1.47"/><Cube currency="AUD" rate="1.61"/>';
    const derived = usdPerUnit(day(`${usd}<Cube currency="GBP" rate="-0.86"/><Cube currency="JPY" rate="junk"/>`));
    expect(derived).toEqual([
      { currency: 'EUR', usdPerUnit: '1.05000000' },
      { currency: 'GBP', refused: 'GBP\'s rate "-0.86" is not a positive decimal' },
      { currency: 'CAD', usdPerUnit: '0.71428571' },
      { currency: 'AUD', usdPerUnit: '0.65217391' },
    ]);
    expect(usdPerUnit(day(`${usd}<Cube currency="GBP" rate="0"/>`))[1]).toEqual({ currency: 'GBP', refused: 'GBP\'s rate is zero' });
    expect(usdPerUnit(day(`${usd}<Cube currency="GBP" rate="1e3"/>`))[1]).toMatchObject({ refused: expect.stringContaining('not a positive decimal') });
    expect(usdPerUnit(day(usd))[1]).toEqual({ currency: 'GBP', refused: 'GBP is missing' });
    expect(usdPerUnit(day(`${usd}<Cube currency="GBP" rate="0.86"/><Cube currency="GBP" rate="0.96"/>`))[1]).toEqual({ currency: 'GBP', refused: 'GBP is given twice' });
    // Absurd: a euro of 100 dollars, a pound of 0.01.
    expect(usdPerUnit(day('<Cube currency="USD" rate="100"/>'))[0]).toEqual({ currency: 'EUR', refused: '1 EUR = 100.00000000 USD is outside 0.2 to 5' });
    expect(usdPerUnit(day(`${usd}<Cube currency="GBP" rate="105"/>`))[1]).toMatchObject({ refused: expect.stringContaining('is outside 0.2 to 5') });
    // Without the dollar nothing can be derived.
    expect(usdPerUnit(day('<Cube currency="GBP" rate="0.86"/>')).map((rate) => 'refused' in rate && rate.refused)).toEqual(Array(4).fill('USD is missing'));
  });
});

describe('the feed\'s address in logs and rates list', () => {
  it('is shown without a password or a query, which may hold a key', () => {
    expect(shownAddress('https://user:secret@mirror.example/rates/eurofxref-daily.xml?key=k123#x')).toBe('https://mirror.example/rates/eurofxref-daily.xml');
  });
});
