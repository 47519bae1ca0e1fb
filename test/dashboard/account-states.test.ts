import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, dashboardMerchant, type DashboardMerchant } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The probe of issue 21 replayed over HTTP as a signed-in owner would: on a suspended or archived
// account every change from the dashboard answers 403 merchant_read_only on its page and changes
// nothing (before, each of these went through), what takes access away stays open, and reads stay.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

interface Frozen {
  m: DashboardMerchant;
  csrf: string;
  liveCheckout: string;
  customer: string;
  viewerEmail: string;
}

/** A business with a Live checkout and a Test customer, then put in `status`; the owner's CSRF token. */
async function frozen(status: 'suspended' | 'archived'): Promise<Frozen> {
  const m = await dashboardMerchant(t);
  const liveKey = (await m.biz.key({ mode: 'live' })).secret;
  const checkout = await t.request('POST', '/v1/checkouts', { key: liveKey, body: { name: 'Beans', amount: '10.00', currency: 'USD' } });
  expect(checkout.status).toBe(201);
  const session = await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '10.00', currency: 'USD', customer_email: 'ada@buyer.example' } });
  const viewerEmail = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', m.biz.id).where('m.role', '=', 'viewer').executeTakeFirstOrThrow()).email;
  await m.biz.update({ status });
  const csrf = csrfOf((await m.owner.request('GET', m.area('settings'))).html);
  return { m, csrf, liveCheckout: checkout.body.id, customer: session.body.customer_id, viewerEmail };
}

/** Every change the probe made from the dashboard, as the owner's browser posts it. */
function changes(f: Frozen): Array<[string, string, Record<string, string>]> {
  const { m } = f;
  return [
    ['payout wallet', m.area('settings', 'live'), { payout_wallet: `0x${'ab'.repeat(20)}` }],
    ['crypto setting', m.area('settings'), { crypto_enabled: 'off' }],
    ['checkout repriced', `${m.area('checkouts', 'live')}/${f.liveCheckout}/edit`, { name: 'Renamed', amount: '99.00', currency: 'USD' }],
    ['checkout deleted', `${m.area('checkouts', 'live')}/${f.liveCheckout}/delete`, {}],
    ['Live key created', m.area('keys', 'live'), { name: 'sneaky' }],
    ['viewer promoted', m.area('team'), { email: f.viewerEmail, role: 'owner' }],
    ['person added', m.area('team'), { email: 'newcomer@shop.example', role: 'developer' }],
    ['customer note', `${m.area('customers')}/${f.customer}/note`, { note: 'written while frozen' }],
  ];
}

/** What those changes would have touched, read from the database. */
async function state(f: Frozen) {
  const business = await t.db.selectFrom('businesses').select(['payout_wallet', 'crypto_enabled']).where('id', '=', f.m.biz.id).executeTakeFirstOrThrow();
  const checkout = await t.db.selectFrom('checkouts').selectAll().where('id', '=', f.liveCheckout).executeTakeFirstOrThrow();
  const keys = await t.db.selectFrom('api_keys').select('id').where('business_id', '=', f.m.biz.id).execute();
  const members = await t.db.selectFrom('memberships').select(['person_id', 'role']).where('business_id', '=', f.m.biz.id).orderBy('person_id').execute();
  const notes = await t.db.selectFrom('customer_notes').selectAll().execute();
  return { business, checkout, keys: keys.length, members, notes: notes.length };
}

describe.each(['suspended', 'archived'] as const)('a %s account in the dashboard', (status) => {
  it('refuses every change with 403 merchant_read_only on its page, and changes nothing', async () => {
    const f = await frozen(status);
    const before = await state(f);
    for (const [what, path, form] of changes(f)) {
      const page = await f.m.owner.request('POST', path, { csrf: f.csrf, ...form });
      expect(page.status, what).toBe(403);
      expect(page.html, what).toContain(`This account is ${status}; it cannot create or change anything.`);
    }
    expect(await state(f)).toEqual(before);
  });

  it('still reads every area, and still lets people take access away: revoking a key', async () => {
    const f = await frozen(status);
    for (const area of ['payments', 'checkouts', 'customers', 'keys', 'team', 'settings', 'webhooks']) {
      const page = await f.m.viewer.request('GET', f.m.area(area));
      expect(page.status, area).toBe(200);
      expect(page.html, area).toContain(`This account is ${status}: you can read everything here and change nothing.`);
    }
    const revoked = await f.m.owner.request('POST', `${f.m.area('keys')}/${f.m.keyId}/revoke`, { csrf: f.csrf });
    expect(revoked.status).toBe(303);
    expect((await t.db.selectFrom('api_keys').select('revoked_at').where('id', '=', f.m.keyId).executeTakeFirstOrThrow()).revoked_at).not.toBeNull();
  });
});
