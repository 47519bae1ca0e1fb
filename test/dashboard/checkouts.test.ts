import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { dashboardMerchant } from '../support/dashboard.ts';

// The dashboard's checkouts over HTTP: a checkout page created from the form (the API's rules),
// changed with its slug kept, its buy-button snippet, deleted for good (the payer page refuses new
// buyers); a viewer's forged forms refused in the action.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

async function merchant() {
  const m = await dashboardMerchant(t);
  return { ...m, list: m.area('checkouts') };
}

const FORM = { name: 'House blend <1 kg>', description: 'Roasted weekly', amount: '18.50', currency: 'eur', theme: 'dark', button_label: 'Buy beans', crypto: 'on', routing_choice: 'smart', collect_shipping_address: 'on' };

describe('checkouts', () => {
  it('creates a checkout page, changes its price with the slug kept, shows the snippet, and deletes it: the payer page then refuses', async () => {
    const m = await merchant();
    const form = await m.owner.request('GET', `${m.list}/new`);
    const created = await m.owner.request('POST', m.list, { ...Browser.form(form.html, m.list), ...FORM });
    expect(created.status).toBe(303);
    const id = /checkouts\/(chk_\w+)\?done=created$/.exec(created.location!)?.[1];
    expect(id).toBeDefined();
    const api = (await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body;
    expect(api).toMatchObject({ name: 'House blend <1 kg>', amount: '18.50', currency: 'EUR', theme: 'dark', button_label: 'Buy beans', crypto: true, collect: { shipping_address: true } });
    const page = await m.owner.request('GET', created.location!);
    expect(page.html).toContain(`value="${api.url}"`);
    expect(page.html).toContain(`&lt;buy-button checkout=&quot;${api.slug}&quot;>&lt;a href=&quot;${api.url}&quot;>Buy&lt;/a>&lt;/buy-button>`);
    expect(page.html).toContain('/embed.js');

    const edit = `${m.list}/${id}/edit`;
    const editForm = await m.owner.request('GET', edit);
    expect(editForm.html).toContain('value="18.50"');
    const saved = await m.owner.request('POST', edit, { ...Browser.form(editForm.html, edit), ...FORM, amount: '21.00', crypto: '' });
    expect(saved.status).toBe(303);
    const changed = (await t.request('GET', `/v1/checkouts/${id}`, { key: m.key })).body;
    expect(changed).toMatchObject({ slug: api.slug, url: api.url, amount: '21.00', crypto: false });
    const payer = await fetch(`${t.url}/c/${api.slug}`);
    expect(await payer.text()).toContain('€21.00');

    const refused = await m.owner.request('POST', edit, { ...Browser.form(editForm.html, edit), ...FORM, amount: '0.10' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('id="field-amount-error"');
    expect(refused.html).toContain('value="0.10"');
    const badRouting = await m.owner.request('POST', edit, { ...Browser.form(editForm.html, edit), ...FORM, routing_choice: 'fixed', routing_provider: 'coinbase' });
    expect(badRouting.status).toBe(400);
    expect(badRouting.html).toContain('routing.provider must be a card provider');

    const confirm = await m.owner.request('GET', `${m.list}/${id}/delete`);
    expect(confirm.html).toContain('Delete House blend &lt;1 kg>?');
    const deleted = await m.owner.request('POST', `${m.list}/${id}/delete`, Browser.form(confirm.html, `${m.list}/${id}/delete`));
    expect(deleted.status).toBe(303);
    expect((await m.owner.request('GET', deleted.location!)).html).toContain('Deleted: it takes no new buyers.');
    expect((await fetch(`${t.url}/c/${api.slug}`)).status).toBe(410);
    // Deleted for good: it no longer changes, and the list shows only active checkouts.
    expect((await m.owner.request('POST', edit, { ...Browser.form(editForm.html, edit), ...FORM })).status).toBe(409);
    expect((await m.owner.request('GET', m.list)).html).not.toContain(api.slug);
  });

  it('a viewer sees checkouts but is offered no change, and forged forms are refused in the action', async () => {
    const m = await merchant();
    const made = (await t.request('POST', '/v1/checkouts', { key: m.key, body: { name: 'Espresso', amount: '12.00', currency: 'USD' } })).body;
    const page = await m.viewer.request('GET', `${m.list}/${made.id}`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('/edit"');
    expect(page.html).not.toContain('/delete"');
    expect((await m.viewer.request('GET', m.list)).html).not.toContain('Create a checkout page');
    const csrf = Browser.form(page.html, '/dashboard/sign-out').csrf!;
    expect((await m.viewer.request('POST', `${m.list}/${made.id}/edit`, { csrf, ...FORM })).status).toBe(403);
    expect((await m.viewer.request('POST', `${m.list}/${made.id}/delete`, { csrf })).status).toBe(403);
    expect((await m.viewer.request('POST', m.list, { csrf, ...FORM })).status).toBe(403);
    expect((await t.request('GET', `/v1/checkouts/${made.id}`, { key: m.key })).body).toMatchObject({ name: 'Espresso', active: true });
    const other = await merchant();
    expect((await other.owner.request('GET', `${other.list}/${made.id}`)).status).toBe(404);
    expect((await other.owner.request('POST', `${other.list}/${made.id}/delete`, { csrf: Browser.form((await other.owner.request('GET', other.list)).html, '/dashboard/sign-out').csrf! })).status).toBe(404);
  });
});
