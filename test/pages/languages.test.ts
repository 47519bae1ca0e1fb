import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { de } from '../../src/pages/messages/de.ts';
import { en } from '../../src/pages/messages/en.ts';
import { messagesFor } from '../../src/pages/messages/index.ts';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp, type TestKey } from '../support/harness.ts';

// The payer pages speak the buyer's language: the catalogue Accept-Language asks for first
// (English and German so far), English otherwise, whatever the header holds.

describe('choosing the catalogue from Accept-Language', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de', 'de'],
    ['de-AT', 'de'],
    ['DE-de', 'de'],
    ['fr-FR, de;q=0.8, en;q=0.5', 'de'],
    ['en;q=0.4, de;q=0.9', 'de'],
    ['de;q=0.5, en', 'en'],
    ['de;q=0, fr', 'en'],
    ['*', 'en'],
    ['fr, es', 'en'],
    ['de;q=abc, en;q=0.1', 'en'],
    ['constructor', 'en'],
    ['__proto__', 'en'],
    ['toString, hasOwnProperty', 'en'],
    ['de;q=1.5, en;q=0.2', 'en'],
    [';;;,,,=', 'en'],
  ])('%j speaks %s', (header, lang) => {
    expect(messagesFor(header).lang).toBe(lang);
  });

  it('reads a 5,000-character language tag as one it does not have', () => {
    expect(messagesFor(`${'x'.repeat(5000)}, de;q=0.5`).lang).toBe('de');
    expect(messagesFor(`de-${'x'.repeat(5000)}`).lang).toBe('de');
  });

  it('has a German word for every English string', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    expect(Object.keys(de.statuses).sort()).toEqual(Object.keys(en.statuses).sort());
  });

  it('says a refused field in the buyer\'s words from its code and field, and never the API\'s sentence', () => {
    expect(de.fieldError({ code: 'invalid_address', message: 'country must be…', field: 'shipping_address.country' })).toBe('Wählen Sie Ihr Land aus der Liste.');
    expect(de.fieldError({ code: 'invalid_address', message: 'region must be a US region code, one of AL, AK.', field: 'shipping_address.region', country: 'US' })).toBe('Wählen Sie Ihren Bundesstaat aus der Liste.');
    expect(en.fieldError({ code: 'invalid_address', message: 'region must be a US region code, one of AL, AK.', field: 'shipping_address.region', country: 'US' })).toBe('Choose your state from the list.');
    expect(en.fieldError({ code: 'invalid_address', message: 'region is required for addresses in CA.', field: 'billing_address.region', country: 'CA' })).toBe('Choose your province or territory from the list.');
    expect(en.fieldError({ code: 'invalid_address', message: 'postal_code is not a valid US postal code.', field: 'shipping_address.postal_code', country: 'US', value: '1234' })).toMatch(/postal code does not fit the country/);
    expect(en.fieldError({ code: 'invalid_address', message: 'postal_code is required for addresses in DE.', field: 'shipping_address.postal_code', country: 'DE' })).toBe('Enter the postal code.');
    expect(de.fieldError({ code: 'invalid_address', message: 'Enter your billing address.', field: 'billing_address' })).toBe('Geben Sie Ihre Rechnungsadresse ein.');
    expect(de.fieldError({ code: 'invalid_customer', message: 'name is too long', field: 'name' })).toMatch(/Namen/);
    expect(de.fieldError({ code: 'invalid_email', message: 'email is not an email address.', field: 'email' })).toMatch(/E-Mail-Adresse/);
    expect(de.fieldError({ code: 'something_new', message: 'amount must be a decimal string.' })).toBe('Bitte prüfen Sie Ihre Eingabe hier.');
    expect(en.fieldError({ code: 'something_new', message: 'amount must be a decimal string.' })).toBe('Please check what you entered here.');
  });
});

describe('a payer page in German', () => {
  let t: TestApp;
  let key: TestKey;
  beforeAll(async () => {
    t = await startTestApp();
    key = await (await t.business({ name: 'Kaffeerösterei Falke' })).key();
  });
  afterAll(async () => {
    await t.close();
  });

  const link = async (body: Record<string, unknown> = {}) => {
    const created = await t.request('POST', '/v1/payment_links', { key: key.secret, body: { amount: '1234.50', currency: 'EUR', description: 'Röstkaffee', ...body } });
    expect(created.status).toBe(201);
    return new URL(created.body.url as string).pathname;
  };

  it('is German throughout, with prices and times as German writes them', async () => {
    const response = await fetch(`${t.url}${await link()}`, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-language')).toBe('de');
    expect(response.headers.get('vary')).toMatch(/Accept-Language/i);
    const html = await response.text();
    expect(html).toContain('<html lang="de"');
    expect(html).toContain('Testmodus: Es fließt kein echtes Geld.');
    expect(html).toContain('<title>Bezahlen: Röstkaffee · Kaffeerösterei Falke');
    expect(html).toContain('1.234,50\u00a0€');
    expect(html).toContain('Weiter zur Zahlung');
    expect(html).not.toContain('Amount due');
  });

  it('is English for a browser that asks for a language we do not have', async () => {
    const response = await fetch(`${t.url}${await link()}`, { headers: { 'accept-language': 'fr-FR,fr;q=0.9' } });
    expect(response.headers.get('content-language')).toBe('en');
    const html = await response.text();
    expect(html).toContain('<html lang="en"');
    expect(html).toContain('€1,234.50');
  });

  it('says what is wrong with a field in German, beside it, keeping what was typed, and starts nothing', async () => {
    const path = await link({ collect: { shipping_address: true } });
    const browser = new Browser(t);
    const german = { 'accept-language': 'de' };
    const page = await browser.request('GET', path, undefined, german);
    const refused = await browser.request('POST', `${path}/start`, {
      ...Browser.form(page.html, `${path}/start`),
      'email': 'kundin@example.de', 'shipping_address.line1': 'Hafenstraße 3', 'shipping_address.city': 'Hamburg', 'shipping_address.country': 'XX',
    }, german);
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Bitte prüfen Sie die unten markierten Felder.');
    expect(refused.html).toContain('Fehler: Wählen Sie Ihr Land aus der Liste.');
    expect(refused.html).toContain('value="Hafenstraße 3"');
    const id = path.split('/').pop()!;
    const payment = await t.db.selectFrom('payments').select(['started_at', 'customer_email']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(payment).toEqual({ started_at: null, customer_email: null });
  });

  it('answers a missing payment in German', async () => {
    const response = await fetch(`${t.url}/pay/pay_doesNotExist0000000000`, { headers: { 'accept-language': 'de' } });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('Seite nicht gefunden');
  });
});
