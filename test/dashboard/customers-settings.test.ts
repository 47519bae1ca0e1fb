import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { csrfOf, dashboardMerchant } from '../support/dashboard.ts';

// The dashboard's customers (search, detail, the private note, erasure after a typed
// confirmation) and settings (owners change them; the API enforces them; the activity names
// who did what), over HTTP as a browser uses them.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

const merchant = () => dashboardMerchant(t);

describe('customers', () => {
  it('finds a customer by email and shows their orders, counts and spend', async () => {
    const m = await merchant();
    const made = await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '40.00', currency: 'EUR', customer_email: 'Ada@Buyer.example', customer_name: 'Ada <Lovelace>' } });
    await t.request('POST', `/v1/checkout_sessions/${made.body.id}/start`, { key: m.key });
    await t.request('POST', `/v1/payments/${made.body.id}/simulate`, { key: m.key, body: { outcome: 'paid' } });
    await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '5.00', currency: 'USD', customer_email: 'ben@buyer.example' } });

    const found = await m.viewer.request('GET', `${m.area('customers')}?email=ADA%40buyer.example`);
    expect(found.status).toBe(200);
    expect(found.html).toContain('ada@buyer.example');
    expect(found.html).not.toContain('ben@buyer.example');
    const none = await m.viewer.request('GET', `${m.area('customers')}?email=nobody%40buyer.example`);
    expect(none.html).toContain('No customer has this email.');

    const page = await m.viewer.request('GET', `${m.area('customers')}/${made.body.customer_id}`);
    expect(page.html).toContain('1 (1 paid)');
    expect(page.html).toContain('40.00');
    expect(page.html).toContain(`${m.area('orders')}/${made.body.order_id}`);
    // A viewer reads but is offered no note form and no erasure.
    expect(page.html).not.toContain('/note"');
    expect(page.html).not.toContain('Erase their details');
    expect((await m.viewer.request('GET', `${m.area('customers', 'live')}/${made.body.customer_id}`)).status).toBe(404);
  });

  it('keeps a private note seen only in the dashboard: not in the API, not to MCP tools, not in webhooks', async () => {
    const m = await merchant();
    const endpoint = await t.request('POST', '/v1/webhook_endpoints', { key: m.key, body: { url: 'https://hooks.shop.example/x' } });
    expect(endpoint.status).toBe(201);
    const made = await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '40.00', currency: 'USD', customer_email: 'ada@buyer.example' } });
    const path = `${m.area('customers')}/${made.body.customer_id}`;
    const page = await m.developer.request('GET', path);
    const note = 'Prefers whole beans; VIP-NOTE-7731';
    const saved = await m.developer.request('POST', `${path}/note`, { ...Browser.form(page.html, `${path}/note`), note });
    expect(saved.status).toBe(303);
    expect((await m.viewer.request('GET', path)).html).toContain(note);
    // Events after the note, so a leak into webhook bodies would show.
    await t.request('POST', `/v1/checkout_sessions/${made.body.id}/start`, { key: m.key });
    await t.request('POST', `/v1/payments/${made.body.id}/simulate`, { key: m.key, body: { outcome: 'paid' } });

    for (const path of [`/v1/customers/${made.body.customer_id}`, '/v1/customers', `/v1/orders/${made.body.order_id}`, `/v1/payments/${made.body.id}`]) {
      expect(JSON.stringify((await t.request('GET', path, { key: m.key })).body), path).not.toContain('VIP-NOTE');
    }
    const client = new Client({ name: 'note-check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${m.key}` } } }));
    for (const [name, args] of [['retrieve_customer', { id: made.body.customer_id }], ['list_customers', {}], ['retrieve_order', { id: made.body.order_id }]] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBeFalsy();
      expect(JSON.stringify(result), name).not.toContain('VIP-NOTE');
    }
    await client.close();
    const bodies = await t.db.selectFrom('events').select('body').where('business_id', '=', m.biz.id).execute();
    expect(bodies.length).toBeGreaterThan(1);
    expect(bodies.map((event) => event.body).join('\n')).not.toContain('VIP-NOTE');

    // A viewer's forged form is refused in the action; the note stays.
    const forged = await m.viewer.request('POST', `${path}/note`, { csrf: csrfOf(page.html.length ? (await m.viewer.request('GET', path)).html : ''), note: 'changed' });
    expect(forged.status).toBe(403);
    expect((await m.owner.request('GET', path)).html).toContain(note);
    const tooLong = await m.developer.request('POST', `${path}/note`, { ...Browser.form(page.html, `${path}/note`), note: 'x'.repeat(2001) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.html).toContain('at most 2000 characters');
  });

  it('erases a customer only after the email is typed: their details and the note are gone, webhook bodies included', async () => {
    const m = await merchant();
    const made = await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '40.00', currency: 'USD', customer_email: 'erase-me@buyer.example', customer_name: 'Erin Example' } });
    await t.request('POST', `/v1/checkout_sessions/${made.body.id}/start`, { key: m.key });
    const path = `${m.area('customers')}/${made.body.customer_id}`;
    const page = await m.owner.request('GET', path);
    await m.owner.request('POST', `${path}/note`, { ...Browser.form(page.html, `${path}/note`), note: 'Erin likes decaf' });

    const confirm = await m.owner.request('GET', `${path}/erase`);
    expect(confirm.html).toContain('<code>erase-me@buyer.example</code>');
    const fields = Browser.form(confirm.html, `${path}/erase`);
    const wrong = await m.owner.request('POST', `${path}/erase`, { ...fields, confirm: 'yes' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('Type erase-me@buyer.example exactly');
    expect((await t.request('GET', `/v1/customers/${made.body.customer_id}`, { key: m.key })).body.erased).toBe(false);
    // A viewer who types it is still refused by the action.
    const viewerPage = await m.viewer.request('GET', path);
    expect((await m.viewer.request('POST', `${path}/erase`, { csrf: csrfOf(viewerPage.html), confirm: 'erase-me@buyer.example' })).status).toBe(403);

    const erased = await m.owner.request('POST', `${path}/erase`, { ...fields, confirm: 'ERASE-ME@buyer.example' });
    expect(erased.status).toBe(303);
    const after = await m.owner.request('GET', erased.location!);
    expect(after.html).toContain('Their details were erased');
    expect(after.html).not.toContain('erase-me@buyer.example');
    expect(after.html).not.toContain('Erin likes decaf');
    expect((await t.request('GET', `/v1/customers/${made.body.customer_id}`, { key: m.key })).body).toMatchObject({ erased: true, email: null, name: null });
    const bodies = (await t.db.selectFrom('events').select('body').where('business_id', '=', m.biz.id).execute()).map((event) => event.body).join('\n');
    expect(bodies).not.toContain('erase-me@buyer.example');
    expect(await t.db.selectFrom('customer_notes').selectAll().where('customer_id', '=', made.body.customer_id).execute()).toEqual([]);
    const activity = await m.owner.request('GET', m.area('settings'));
    expect(activity.html).toContain('Customer erased');
  });
});

describe('settings', () => {
  it('an owner pauses and resumes payments, sets the wallet, turns crypto and integrations off and on; the API follows; the activity names them', async () => {
    const m = await merchant();
    const path = m.area('settings');
    let page = await m.owner.request('GET', path);
    const csrf = csrfOf(page.html);

    expect((await m.owner.request('POST', path, { csrf, commerce: 'paused' })).status).toBe(303);
    expect((await t.request('POST', '/v1/payment_links', { key: m.key, body: { amount: '5.00', currency: 'USD', description: 'Tea' } })).body.error.code).toBe('commerce_paused');
    expect((await m.owner.request('POST', path, { csrf, commerce: 'active' })).status).toBe(303);

    const badWallet = await m.owner.request('POST', path, { csrf, payout_wallet: '0x123' });
    expect(badWallet.status).toBe(400);
    expect(badWallet.html).toContain('The payout wallet must be a 0x-prefixed address');
    const wallet = '0x2222222222222222222222222222222222222222';
    // A new wallet is confirmed on its own page (test/dashboard/payout-wallet.test.ts).
    const asked = await m.owner.request('POST', path, { csrf, payout_wallet: wallet });
    expect(asked.location).toBe(`${path}/payout-wallet`);
    expect((await m.owner.request('POST', asked.location!, Browser.form((await m.owner.request('GET', asked.location!)).html, asked.location!))).status).toBe(303);

    expect((await m.owner.request('POST', path, { csrf, integrations: 'set', integration_api: 'on', integration_checkouts: 'on' })).status).toBe(303);
    expect((await t.request('POST', '/v1/payment_links', { key: m.key, body: { amount: '5.00', currency: 'USD', description: 'Tea' } })).body.error.code).toBe('integration_disabled');
    expect((await m.owner.request('POST', path, { csrf, integrations: 'set', integration_api: 'on', integration_payment_links: 'on', integration_checkouts: 'on' })).status).toBe(303);
    expect((await m.owner.request('POST', path, { csrf, crypto_enabled: 'off' })).status).toBe(303);

    page = await m.owner.request('GET', `${path}?saved=1`);
    expect(page.html).toContain('Saved.');
    expect(page.html).toContain(`value="${wallet}"`);
    expect(page.html).toContain('Turn stablecoin payments on');
    const state = await t.db.selectFrom('businesses').select(['commerce', 'payout_wallet', 'crypto_enabled', 'disabled_integrations']).where('id', '=', m.biz.id).executeTakeFirstOrThrow();
    expect(state).toEqual({ commerce: 'active', payout_wallet: wallet, crypto_enabled: false, disabled_integrations: [] });
    expect(page.html).toContain(m.ownerEmail);
    expect(page.html).toContain('Settings changed');

    // The activity names the key behind what a key did.
    await t.request('POST', '/v1/webhook_endpoints', { key: m.key, body: { url: 'https://hooks.shop.example/y' } });
    const withKey = await m.viewer.request('GET', path);
    expect(withKey.html).toMatch(/key (“[^”]*” \()?sk_test_/);
    expect(withKey.html).toContain('Webhook endpoint added');
  });

  it('developers and viewers see the settings but cannot change them (refused in the action)', async () => {
    const m = await merchant();
    const path = m.area('settings');
    for (const who of [m.developer, m.viewer]) {
      const page = await who.request('GET', path);
      expect(page.html).toContain('Only the account\'s owners change its settings.');
      expect(page.html).not.toContain('Pause taking payments');
      const refused = await who.request('POST', path, { csrf: csrfOf(page.html), commerce: 'paused' });
      expect(refused.status).toBe(403);
    }
    expect((await t.db.selectFrom('businesses').select('commerce').where('id', '=', m.biz.id).executeTakeFirstOrThrow()).commerce).toBe('active');
    expect((await m.owner.request('GET', `${path}?before=abc`)).status).toBe(400);
  });
});
