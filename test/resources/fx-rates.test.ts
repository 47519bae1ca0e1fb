import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HOUR, MINUTE, SECOND } from '../../src/core/clock.ts';
import { clearFxRate, setFxRate } from '../../src/resources/fx-rates/rates.ts';
import { refreshFxRates } from '../../src/resources/fx-rates/refresh.ts';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { account, expectError } from '../support/api.ts';
import { Browser } from '../support/browser.ts';
import { runCli } from '../support/cli.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Exchange rates (issue 22, must-have 7): the ECB's reference rates served from a loopback HTTP
// server, fetched by the workers' job, checked as hostile input; a Live start in EUR, GBP, CAD or
// AUD locks the rate in effect, or is refused with nothing written when it is older than the
// bound (96 hours here, the default); the operator's rate as an override. The clock starts at
// 2026-10-01 12:00 UTC, the reference time of the fixture's day.

const ECB_DAILY = readFileSync(new URL('../fixtures/fx/eurofxref-daily.xml', import.meta.url), 'utf8');
const METRICS_TOKEN = 'fx-rates-test-metrics-token-0123456789';

/** The fixture with another day, some rates changed and some currencies left out (null). */
function ecbDay(day: string, rates: Record<string, string | null> = {}): string {
  let xml = ECB_DAILY.replace("time='2026-10-01'", `time='${day}'`);
  for (const [currency, rate] of Object.entries(rates)) {
    const line = new RegExp(`\\s*<Cube currency='${currency}' rate='[^']*'/>`);
    xml = xml.replace(line, rate === null ? '' : `\n\t\t\t<Cube currency='${currency}' rate='${rate}'/>`);
  }
  return xml;
}

let t: TestApp;
let feed: Server;
let answer: (response: ServerResponse) => void;
const serve = (body: string | Buffer) => { answer = (response) => response.writeHead(200, { 'content-type': 'text/xml' }).end(body); };
const logged: string[] = [];
/** A Live GBP payment started while its rate was fresh. */
let startedEarlier: { key: string; id: string };

beforeAll(async () => {
  feed = createServer((_request, response) => answer(response));
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  serve(ECB_DAILY);
  const url = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/stats/eurofxref/eurofxref-daily.xml`;
  t = await startTestApp({ RATE_LIMITS: 'off', FX_RATES_URL: url, METRICS_TOKEN });
});
afterAll(async () => {
  await t?.close();
  feed?.closeAllConnections();
  await new Promise((resolve) => feed?.close(resolve));
});

const refresh = (timeoutMs = 5_000) => refreshFxRates(t.context, { timeoutMs, log: (line) => logged.push(line) });
const feedRates = () => t.db.selectFrom('fx_rates').select(['currency', sql<string>`usd_per_unit::text`.as('usd_per_unit'), 'reference_at']).orderBy('currency').execute();
const lastFetch = () => t.db.selectFrom('fx_rate_last_fetch').selectAll().executeTakeFirstOrThrow();
const paymentRow = (id: string) => t.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const depositIndex = async () => (await sql<{ last_value: string; is_called: boolean }>`SELECT last_value, is_called FROM deposit_address_index`.execute(t.db)).rows[0];

async function session(key: string, amount: string, currency: string): Promise<string> {
  const created = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount, currency } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}
/** A start as a buyer's would be, with a healthy processor's recent report (the clock moves in these tests). */
const start = async (key: string, id: string, email = 'ann@buyer.example') => {
  await reportProcessorStatus(t);
  return t.request('POST', `/v1/checkout_sessions/${id}/start`, { key, body: { email } });
};

/** Starts a new session of `amount` `currency` and answers its locked USD value, in cents. */
async function startedUsdValue(key: string, amount: string, currency: string): Promise<number | null> {
  const id = await session(key, amount, currency);
  const started = await start(key, id);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return (await paymentRow(id)).usd_value_minor;
}

/** A Live start refused for its rate, and everything that shows nothing was written. */
async function expectRefusedStart(key: string, amount: string, currency: string, email: string): Promise<string> {
  const id = await session(key, amount, currency);
  const before = { payment: await paymentRow(id), index: await depositIndex() };
  const refused = await start(key, id, email);
  expectError(refused, 409, 'exchange_rate_unavailable');
  expect(refused.body.error.message).toContain(`Live payments in ${currency} cannot start`);
  expect(await paymentRow(id)).toEqual(before.payment);
  expect(before.payment).toMatchObject({ started_at: null, usd_value_minor: null, deposit_address: null, customer_email: null });
  expect(await depositIndex()).toEqual(before.index);
  expect(await t.db.selectFrom('events').select('id').where('payment_id', '=', id).execute()).toEqual([]);
  expect(await t.db.selectFrom('customers').select('id').where('email', '=', email).execute()).toEqual([]);
  return refused.body.error.message;
}

describe('before the feed is read', () => {
  it('has only the placeholders of a fresh install: Test uses them, Live refuses them for EUR and not for USD', async () => {
    const live = (await account(t, {}, 'live')).key;
    const message = await expectRefusedStart(live, '50.00', 'EUR', 'placeholder@buyer.example');
    expect(message).toBe('Live payments in EUR cannot start yet: the service has no EUR exchange rate from its rate source. Try again later; prices in USD are not affected.');
    expect(await startedUsdValue(live, '50.00', 'USD')).toBe(5000);
    const test = (await account(t)).key;
    expect(await startedUsdValue(test, '50.00', 'EUR')).toBe(5400);
  });
});

describe('the feed', () => {
  it('is fetched and stored: USD per unit derived from the euro rates, aged from the reference day', async () => {
    const result = await refresh();
    expect(result).toMatchObject({ ok: true, stored: ['EUR', 'GBP', 'CAD', 'AUD'], refused: [] });
    const noon = new Date('2026-10-01T12:00:00Z');
    expect(await feedRates()).toEqual([
      { currency: 'AUD', usd_per_unit: '0.65033408', reference_at: noon },
      { currency: 'CAD', usd_per_unit: '0.71500476', reference_at: noon },
      { currency: 'EUR', usd_per_unit: '1.05120000', reference_at: noon },
      { currency: 'GBP', usd_per_unit: '1.21892393', reference_at: noon },
      { currency: 'USD', usd_per_unit: '1.00000000', reference_at: expect.any(Date) },
    ]);
    expect(await lastFetch()).toMatchObject({ ok: true, outcome: 'rates of 2026-10-01: EUR 1.05120000, GBP 1.21892393, CAD 0.71500476, AUD 0.65033408' });
  });

  it('gives a Live start in EUR and GBP its rate: the payment\'s USD value', async () => {
    const live = (await account(t, {}, 'live')).key;
    expect(await startedUsdValue(live, '50.00', 'EUR')).toBe(5256);
    // 10.00 GBP x 1.21892393 = 12.1892393: 1219 cents.
    // A payment link: still open days later, when the rate has gone stale.
    const link = await t.request('POST', '/v1/payment_links', { key: live, body: { amount: '10.00', currency: 'GBP', description: 'Tea', expires_in_days: 30 } });
    startedEarlier = { key: live, id: link.body.id };
    expect((await start(live, startedEarlier.id)).status).toBe(200);
    expect((await paymentRow(startedEarlier.id)).usd_value_minor).toBe(1219);
  });

  describe('hostile or broken answers change nothing', () => {
    const big = `${ECB_DAILY}<!--${'x'.repeat(70 * 1024)}-->`;
    const cases: Array<[string, (response: ServerResponse) => void, string]> = [
      ['a body over 64 KiB', (response) => response.writeHead(200).end(big), 'over 64 KiB'],
      ['a body over 64 KiB, chunked without a length', (response) => {
        response.writeHead(200);
        for (let i = 0; i < 80; i += 1) response.write('x'.repeat(1024));
        response.end();
      }, 'over 64 KiB'],
      ['entities (a billion laughs)', (response) => response.writeHead(200).end(`<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "1.0512">]>${ECB_DAILY.slice(ECB_DAILY.indexOf('<gesmes:Envelope'))}`), 'DOCTYPE'],
      ['an HTML page', (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Service unavailable</body></html>'), 'no day of rates'],
      ['an HTTP 500', (response) => response.writeHead(500).end(ECB_DAILY), 'HTTP 500'],
      ['a redirect (not followed)', (response) => response.writeHead(302, { location: '/elsewhere' }).end(), 'HTTP 302'],
      ['bytes that are not UTF-8', (response) => response.writeHead(200).end(Buffer.from([0x3c, 0xff, 0xfe, 0x3e])), 'not UTF-8'],
      ['a negative dollar rate', (response) => response.writeHead(200).end(ecbDay('2026-10-01', { USD: '-1.0512' })), 'not a positive decimal'],
      ['a zero dollar rate', (response) => response.writeHead(200).end(ecbDay('2026-10-01', { USD: '0' })), 'zero'],
      ['the dollar missing', (response) => response.writeHead(200).end(ecbDay('2026-10-01', { USD: null })), 'USD is missing'],
      ['an absurd rate', (response) => response.writeHead(200).end(ecbDay('2026-10-01', { USD: '105.12' })), 'is outside 0.2 to 5'],
      ['a jump of over 25 % in a day', (response) => response.writeHead(200).end(ecbDay('2026-10-01', { USD: '1.4' })), 'over 25%'],
      ['a day still to come', (response) => response.writeHead(200).end(ecbDay('2026-10-03')), 'still to come'],
    ];
    // (The same day as stored: a corrected day is taken, so only what is wrong in it refuses it.)
    it.each(cases)('%s', async (_name, respond, reason) => {
      const before = await feedRates();
      answer = respond;
      logged.length = 0;
      const result = await refresh();
      expect(result.stored).toEqual([]);
      expect(result.refused.join(' ')).toContain(reason);
      expect(await feedRates()).toEqual(before);
      expect((await lastFetch()).outcome).toContain(reason);
      expect(logged.join('\n')).toContain(reason);
    });

    it('an answer that trickles in is cut off at the time limit', async () => {
      const before = await feedRates();
      answer = (response) => {
        response.writeHead(200);
        const drip = setInterval(() => response.write(' '), 20);
        response.on('close', () => clearInterval(drip));
      };
      const started = performance.now();
      const result = await refresh(300);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(result).toMatchObject({ ok: false, outcome: 'refused: the whole answer did not arrive within 0.3 seconds' });
      expect(await feedRates()).toEqual(before);
    });

    it('an older day than the one stored replaces nothing', async () => {
      const before = await feedRates();
      serve(ecbDay('2026-09-30', { USD: '1.06' }));
      expect(await refresh()).toMatchObject({ ok: true, stored: [], refused: [], outcome: 'rates of 2026-09-30: nothing new' });
      expect(await feedRates()).toEqual(before);
    });
  });

  it('a currency left out, or refused alone, keeps its previous rate while the others move on', async () => {
    await t.jump(24 * HOUR);
    serve(ecbDay('2026-10-02', { USD: '1.0600', GBP: null, AUD: '-1' }));
    const result = await refresh();
    expect(result).toMatchObject({ ok: true, stored: ['EUR', 'CAD'], refused: ['GBP is missing', 'AUD\'s rate "-1" is not a positive decimal'] });
    const rates = Object.fromEntries((await feedRates()).map((rate) => [rate.currency, rate]));
    expect(rates.EUR).toMatchObject({ usd_per_unit: '1.06000000', reference_at: new Date('2026-10-02T12:00:00Z') });
    expect(rates.GBP).toMatchObject({ usd_per_unit: '1.21892393', reference_at: new Date('2026-10-01T12:00:00Z') });
    expect(rates.AUD).toMatchObject({ usd_per_unit: '0.65033408', reference_at: new Date('2026-10-01T12:00:00Z') });
    expect(logged.at(-1)).toContain('GBP is missing');
  });
});

describe('a rate older than the bound (96 hours)', () => {
  it('refuses a Live start in its currency with nothing written; other currencies, USD and Test go on', async () => {
    // 2026-10-05 13:00: GBP's rate (of 10-01 12:00) is 97 hours old, EUR's (of 10-02 12:00) 73.
    t.clock.set(new Date('2026-10-05T13:00:00Z'));
    await t.jump(0);
    const live = (await account(t, {}, 'live')).key;
    const message = await expectRefusedStart(live, '10.00', 'GBP', 'stale@buyer.example');
    expect(message).toBe('Live payments in GBP cannot start right now: the newest GBP exchange rate is of 2026-10-01 12:00 UTC, older than the 96 hours allowed. Try again later; prices in USD are not affected.');
    expect(await startedUsdValue(live, '10.00', 'EUR')).toBe(1060);
    expect(await startedUsdValue(live, '10.00', 'USD')).toBe(1000);
    const test = (await account(t)).key;
    expect(await startedUsdValue(test, '10.00', 'GBP')).toBe(1219);
  });

  it('refuses a buyer on a Live checkout page in that currency with a page that says so, and makes no payment, order or customer', async () => {
    const { biz, key } = await account(t, {}, 'live');
    const created = await t.request('POST', '/v1/checkouts', { key, body: { name: 'House blend', amount: '18.50', currency: 'GBP' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const action = `/c/${created.body.slug}`;
    await reportProcessorStatus(t);
    for (const language of ['en', 'de']) {
      const browser = new Browser(t);
      const headers = { 'accept-language': language };
      const page = await browser.request('GET', created.body.url, undefined, headers);
      expect(page.status).toBe(200);
      const bought = await browser.request('POST', action, { [CSRF_FIELD]: Browser.form(page.html, action)[CSRF_FIELD]!, email: 'page@buyer.example' }, headers);
      expect(bought.status).toBe(409);
      expect(bought.html).toContain(language === 'en' ? 'Live payments in this currency cannot start right now' : 'Der Wechselkurs für ihre Währung ist nicht aktuell');
    }
    for (const table of ['payments', 'orders', 'customers'] as const) {
      expect(await t.db.selectFrom(table).select('id').where('business_id', '=', biz.id).execute()).toEqual([]);
    }
  });

  it('holds to the second: 96 hours old is accepted, a second more is not', async () => {
    const live = (await account(t, {}, 'live')).key;
    t.clock.set(new Date('2026-10-06T12:00:00Z'));
    expect(await startedUsdValue(live, '10.00', 'EUR')).toBe(1060);
    t.clock.advance(SECOND);
    await expectRefusedStart(live, '10.00', 'EUR', 'second@buyer.example');
  });

  it('lets a payment started earlier start again: its USD value was locked at the first start', async () => {
    const { key, id } = startedEarlier;
    const again = await start(key, id, 'bob@buyer.example');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await paymentRow(id)).toMatchObject({ customer_email: 'bob@buyer.example', usd_value_minor: 1219 });
  });
});

describe('the operator\'s rate', () => {
  it('wins over the feed\'s while set, ages from when it was set, and clearing it gives the feed\'s back', async () => {
    const live = (await account(t, {}, 'live')).key;
    // Now 2026-10-06 12:00:01: the feed has that day's rates.
    serve(ecbDay('2026-10-06'));
    expect((await refresh()).stored).toEqual(['EUR', 'GBP', 'CAD', 'AUD']);
    await setFxRate(t.context, 'GBP', '1.25');
    expect(await startedUsdValue(live, '10.00', 'GBP')).toBe(1250);
    // A fresher feed rate does not replace it.
    await t.jump(HOUR);
    expect((await refresh()).stored).toContain('GBP');
    expect(await startedUsdValue(live, '10.00', 'GBP')).toBe(1250);
    expect(await clearFxRate(t.db, 'GBP')).toBe(true);
    expect(await startedUsdValue(live, '10.00', 'GBP')).toBe(1219);
    // Set now, it is refused once older than the bound, like any rate.
    await setFxRate(t.context, 'CAD', '0.70');
    await t.jump(96 * HOUR + MINUTE);
    await expectRefusedStart(live, '10.00', 'CAD', 'override@buyer.example');
    await setFxRate(t.context, 'CAD', '0.71');
    expect(await startedUsdValue(live, '10.00', 'CAD')).toBe(710);
  });

  it('is set, listed and cleared from the CLI, which still says where each rate comes from and how old it is', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'fx-cli-'));
    try {
      const env = { DATA_DIR: dataDir, FX_RATES_URL: 'off' };
      const set = await runCli(t, ['rates', 'set', '--currency', 'eur', '--usd', '1.1', '--json'], env);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout)).toMatchObject({ currency: 'EUR', usd_per_unit: '1.1' });
      const listed = await runCli(t, ['rates', 'list', '--json'], env);
      expect(listed.code, listed.stderr).toBe(0);
      const list = JSON.parse(listed.stdout);
      expect(list).toMatchObject({ max_age_hours: 96, feed_url: null, last_fetch: { ok: true, url: expect.stringContaining('eurofxref-daily.xml') } });
      expect(list.data.map((rate: { currency: string; source: string; usd_per_unit: string }) => [rate.currency, rate.source, rate.usd_per_unit])).toEqual([
        ['AUD', 'feed', '0.65033408'], ['CAD', 'operator', '0.71000000'], ['EUR', 'operator', '1.10000000'], ['GBP', 'feed', '1.21892393'],
      ]);
      const text = await runCli(t, ['rates', 'list'], env);
      expect(text.stdout).toMatch(/^EUR {2}1\.10000000 {2}operator {2}of \d{4}-\d\d-\d\d \d\d:\d\d UTC \([\d.]+ h\) {2}Live: ok$/m);
      expect(text.stdout).toContain('GBP  1.21892393  feed  of 2026-10-06 12:00 UTC');
      expect(text.stdout).toContain('Live: REFUSED (older than 96 h)');
      const usd = await runCli(t, ['rates', 'set', '--currency', 'USD', '--usd', '1.1'], env);
      expect(usd.code).toBe(2);
      expect(usd.stderr).toContain('--currency must be one of EUR, GBP, CAD, AUD.');
      const cleared = await runCli(t, ['rates', 'clear', '--currency', 'EUR', '--json'], env);
      expect(JSON.parse(cleared.stdout)).toEqual({ currency: 'EUR', cleared: true });
      expect(await t.db.selectFrom('fx_rate_overrides').select('currency').execute()).toEqual([{ currency: 'CAD' }]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('/metrics', () => {
  it('shows each rate\'s age and source, and the bound', async () => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await response.text();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const since = (iso: string) => (t.clock.now().getTime() - new Date(iso).getTime()) / 1000;
    expect(value('fx_rate_age_seconds{currency="GBP",source="feed"}')).toBe(since('2026-10-06T12:00:00Z'));
    expect(value('fx_rate_age_seconds{currency="CAD",source="operator"}')).toBeLessThan(60);
    expect(value('fx_rate_max_age_seconds')).toBe(96 * 3600);
    expect(text).not.toContain('fx_rate_age_seconds{currency="USD"');
  });
});

describe('the workers\' job', () => {
  // An app of its own: the CLI's process above runs pg-boss on the real clock in the shared database.
  let w: TestApp;
  afterAll(async () => { await w?.close(); });

  it('fetches as the workers start, then every hour', async () => {
    const url = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/eurofxref-daily.xml`;
    serve(ecbDay('2026-10-01', { USD: '1.0700' }));
    w = await startTestApp({ FX_RATES_URL: url }, { workers: true });
    const eur = () => w.db.selectFrom('fx_rates').select([sql<string>`usd_per_unit::text`.as('rate'), 'reference_at']).where('currency', '=', 'EUR').executeTakeFirstOrThrow();
    // pg-boss's polls run on its test clock: a second at a time until the first fetch is stored.
    await vi.waitFor(async () => {
      await w.tick(SECOND);
      expect(await eur()).toEqual({ rate: '1.07000000', reference_at: new Date('2026-10-01T12:00:00Z') });
    }, { timeout: 10_000, interval: 100 });
    // The next day at 15:00 UTC, when the ECB's rates are out: the fetch at 15:05 takes them.
    w.clock.set(new Date('2026-10-02T15:00:00Z'));
    await w.jump(0);
    serve(ecbDay('2026-10-02', { USD: '1.0800' }));
    await vi.waitFor(async () => {
      await w.tick(MINUTE);
      expect(await eur()).toEqual({ rate: '1.08000000', reference_at: new Date('2026-10-02T12:00:00Z') });
    }, { timeout: 20_000, interval: 200 });
    expect(w.clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse('2026-10-02T15:05:00Z'));
  });
});
