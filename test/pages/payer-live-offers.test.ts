import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/clock.ts';
import { expectError } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Live offers only what something serves (issue 22, must-have 7): the networks a healthy processor
// reports, the card providers this deployment has keys for. A start nothing could pay is refused
// before anything is written; its buyer reads plain words instead of a form or an address. Test
// mode simulates every network and provider, and is unchanged.

const MOONPAY = { MOONPAY_API_KEY: 'pk_live_kestrel0123456789', MOONPAY_SECRET_KEY: 'sk_live_moonpay_secret_0123456789' };
const UNAVAILABLE = /This business can(?:'|&#39;|&#x27;|&apos;)t take payments right now/;

let t: TestApp;
let live: string;
let test: string;
let businessId: string;

beforeAll(async () => {
  t = await startTestApp({ ...MOONPAY, RATE_LIMITS: 'off' });
  const biz = await t.business({ name: 'Kestrel Coffee Roasters' });
  businessId = biz.id;
  live = (await biz.key({ mode: 'live' })).secret;
  test = (await biz.key({ mode: 'test' })).secret;
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.db.deleteFrom('processor_networks').execute();
});

async function link(key: string, body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const created = await t.request('POST', '/v1/payment_links', { key, body: { amount: '30.00', currency: 'USD', description: 'Ethiopia Guji, 1 kg', ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const start = (key: string, id: string, body: Record<string, unknown> = {}) =>
  t.request('POST', `/v1/checkout_sessions/${id}/start`, { key, body: { email: emailOf(id), ...body } });

/** Each payment's buyer has an email of their own, so what one start wrote is told apart. */
const emailOf = (id: string) => `buyer-${id.toLowerCase()}@harbourcafe.example`;

/** The payer page's HTML, as a buyer's browser gets it. */
async function page(path: string, language = 'en'): Promise<{ status: number; html: string }> {
  const response = await fetch(`${t.url}${new URL(path, t.config.baseUrl).pathname}${new URL(path, t.config.baseUrl).search}`, { headers: { 'accept-language': language } });
  return { status: response.status, html: await response.text() };
}

/** Everything a start writes: the payment's start, an event, a customer. */
async function writtenBy(id: string) {
  const payment = await t.db.selectFrom('payments').select(['started_at', 'deposit_address', 'customer_email', 'fee_bps', 'usd_value_minor']).where('id', '=', id).executeTakeFirstOrThrow();
  const events = await t.db.selectFrom('events').select('type').where('payment_id', '=', id).execute();
  const customers = await t.db.selectFrom('customers').select('id').where('business_id', '=', businessId).where('email', '=', emailOf(id)).where('livemode', '=', true).execute();
  return { payment, events: events.map((event) => event.type), customers: customers.length };
}

describe('Live with no processor status', () => {
  it('never shows a deposit address: the buyer reads plain words, and the start is refused with nothing written', async () => {
    const { id, url } = await link(live);
    const shown = await page(url);
    expect(shown.status).toBe(200);
    expect(shown.html).toMatch(UNAVAILABLE);
    expect(shown.html).not.toMatch(/<form/);
    expect(shown.html).not.toMatch(/0x[0-9a-fA-F]{40}/);
    expect((await page(url, 'de')).html).toContain('Dieses Unternehmen kann gerade keine Zahlungen annehmen');

    const refused = await start(live, id);
    expectError(refused, 409, 'payments_unavailable');
    expect(refused.body.error.message).toMatch(/no network is watched by a healthy payment processor/);
    expect(await writtenBy(id)).toEqual({
      payment: { started_at: null, deposit_address: null, customer_email: null, fee_bps: expect.any(Number), usd_value_minor: null },
      events: [], customers: 0,
    });
  });

  it('a Live checkout page says so before anyone types', async () => {
    const created = await t.request('POST', '/v1/checkouts', { key: live, body: { name: 'Espresso blend', amount: '18.00', currency: 'USD' } });
    expect(created.status).toBe(201);
    const shown = await page(created.body.url);
    expect(shown.html).toMatch(UNAVAILABLE);
    expect(shown.html).not.toMatch(/<form/);
  });

  it('Test mode is unchanged: its networks and providers are simulated', async () => {
    const { id, url } = await link(test);
    const started = await start(test, id);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ crypto: true, coins: ['polygon_usdc', 'ethereum_usdc', 'base_usdc'], deposit_address: null });
    // Every card provider that can take the buyer, keys or not (the Test provider page stands in).
    expect(started.body.card_providers.map((provider: { id: string }) => provider.id)).toContain('transak');
    const shown = await page(url);
    expect(shown.html).not.toMatch(UNAVAILABLE);
    expect(shown.html).toContain('Pay with Transak');
    // A Test checkout may be fixed to any card provider.
    const fixed = await t.request('POST', '/v1/checkouts', { key: test, body: { name: 'Beans', amount: '20.00', currency: 'USD', routing: { choice: 'fixed', provider: 'transak', fallback: false } } });
    expect(fixed.status).toBe(201);
  });
});

describe('Live with Polygon healthy only', () => {
  beforeEach(async () => reportProcessorStatus(t, { networks: ['polygon'] }));

  it('refuses a start for Base with nothing written', async () => {
    const { id } = await link(live);
    const refused = await start(live, id, { coin: 'base_usdc' });
    expectError(refused, 409, 'coin_unavailable', 'coin');
    expect(refused.body.error.message).toContain('Coins that can: polygon_usdc (USDC on Polygon)');
    expect(await writtenBy(id)).toMatchObject({ payment: { started_at: null, deposit_address: null }, events: [], customers: 0 });
    expectError(await start(live, id, { coin: 'dogecoin' }), 400, 'invalid_value', 'coin');
  });

  it('offers Polygon\'s coin only, and the card providers with keys (never Transak)', async () => {
    const { id, url } = await link(live);
    const started = await start(live, id, { coin: 'polygon_usdc' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ crypto: true, coins: ['polygon_usdc'], deposit_address: expect.stringMatching(/^0x[0-9a-f]{40}$/i) });
    expect(started.body.card_providers).toEqual([{ id: 'moonpay', name: 'MoonPay', recommended: true }]);

    for (const path of [url, `${url}?coin=base_usdc`]) {
      const shown = await page(path);
      expect(shown.html).toContain('USDC on the Polygon network');
      expect(shown.html).not.toContain('Base');
      expect(shown.html).not.toContain('Transak');
      expect(shown.html.toLowerCase()).toContain(started.body.deposit_address.toLowerCase().slice(2, 12));
    }

    // Base reported too: the buyer may pick it, and its payment request names Base's chain.
    await reportProcessorStatus(t, { networks: ['polygon', 'base'] });
    const both = await page(url);
    expect(both.html).toContain('?coin=base_usdc');
    expect((await page(`${url}?coin=base_usdc`)).html).toContain('USDC on the Base network');

    // The processor falls silent: past the freshness bound, the buyer already shown the address
    // keeps it (they may have paid) and reads that confirming may take longer, never "don't pay".
    await t.jump(121 * SECOND);
    const silent = await page(url);
    expect(silent.html).not.toMatch(UNAVAILABLE);
    expect(silent.html).toContain('Confirmation on Polygon and Base may take longer than usual right now.');
    expect(silent.html.toLowerCase()).toContain(started.body.deposit_address.toLowerCase().slice(2, 12));
    // A buyer who has not started is refused, in words, with no address.
    const fresh = await link(live);
    expect((await page(fresh.url)).html).toMatch(UNAVAILABLE);
  });
});

describe('a card provider without keys in Live', () => {
  beforeEach(async () => reportProcessorStatus(t, { networks: ['polygon'] }));
  const transak = { choice: 'fixed', provider: 'transak', fallback: false };

  it('cannot be fixed on a Live checkout or session without fallback: the merchant is told when saving', async () => {
    const checkout = await t.request('POST', '/v1/checkouts', { key: live, body: { name: 'Beans', amount: '20.00', currency: 'USD', routing: transak } });
    expectError(checkout, 400, 'invalid_routing', 'routing.provider');
    expect(checkout.body.error.message).toMatch(/^Transak cannot take Live payments here: this service has no keys for it/);
    const session = await t.request('POST', '/v1/checkout_sessions', { key: live, body: { amount: '20.00', currency: 'USD', routing: transak } });
    expectError(session, 400, 'invalid_routing', 'routing.provider');
    // With fallback, buyers are routed smartly among the providers with keys.
    const fallback = await t.request('POST', '/v1/checkouts', { key: live, body: { name: 'Beans', amount: '20.00', currency: 'USD', routing: { ...transak, fallback: true } } });
    expect(fallback.status).toBe(201);
  });

  it('a payment fixed to one (saved before this rule) cannot be started: refused, nothing written, and its buyer told', async () => {
    const { id, url } = await link(live);
    await t.db.updateTable('payments').set({ routing: JSON.stringify(transak) as never }).where('id', '=', id).execute();
    const refused = await start(live, id);
    expectError(refused, 409, 'provider_unavailable');
    expect(refused.body.error.message).toMatch(/fixed to the card provider Transak, which this service has no keys for/);
    expect(await writtenBy(id)).toMatchObject({ payment: { started_at: null, deposit_address: null }, events: [], customers: 0 });
    expect((await page(url)).html).toMatch(UNAVAILABLE);
  });

  it('a payment fixed to a provider with keys offers it alone', async () => {
    const created = await t.request('POST', '/v1/checkout_sessions', { key: live, body: { amount: '25.00', currency: 'USD', routing: { choice: 'fixed', provider: 'moonpay', fallback: false } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = await start(live, created.body.id);
    expect(started.body.card_providers).toEqual([{ id: 'moonpay', name: 'MoonPay', recommended: true }]);
  });
});
