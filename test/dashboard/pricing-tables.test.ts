import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { setMember } from '../support/operator.ts';

// Pricing tables and widgets in the dashboard over HTTP: created from their forms (plan places,
// empty ones ignored; the switch; the recommended plan), the actions' refusals beside their
// fields, changed with the slug kept and the price following the lowest plan; the payer page
// showing the plans and either side of the switch; a viewer refused in the action; Test and
// Live, and other businesses, kept apart.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

async function signIn(email: string) {
  const browser = new Browser(t);
  expect((await browser.signInWith((await createSignInLink(t.context, email))!.url)).status).toBe(303);
  return browser;
}

async function merchant() {
  const biz = await t.business();
  const key = (await biz.key()).secret;
  const ownerEmail = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow()).email;
  const viewerEmail = `viewer-${biz.id}@shop.example`.toLowerCase();
  await setMember(t.context, { businessId: biz.id, email: viewerEmail, role: 'viewer' });
  const base = `/dashboard/businesses/${biz.id}`;
  return { biz, key, owner: await signIn(ownerEmail), viewer: await signIn(viewerEmail), list: `${base}/test/checkouts`, live: `${base}/live/checkouts` };
}

const SETTINGS = { currency: 'usd', theme: 'light', crypto: 'on', routing_choice: 'smart' };
/** Three plans in places 1, 2 and 4 (3 left empty), Monthly and Yearly, the second recommended. */
const TABLE = {
  ...SETTINGS, name: 'Coffee club <monthly>', description: 'Fresh beans, on repeat', button_label: 'Join the club', option_1: 'Monthly', option_2: 'Yearly', unit_1: 'month', unit_2: 'year',
  plan_1_name: 'Taster', plan_1_price_1: '9.00', plan_1_price_2: '90.00', plan_1_features: 'One bag a month; Free shipping',
  plan_2_name: 'Regular', plan_2_description: 'For a daily cup', plan_2_price_1: '18.00', plan_2_price_2: '180.00', plan_2_features: 'Two bags a month',
  plan_4_name: 'Café', plan_4_price_1: '60.00', plan_4_price_2: '600.00',
  recommended: '2',
};

async function createTable(m: Awaited<ReturnType<typeof merchant>>, fields: Record<string, string> = TABLE) {
  const form = await m.owner.request('GET', `${m.list}/new-pricing-table`);
  expect(form.status).toBe(200);
  return m.owner.request('POST', `${m.list}/pricing-tables`, { ...Browser.form(form.html, `${m.list}/pricing-tables`), ...fields });
}

describe('pricing tables', () => {
  it('creates a pricing table from the form, shows its plans and snippet, and its payer page shows the plans on either side of the switch', async () => {
    const m = await merchant();
    expect((await m.owner.request('GET', m.list)).html).toContain('Create a pricing table');
    const created = await createTable(m);
    expect(created.status).toBe(303);
    const id = /checkouts\/(chk_\w+)\?done=created$/.exec(created.location!)?.[1];
    const api = (await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body;
    expect(api).toMatchObject({
      kind: 'pricing_table', name: 'Coffee club <monthly>', amount: '9.00', currency: 'USD', button_label: 'Join the club', options: ['Monthly', 'Yearly'],
      plans: [
        { id: 'plan_1', name: 'Taster', description: null, prices: [{ amount: '9.00', unit: 'month' }, { amount: '90.00', unit: 'year' }], features: ['One bag a month', 'Free shipping'], recommended: false },
        { id: 'plan_2', name: 'Regular', description: 'For a daily cup', prices: [{ amount: '18.00', unit: 'month' }, { amount: '180.00', unit: 'year' }], features: ['Two bags a month'], recommended: true },
        { id: 'plan_3', name: 'Café', prices: [{ amount: '60.00', unit: 'month' }, { amount: '600.00', unit: 'year' }], features: [], recommended: false },
      ],
    });
    const page = await m.owner.request('GET', created.location!);
    expect(page.html).toContain(`&lt;buy-button checkout=&quot;${api.slug}&quot;>&lt;a href=&quot;${api.url}&quot;>Buy&lt;/a>&lt;/buy-button>`);
    expect(page.html).toContain('Regular <strong>(recommended)</strong>');
    expect((await t.request('GET', `/v1/checkouts?kind=pricing_table`, { key: m.key })).body.data.map((c: { id: string }) => c.id)).toEqual([id]);

    const monthly = await (await fetch(`${t.url}/c/${api.slug}`)).text();
    expect(monthly).toContain('$18.00, one payment for a month');
    expect(monthly).toContain('Recommended');
    expect(monthly).toMatch(/value="plan_2"[^>]*checked/);
    expect(monthly).toMatch(/name="option" value="0" checked/);
    expect(monthly).toMatch(/<button class="button primary" type="submit">Join the club<\/button>/);
    const yearly = await (await fetch(`${t.url}/c/${api.slug}?option=1`)).text();
    expect(yearly).toContain('$180.00, one payment for a year');
    expect(yearly).toMatch(/name="option" value="1" checked/);
  });

  it('changes the plans with the slug kept, and the price follows the lowest plan; the plain form redirects to the plans form', async () => {
    const m = await merchant();
    const created = await createTable(m);
    const id = /checkouts\/(chk_\w+)\?done=created$/.exec(created.location!)![1]!;
    const before = (await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body;
    expect((await m.owner.request('GET', `${m.list}/${id}/edit`)).location).toBe(`${m.list}/${id}/edit-pricing-table`);
    const edit = `${m.list}/${id}/edit-pricing-table`;
    const form = await m.owner.request('GET', edit);
    expect(form.html).toContain('value="Regular"');
    expect(form.html).toContain('value="Yearly"');
    // No switch now: one price per plan; the first plan emptied, so two plans remain.
    const saved = await m.owner.request('POST', edit, {
      ...Browser.form(form.html, edit), ...SETTINGS, name: 'Coffee club', unit_1: 'month',
      plan_2_name: 'Regular', plan_2_price_1: '16.00', plan_3_name: 'Café', plan_3_price_1: '55.00', recommended: '3',
    });
    expect(saved.status).toBe(303);
    const after = (await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body;
    expect(after).toMatchObject({ slug: before.slug, amount: '16.00', options: null, plans: [
      { id: 'plan_1', name: 'Regular', prices: [{ amount: '16.00', unit: 'month' }], recommended: false },
      { id: 'plan_2', name: 'Café', prices: [{ amount: '55.00', unit: 'month' }], recommended: true },
    ] });
    const payer = await (await fetch(`${t.url}/c/${before.slug}`)).text();
    expect(payer).toContain('$16.00, one payment for a month');
    expect(payer).not.toContain('Taster');
  });

  it('refuses what is not a pricing table, each refusal beside its field, and saves nothing', async () => {
    const m = await merchant();
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ['no plans', { ...SETTINGS, name: 'Empty', unit_1: 'month' }, 'plans', 'at least one plan'],
      ['one option label', { ...TABLE, option_2: '' }, 'option_2', 'option label'],
      ['a missing second price', { ...TABLE, plan_2_price_2: '' }, 'plan_2_price_2', 'amount'],
      ['a price too small', { ...TABLE, plan_4_price_1: '0.50' }, 'plan_4_price_1', '1.00 to 100000.00'],
      ['a plan without a name', { ...TABLE, plan_4_name: '' }, 'plan_4_name', 'name'],
      ['no unit', { ...TABLE, unit_2: '' }, 'unit_2', 'unit'],
      ['a feature too long', { ...TABLE, plan_1_features: 'x'.repeat(81) }, 'plan_1_features', '80 characters'],
      ['no name', { ...TABLE, name: '' }, 'name', 'name'],
      ['an unknown currency', { ...TABLE, currency: 'BTC' }, 'currency', 'currency'],
    ];
    for (const [what, fields, field, message] of cases) {
      const refused = await createTable(m, fields);
      expect(refused.status, what).toBe(400);
      expect(refused.html, what).toContain(`id="field-${field}-error"`);
      expect(refused.html.slice(refused.html.indexOf(`id="field-${field}-error"`)).slice(0, 300), what).toContain(message);
    }
    // What was typed stays in the form.
    expect((await createTable(m, { ...TABLE, plan_4_price_1: '0.50' })).html).toContain('value="0.50"');
    expect((await t.request('GET', '/v1/checkouts', { key: m.key })).body.data).toEqual([]);
  });

  it('a viewer is offered no pricing table or widget and is refused in the actions; Test and Live, and other businesses, are apart', async () => {
    const m = await merchant();
    const id = /checkouts\/(chk_\w+)\?done=created$/.exec((await createTable(m)).location!)![1]!;
    const list = await m.viewer.request('GET', m.list);
    expect(list.html).not.toContain('Create a pricing table');
    expect(list.html).not.toContain('Create a widget');
    const csrf = Browser.form(list.html, '/dashboard/sign-out').csrf!;
    expect((await m.viewer.request('POST', `${m.list}/pricing-tables`, { csrf, ...TABLE })).status).toBe(403);
    expect((await m.viewer.request('POST', `${m.list}/widgets`, { csrf, ...SETTINGS, name: 'Beans', amount: '10.00' })).status).toBe(403);
    expect((await m.viewer.request('POST', `${m.list}/${id}/edit-pricing-table`, { csrf, ...TABLE, plan_1_price_1: '1.00' })).status).toBe(403);
    expect((await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body.amount).toBe('9.00');

    // Live: the Test table is not there.
    expect((await m.owner.request('GET', `${m.live}/${id}`)).status).toBe(404);
    expect((await m.owner.request('GET', `${m.live}/${id}/edit-pricing-table`)).status).toBe(404);
    const ownerCsrf = Browser.form((await m.owner.request('GET', m.list)).html, '/dashboard/sign-out').csrf!;
    expect((await m.owner.request('POST', `${m.live}/${id}/edit-pricing-table`, { csrf: ownerCsrf, ...TABLE })).status).toBe(404);
    expect((await m.owner.request('GET', `${m.live}?kind=pricing_table`)).html).not.toContain(id);

    const other = await merchant();
    expect((await other.owner.request('GET', `${other.list}/${id}/edit-pricing-table`)).status).toBe(404);
    const otherCsrf = Browser.form((await other.owner.request('GET', other.list)).html, '/dashboard/sign-out').csrf!;
    expect((await other.owner.request('POST', `${other.list}/${id}/edit-pricing-table`, { csrf: otherCsrf, ...TABLE })).status).toBe(404);
    expect((await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body.plans).toHaveLength(3);
  });
});

describe('widgets', () => {
  it('creates a widget from its form: one price, its buy button, and the hosted page buyers open from it', async () => {
    const m = await merchant();
    const path = `${m.list}/widgets`;
    const form = await m.owner.request('GET', `${m.list}/new-widget`);
    expect(form.html).toContain('New Test widget');
    const refused = await m.owner.request('POST', path, { ...Browser.form(form.html, path), ...SETTINGS, name: 'Beans', amount: 'free' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('id="field-amount-error"');
    const created = await m.owner.request('POST', path, { ...Browser.form(form.html, path), ...SETTINGS, name: 'Espresso beans', amount: '14.00', button_label: 'Get beans' });
    expect(created.status).toBe(303);
    const id = /checkouts\/(chk_\w+)\?done=created$/.exec(created.location!)![1]!;
    const api = (await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body;
    expect(api).toMatchObject({ kind: 'widget', amount: '14.00', button_label: 'Get beans', plans: [], options: null });
    const page = await m.owner.request('GET', created.location!);
    expect(page.html).toContain(`&lt;buy-button checkout=&quot;${api.slug}&quot;>&lt;a href=&quot;${api.url}&quot;>Buy&lt;/a>&lt;/buy-button>`);
    expect(page.html).toContain('Widget');
    const payer = await fetch(`${t.url}/c/${api.slug}`);
    expect(payer.status).toBe(200);
    expect(await payer.text()).toContain('Get beans');
    expect((await (await fetch(`${t.url}/c/${api.slug}/button.json`)).json())).toMatchObject({ label: 'Get beans', name: 'Espresso beans' });
    // Changed like a page, with no plans.
    const edit = `${m.list}/${id}/edit`;
    const editForm = await m.owner.request('GET', edit);
    expect((await m.owner.request('POST', edit, { ...Browser.form(editForm.html, edit), ...SETTINGS, name: 'Espresso beans', amount: '15.00' })).status).toBe(303);
    expect((await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body).toMatchObject({ kind: 'widget', amount: '15.00', slug: api.slug });
  });
});
