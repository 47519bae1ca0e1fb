import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { dashboardMerchant } from '../support/dashboard.ts';

// The dashboard's payments, orders and payment links over HTTP as a browser uses them: lists
// with filters and pages, details with timelines, accepting a held payment, fulfilment, links
// created from a form (the API's rules and messages), roles decided in the verb, Test and Live apart.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

const merchant = (name?: string) => dashboardMerchant(t, name);

async function session(key: string, body: Record<string, unknown> = {}) {
  const created = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '40.00', currency: 'USD', customer_email: 'ada@buyer.example', ...body } });
  expect(created.status).toBe(201);
  return created.body as { id: string; order_id: string; customer_id: string };
}

/** The rows of the page's table, as text. */
const rowsOf = (html: string) => [...html.matchAll(/<tr>(.*?)<\/tr>/gs)].slice(1).map((row) => row[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());

describe('payments', () => {
  it('lists newest first, 20 to a page with a link to the next, filtered by status, reference, customer and day', async () => {
    const m = await merchant();
    const made = [];
    for (let index = 0; index < 23; index += 1) {
      made.push(await session(m.key, { reference: `ref-${index}`, description: `Order ${index}` }));
      await t.jump(1000);
    }
    const started = made[22]!;
    expect((await t.request('POST', `/v1/checkout_sessions/${started.id}/start`, { key: m.key })).status).toBe(200);

    const first = await m.owner.request('GET', m.area('payments'));
    expect(first.status).toBe(200);
    expect(first.html).toContain('aria-current="page"');
    const rows = rowsOf(first.html);
    expect(rows).toHaveLength(20);
    expect(rows[0]).toContain('Order 22');
    const next = /href="([^"]+starting_after=[^"]+)" rel="next"/.exec(first.html)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toBeDefined();
    const second = await m.owner.request('GET', next!);
    expect(rowsOf(second.html)).toHaveLength(3);
    expect(second.html).toContain('First page');
    expect(second.html).not.toContain('rel="next"');

    const byReference = await m.owner.request('GET', `${m.area('payments')}?reference=ref-7`);
    expect(rowsOf(byReference.html)).toEqual([expect.stringContaining('Order 7')]);
    expect(byReference.html).toContain('Clear filters');
    const paidOnly = await m.owner.request('GET', `${m.area('payments')}?status=paid&reference=ref-22`);
    expect(rowsOf(paidOnly.html)).toEqual([expect.stringContaining('No payments match.')]);
    const byCustomer = await m.owner.request('GET', `${m.area('payments')}?customer_id=${started.customer_id}`);
    expect(rowsOf(byCustomer.html)).toHaveLength(20); // one buyer, every session
    const today = t.clock.now().toISOString().slice(0, 10);
    expect(rowsOf((await m.owner.request('GET', `${m.area('payments')}?from=${today}&to=${today}`)).html)).toHaveLength(20);
    expect(rowsOf((await m.owner.request('GET', `${m.area('payments')}?to=2020-01-01`)).html)).toEqual([expect.stringContaining('No payments match.')]);

    // What was typed into a filter is shown as text and carried on percent-encoded.
    const hostile = '"><script>alert(1)</script>';
    const typed = await m.owner.request('GET', `${m.area('payments')}?reference=${encodeURIComponent(hostile)}`);
    expect(typed.status).toBe(200);
    expect(typed.html).not.toContain('<script>alert');
    expect(typed.html).toContain('value="&quot;>&lt;script>alert(1)&lt;/script>"');

    // Bad filters: a clear page, never a 500.
    for (const [query, text] of [['from=2026-02-30', 'Created from must be a date'], ['status=lost', 'status must be one of'], ['status=open&status=paid', 'given more than once'], ['starting_after=' + 'x'.repeat(200), 'starting_after']] as const) {
      const refused = await m.owner.request('GET', `${m.area('payments')}?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.html, query).toContain(text);
    }
    // A refused filter is no dead end: the list page again, its navigation and filter form open
    // with what was typed, the refusal above it, nothing listed.
    for (const area of ['payments', 'payment_links', 'orders'] as const) {
      const refused = await m.owner.request('GET', `${m.area(area)}?from=yesterday&to=2026-03-01`);
      expect(refused.status, area).toBe(400);
      expect(refused.html, area).toContain('Created from must be a date such as 2026-11-24. Nothing is listed until it is fixed.');
      expect(refused.html, area).toContain('<details class="filters" open>');
      expect(refused.html, area).toContain('value="yesterday"');
      expect(refused.html, area).toContain('value="2026-03-01"');
      expect(refused.html, area).toContain('class="business-nav"');
    }
  });

  it('shows a payment with its timeline: events, their deliveries and the processor notices', async () => {
    const m = await merchant();
    const endpoint = await t.request('POST', '/v1/webhook_endpoints', { key: m.key, body: { url: 'https://hooks.shop.example/payments' } });
    expect(endpoint.status).toBe(201);
    const paid = await session(m.key, { description: 'Beans <b>x</b>' });
    await t.request('POST', `/v1/checkout_sessions/${paid.id}/start`, { key: m.key });
    expect((await t.request('POST', `/v1/payments/${paid.id}/simulate`, { key: m.key, body: { outcome: 'paid' } })).status).toBe(200);
    const page = await m.viewer.request('GET', `${m.area('payments')}/${paid.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Beans &lt;b>x&lt;/b>');
    expect(page.html).toContain('<code>payment.started</code>');
    expect(page.html).toContain('<code>payment.paid</code>');
    expect(page.html).toContain('https://hooks.shop.example/payments');
    expect(page.html).not.toContain('Accept this payment');
  });

  it('accepts a held payment after a confirmation step: payment.paid, no payment.updated; a viewer is refused in the verb', async () => {
    const m = await merchant();
    const held = await session(m.key);
    await t.request('POST', `/v1/checkout_sessions/${held.id}/start`, { key: m.key });
    expect((await t.request('POST', `/v1/payments/${held.id}/simulate`, { key: m.key, body: { outcome: 'underpaid' } })).body.status).toBe('held');
    const detail = `${m.area('payments')}/${held.id}`;

    // The viewer is offered nothing, and a forged form is refused by the action.
    expect((await m.viewer.request('GET', detail)).html).not.toContain('Accept this payment');
    expect((await m.viewer.request('GET', `${detail}/accept`)).location).toBe(detail);
    const viewerHome = await m.viewer.request('GET', m.area('payments'));
    const forged = await m.viewer.request('POST', `${detail}/accept`, { csrf: Browser.form(viewerHome.html, '/dashboard/sign-out').csrf! });
    expect(forged.status).toBe(403);
    expect(forged.html).toContain('needs the developer role');
    expect((await t.request('GET', `/v1/payments/${held.id}`, { key: m.key })).body.status).toBe('held');

    const page = await m.owner.request('GET', detail);
    expect(page.html).toContain('Accept this payment');
    const confirm = await m.owner.request('GET', `${detail}/accept`);
    expect(confirm.html).toContain('Accept this held payment?');
    const accepted = await m.owner.request('POST', `${detail}/accept`, Browser.form(confirm.html, `${detail}/accept`));
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe(`${detail}?accepted=1`);
    const after = await m.owner.request('GET', accepted.location!);
    expect(after.html).toContain('Accepted: the payment is paid');
    const events = await t.db.selectFrom('events').select('type').where('payment_id', '=', held.id).orderBy('seq').execute();
    expect(events.map((event) => event.type)).toEqual(['payment.started', 'payment.held', 'payment.paid']);
    // A second post (a reload of the form) changes nothing more.
    expect((await m.owner.request('POST', `${detail}/accept`, Browser.form(confirm.html, `${detail}/accept`))).status).toBe(409);
  });

  it('keeps Test and Live apart, and another business\'s payment is not found', async () => {
    const m = await merchant();
    const other = await merchant();
    const mine = await session(m.key, { description: 'Test-only beans' });
    const theirs = await session(other.key);
    expect((await m.owner.request('GET', m.area('payments', 'live'))).html).not.toContain('Test-only beans');
    expect((await m.owner.request('GET', `${m.area('payments', 'live')}/${mine.id}`)).status).toBe(404);
    expect((await m.owner.request('GET', `${m.area('payments')}/${theirs.id}`)).status).toBe(404);
    expect((await m.owner.request('GET', `/dashboard/businesses/${other.biz.id}/test/payments`)).status).toBe(404);
    const live = await m.owner.request('GET', m.area('payments', 'live'));
    expect(live.html).toContain('Live mode');
    expect(live.html).not.toContain('test-mode-banner');
  });
});

describe('time zone', () => {
  it('a person chooses the time zone their times are shown in; a zone that is not one is refused with a clear message', async () => {
    const m = await merchant();
    await session(m.key, { description: 'Zoned beans' });
    const home = await m.owner.request('GET', '/dashboard');
    expect((await m.owner.request('GET', m.area('payments'))).html).toMatch(/<time datetime="2026-10-01T12:00[^"]*" title="2026-10-01 12:00:\d\d UTC">1 Oct 2026, 12:00 UTC</);
    for (const zone of ['Mars/Olympus', '../../etc/passwd', '<script>', 'x'.repeat(100)]) {
      const refused = await m.owner.request('POST', '/dashboard/time-zone', { ...Browser.form(home.html, '/dashboard/time-zone'), time_zone: zone });
      expect(refused.status, zone).toBe(400);
      expect(refused.html).toContain('Enter a time zone as in Europe/Berlin');
    }
    const saved = await m.owner.request('POST', '/dashboard/time-zone', { ...Browser.form(home.html, '/dashboard/time-zone'), time_zone: 'Europe/Berlin' });
    expect(saved.status).toBe(303);
    expect((await m.owner.request('GET', saved.location!)).html).toContain('value="Europe/Berlin"');
    // The same moment, in Berlin (summer time), the exact UTC value on hover.
    expect((await m.owner.request('GET', m.area('payments'))).html).toMatch(/title="2026-10-01 12:00:\d\d UTC">1 Oct 2026, 14:00 CEST</);
    // Another person's times are theirs.
    expect((await m.viewer.request('GET', m.area('payments'))).html).toContain('12:00 UTC');
  });
});

describe('kept sessions', () => {
  it('a page keeps its session for a few seconds, but a sign-out, a role change or a change made straight in the database is seen at once', async () => {
    const m = await merchant();
    await session(m.key, { description: 'Kept beans' });
    const page = () => m.owner.request('GET', m.area('payments'));
    expect((await page()).html).toContain('you are an owner');
    // A change made outside this process (psql): its NOTIFY tells the server to forget.
    await t.db.updateTable('memberships').set({ role: 'developer' }).where('business_id', '=', m.biz.id).where('role', '=', 'owner').execute();
    await expect.poll(async () => (await page()).html, { timeout: 5000, interval: 50 }).toContain('you are a developer');
    await t.db.updateTable('people').set({ time_zone: 'Asia/Tokyo' }).where('email', '=', m.ownerEmail).execute();
    await expect.poll(async () => (await page()).html, { timeout: 5000, interval: 50 }).toMatch(/21:00 (GMT\+9|JST)</);
    // Signing out ends the session for every page at once.
    const home = await m.owner.request('GET', '/dashboard');
    expect((await m.owner.request('POST', '/dashboard/sign-out', Browser.form(home.html, '/dashboard/sign-out'))).status).toBe(303);
    expect((await page()).status).toBe(303);
  });
});

describe('orders', () => {
  it('lists orders and shows one; a developer changes its fulfilment, a viewer cannot', async () => {
    const m = await merchant();
    const made = await session(m.key, { order: { id: 'wc-1', items: [{ name: 'Guji <beans>', quantity: 2, amount: '40.00' }] } });
    await t.request('POST', `/v1/checkout_sessions/${made.id}/start`, { key: m.key });
    await t.request('POST', `/v1/payments/${made.id}/simulate`, { key: m.key, body: { outcome: 'paid' } });
    const list = await m.owner.request('GET', m.area('orders'));
    expect(rowsOf(list.html)[0]).toContain('40.00 USD');
    const path = `${m.area('orders')}/${made.order_id}`;
    const page = await m.owner.request('GET', path);
    expect(page.html).toContain('Guji &lt;beans>');
    expect(page.html).toContain(`${m.area('payments')}/${made.id}`);
    const action = `${path}/fulfillment`;
    const saved = await m.owner.request('POST', action, { ...Browser.form(page.html, action), fulfillment: 'fulfilled' });
    expect(saved.status).toBe(303);
    expect((await t.request('GET', `/v1/orders/${made.order_id}`, { key: m.key })).body.fulfillment).toBe('fulfilled');
    const viewerPage = await m.viewer.request('GET', path);
    expect(viewerPage.html).not.toContain(action);
    const refused = await m.viewer.request('POST', action, { csrf: Browser.form(viewerPage.html, '/dashboard/sign-out').csrf!, fulfillment: 'unfulfilled' });
    expect(refused.status).toBe(403);
    expect((await t.request('GET', `/v1/orders/${made.order_id}`, { key: m.key })).body.fulfillment).toBe('fulfilled');
    const bad = await m.owner.request('POST', action, { ...Browser.form(page.html, action), fulfillment: 'shipped' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('fulfillment must be none, unfulfilled or fulfilled.');
  });

  it('shows the store\'s addresses as text, never as links, even one stored before they had to be http(s)', async () => {
    const m = await merchant();
    const store = { platform: 'woocommerce', id: 'shop-1', name: 'Bean Shop', url: 'https://shop.example' };
    const made = await session(m.key, { order: { id: 'wc-2', url: 'https://shop.example/orders/2', store } });
    const path = `${m.area('orders')}/${made.order_id}`;
    const shown = await m.owner.request('GET', path);
    expect(shown.html).toContain('<code>https://shop.example</code>');
    expect(shown.html).toContain('<code>https://shop.example/orders/2</code>');
    expect(shown.html).not.toContain('href="https://shop.example');
    // What the API takes no longer, but may be stored from before: shown as the text it is.
    const row = await t.db.selectFrom('orders').select('store').where('id', '=', made.order_id).executeTakeFirstOrThrow();
    const hostile = { ...row.store!, url: 'javascript:alert(document.cookie)', order_url: 'data:text/html,<script>alert(1)</script>' };
    await t.db.updateTable('orders').set({ store: JSON.stringify(hostile) }).where('id', '=', made.order_id).execute();
    const page = await m.owner.request('GET', path);
    expect(page.html).toContain('<code>javascript:alert(document.cookie)</code>');
    expect(page.html).toContain('<code>data:text/html,&lt;script>alert(1)&lt;/script></code>');
    expect(page.html).not.toMatch(/href="(?:javascript|data):/);
    expect((await t.request('GET', `/v1/orders/${made.order_id}`, { key: m.key })).body.store).toMatchObject({ url: hostile.url, order_url: hostile.order_url });
  });
});

describe('payment links', () => {
  it('creates a link from the form (answered by a redirect), shows its payer and tracking addresses, and cancels it', async () => {
    const m = await merchant();
    const list = m.area('payment_links');
    const form = await m.owner.request('GET', `${list}/new`);
    expect(form.status).toBe(200);
    const created = await m.owner.request('POST', list, {
      ...Browser.form(form.html, list), amount: '25.00', currency: 'eur', description: 'Wholesale <order>', customer_email: 'Buyer@Cafe.example',
      expires_in_days: '3', collect_phone: 'on',
    });
    expect(created.status).toBe(303);
    const id = /payment_links\/(pay_\w+)\?created=1$/.exec(created.location!)?.[1];
    expect(id).toBeDefined();
    const api = (await t.request('GET', `/v1/payment_links/${id}`, { key: m.key })).body;
    expect(api).toMatchObject({ amount: '25.00', currency: 'EUR', description: 'Wholesale <order>', customer_email: 'buyer@cafe.example', collect: { phone: true } });
    expect(api.expires_at - api.created).toBe(3 * 86_400);
    const page = await m.owner.request('GET', created.location!);
    expect(page.html).toContain(`value="${api.url}"`);
    expect(page.html).toContain(`value="${api.tracking_url}"`);
    expect(page.html).toContain('Wholesale &lt;order>');
    // Reloading the page after the redirect makes no second link.
    await m.owner.request('GET', created.location!);
    expect((await t.request('GET', '/v1/payment_links', { key: m.key })).body.data).toHaveLength(1);

    const cancel = `${list}/${id}/cancel`;
    expect((await m.viewer.request('GET', `${list}/${id}`)).html).not.toContain(cancel);
    // The link's page leads to a confirmation, which holds the form; a viewer is sent back to the link.
    expect((await m.viewer.request('GET', cancel)).status).toBe(303);
    const confirm = await m.owner.request('GET', cancel);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Cancel this payment link?');
    const canceled = await m.owner.request('POST', cancel, Browser.form(confirm.html, cancel));
    expect(canceled.status).toBe(303);
    expect((await m.owner.request('GET', canceled.location!)).html).toContain('Canceled: the link takes no payments.');
    expect((await t.request('GET', `/v1/payment_links/${id}`, { key: m.key })).body.canceled_at).not.toBeNull();
  });

  it('refuses what the API refuses, with its message beside the field and what was typed kept; a viewer cannot create', async () => {
    const m = await merchant();
    const list = m.area('payment_links');
    const form = await m.owner.request('GET', `${list}/new`);
    const fields = Browser.form(form.html, list);
    // Each in a person's words (issue 23), never the API's field names or types.
    for (const [values, field, message] of [
      [{ amount: '-5', currency: 'USD', description: 'Tea' }, 'amount', 'Enter an amount like 25.00: from 1.00 to 100000.00, with at most two decimals.'],
      [{ amount: '5.00', currency: 'XYZ', description: 'Tea' }, 'currency', 'Enter a currency as its three letters: USD, EUR, GBP, CAD or AUD.'],
      [{ amount: '5.00', currency: 'USD', description: '' }, 'description', 'Say what it is for: the payer reads this.'],
      [{ amount: '5.00', currency: 'USD', description: 'Tea', expires_in_days: '31' }, 'expires_in_days', 'Enter a whole number of days from 1 to 30, or leave it empty for 7.'],
      [{ amount: '5.00', currency: 'USD', description: 'Tea', success_url: 'javascript:alert(1)' }, 'success_url', 'Enter a full address starting with https:// or http://, like https://example.com/thanks.'],
    ] as const) {
      const refused = await m.owner.request('POST', list, { ...fields, ...values });
      expect(refused.status, field).toBe(400);
      expect(refused.html, field).toContain(`id="field-${field}-error"`);
      expect(refused.html, field).toContain(`Error: ${message}</p>`);
      expect(refused.html, field).not.toMatch(/decimal string|JSON|must be one of/);
      if (values.description) expect(refused.html).toContain(`value="${values.description}"`);
    }
    expect((await t.request('GET', '/v1/payment_links', { key: m.key })).body.data).toEqual([]);
    const viewerForm = await m.viewer.request('GET', list);
    expect(viewerForm.html).not.toContain(`${list}/new`);
    const refused = await m.viewer.request('POST', list, { csrf: Browser.form(viewerForm.html, '/dashboard/sign-out').csrf!, amount: '5.00', currency: 'USD', description: 'Tea' });
    expect(refused.status).toBe(403);
    expect((await t.request('GET', '/v1/payment_links', { key: m.key })).body.data).toEqual([]);
  });
});
