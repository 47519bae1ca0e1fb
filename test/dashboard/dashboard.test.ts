import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../src/core/clock.ts';
import { forgetExpiredNotices } from '../../src/auth/notices.ts';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { setMember } from '../support/operator.ts';
import { connectAgent } from '../support/agents.ts';
import { Browser } from '../support/browser.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';

// The dashboard over HTTP as a browser uses it: sign-in links, sessions, CSRF, keys, team.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

async function ownerEmail(biz: TestBusiness) {
  return (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow()).email;
}

async function signIn(email: string) {
  const browser = new Browser(t);
  const signed = await browser.signInWith((await createSignInLink(t.context, email))!.url);
  expect(signed.status).toBe(303);
  return browser;
}

describe('sign-in', () => {
  it('a link works once, within 15 minutes, and only with the browser that opened it', async () => {
    const biz = await t.business();
    const email = await ownerEmail(biz);
    const link = (await createSignInLink(t.context, email))!.url;
    const browser = new Browser(t);
    const page = await browser.request('GET', link);
    expect(page.html).not.toContain('<script');
    const fields = Browser.form(page.html, '/dashboard/sign-in/link');
    // Another browser (no nonce cookie) cannot use the form.
    expect((await new Browser(t).request('POST', '/dashboard/sign-in/link', fields)).status).toBe(403);
    const used = await browser.request('POST', '/dashboard/sign-in/link', fields);
    expect(used.status).toBe(303);
    expect((await browser.request('GET', '/dashboard')).html).toContain(biz.id);
    // Once only.
    const again = new Browser(t);
    expect((await again.signInWith(link)).status).toBe(400);
    // Expired.
    const late = (await createSignInLink(t.context, email))!.url;
    await t.jump(16 * MINUTE);
    expect((await new Browser(t).signInWith(late)).status).toBe(400);
  });

  it('sets a HttpOnly, SameSite session cookie and refuses to be framed', async () => {
    const biz = await t.business();
    const link = (await createSignInLink(t.context, await ownerEmail(biz)))!.url;
    const page = await fetch(link.replace(t.config.baseUrl, t.url));
    const nonce = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const html = await page.text();
    const response = await fetch(`${t.url}/dashboard/sign-in/link`, {
      method: 'POST', redirect: 'manual', headers: { cookie: nonce, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(Browser.form(html, '/dashboard/sign-in/link')),
    });
    const cookie = response.headers.getSetCookie().find((header) => header.startsWith('__Host-ps_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/Path=\//);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('an unknown person gets no link; a signed-out browser is sent to sign in', async () => {
    expect(await createSignInLink(t.context, 'nobody@nowhere.example')).toBeUndefined();
    const page = await new Browser(t).request('GET', '/dashboard');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/sign-in?next=%2Fdashboard');
  });

  it('signing out ends the session', async () => {
    const biz = await t.business();
    const browser = await signIn(await ownerEmail(biz));
    const home = await browser.request('GET', '/dashboard');
    expect((await browser.request('POST', '/dashboard/sign-out', Browser.form(home.html, '/dashboard/sign-out'))).status).toBe(303);
    expect((await browser.request('GET', '/dashboard')).status).toBe(303);
  });
});

describe('API keys', () => {
  it('creates a key shown once that works on the API, and revokes it', async () => {
    const biz = await t.business();
    const browser = await signIn(await ownerEmail(biz));
    const action = `/dashboard/businesses/${biz.id}/test/keys`;
    const page = await browser.request('GET', action);
    const posted = await browser.request('POST', action, { ...Browser.form(page.html, action), name: 'Shop server', access: 'read_only' });
    // POST, 303, GET: the secret is on the page the redirect opens, never in the POST's answer or the address.
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(action);
    expect(posted.html).not.toContain('sk_test_');
    const created = await browser.request('GET', action);
    const secret = /<code>(sk_test_[0-9A-Za-z]{32})<\/code>/.exec(created.html)?.[1];
    expect(secret).toBeTruthy();
    expect((await t.request('GET', '/v1/payment_links', { key: secret! })).status).toBe(200);
    expect((await t.request('POST', '/v1/payment_links', { key: secret!, body: { amount: '10.00', currency: 'USD', description: 'Tea' } })).status).toBe(403);
    // Never shown again.
    const later = await browser.request('GET', action);
    expect(later.html).not.toContain(secret!);
    const key = await t.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).where('name', '=', 'Shop server').executeTakeFirstOrThrow();
    const revoke = `/dashboard/businesses/${biz.id}/test/keys/${key.id}/revoke`;
    expect((await browser.request('POST', revoke, Browser.form(later.html, revoke))).status).toBe(303);
    expect((await t.request('GET', '/v1/payment_links', { key: secret! })).body.error.code).toBe('invalid_api_key');
  });

  it('keeps a new secret sealed for its session\'s next page only, for five minutes', async () => {
    const biz = await t.business();
    const email = await ownerEmail(biz);
    const browser = await signIn(email);
    const action = `/dashboard/businesses/${biz.id}/test/keys`;
    const form = Browser.form((await browser.request('GET', action)).html, action);
    expect((await browser.request('POST', action, { ...form, name: 'Till', access: 'full' })).status).toBe(303);
    const notices = () => t.db.selectFrom('dashboard_notices').selectAll().where('place', 'like', `${biz.id}/%`).execute();
    const [notice] = await notices();
    expect(notice?.place).toBe(`${biz.id}/test/keys`);
    expect(notice!.body_sealed.toString('latin1')).not.toMatch(/sk_test_/);
    // The same person in another browser, and this browser on the other mode's page, are not told.
    expect((await (await signIn(email)).request('GET', action)).html).not.toMatch(/sk_test_[0-9A-Za-z]{32}/);
    expect((await browser.request('GET', `/dashboard/businesses/${biz.id}/live/keys`)).html).not.toMatch(/sk_(test|live)_[0-9A-Za-z]{32}/);
    const shown = await browser.request('GET', action);
    expect(shown.html).toMatch(/<code>sk_test_[0-9A-Za-z]{32}<\/code>/);
    expect(await notices()).toEqual([]);

    // Not read within five minutes: unreadable, then removed by the retention.
    expect((await browser.request('POST', action, { ...form, name: 'Late', access: 'full' })).status).toBe(303);
    await t.jump(5 * MINUTE + 1000);
    expect((await browser.request('GET', action)).html).not.toMatch(/sk_test_[0-9A-Za-z]{32}/);
    expect(await notices()).toHaveLength(1);
    expect(await forgetExpiredNotices(t.context)).toBeGreaterThanOrEqual(1);
    expect(await notices()).toEqual([]);
  });

  it('a viewer sees keys but cannot create or revoke them; another business is not found', async () => {
    const biz = await t.business();
    const viewer = `viewer-${biz.id}@shop.example`;
    await setMember(t.context, { businessId: biz.id, email: viewer, role: 'viewer' });
    const browser = await signIn(viewer);
    const action = `/dashboard/businesses/${biz.id}/test/keys`;
    const page = await browser.request('GET', action);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Only owners and developers manage keys.');
    const home = await browser.request('GET', '/dashboard');
    const csrf = Browser.form(home.html, '/dashboard/sign-out').csrf!;
    // The viewer's role is decided in the action: 403, and no key is made.
    const refused = await browser.request('POST', action, { csrf, access: 'full' });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('needs the developer role');
    expect(await t.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).where('created_by', 'is not', null).execute()).toEqual([]);
    const other = await t.business();
    expect((await browser.request('GET', `/dashboard/businesses/${other.id}/test/keys`)).status).toBe(404);
  });
});

describe('forms and addresses', () => {
  it('checks every form\'s CSRF token before its handler: a post without it changes nothing', async () => {
    const biz = await t.business();
    const browser = await signIn(await ownerEmail(biz));
    const keysBefore = await t.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute();
    for (const [path, fields] of [
      [`/dashboard/businesses/${biz.id}/test/keys`, { name: 'no token', access: 'full' }],
      [`/dashboard/businesses/${biz.id}/test/team`, { email: 'intruder@evil.example', role: 'owner' }],
      [`/dashboard/businesses/${biz.id}/test/keys/key_x/revoke`, {}],
    ] as const) {
      for (const csrf of [undefined, 'wrong']) {
        const refused = await browser.request('POST', path, { ...fields, ...(csrf ? { csrf } : {}) });
        expect(refused.status, `${path} csrf=${csrf}`).toBe(403);
      }
    }
    expect(await t.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute()).toEqual(keysBefore);
    expect(await t.db.selectFrom('people').select('id').where('email', '=', 'intruder@evil.example').execute()).toEqual([]);
  });

  it('sends addresses from before the Test/Live switch to Test, and answers an unknown mode or area with 404', async () => {
    const biz = await t.business();
    const browser = await signIn(await ownerEmail(biz));
    for (const area of ['keys', 'agents', 'team']) {
      const old = await browser.request('GET', `/dashboard/businesses/${biz.id}/${area}`);
      expect(old.status).toBe(303);
      expect(old.location).toBe(`/dashboard/businesses/${biz.id}/test/${area}`);
    }
    expect((await browser.request('GET', `/dashboard/businesses/${biz.id}/prod/keys`)).status).toBe(404);
    expect((await browser.request('GET', `/dashboard/businesses/${biz.id}/settings`)).status).toBe(404);
  });
});

describe('team', () => {
  it('an owner takes away managing keys, and the agents that person approved are disconnected', async () => {
    const biz = await t.business();
    const developer = `dev-${biz.id}@shop.example`.toLowerCase();
    await setMember(t.context, { businessId: biz.id, email: developer, role: 'developer' });
    const devId = (await t.db.selectFrom('people').select('id').where('email', '=', developer).executeTakeFirstOrThrow()).id;
    const { token, connection } = await connectAgent(t, biz);
    await t.db.updateTable('agent_connections').set({ approved_by: devId }).where('id', '=', connection.id).execute();
    expect((await t.request('GET', '/v1/payment_links', { key: token })).status).toBe(200);
    const browser = await signIn(await ownerEmail(biz));
    const action = `/dashboard/businesses/${biz.id}/live/team`;
    const page = await browser.request('GET', action);
    expect(page.html).toContain(developer);
    expect((await browser.request('POST', action, { ...Browser.form(page.html, action), email: developer, role: 'viewer' })).status).toBe(303);
    expect((await t.request('GET', '/v1/payment_links', { key: token })).body.error.code).toBe('agent_disconnected');
    // Even when the role comes back, that connection stays disconnected.
    await setMember(t.context, { businessId: biz.id, email: developer, role: 'developer' });
    expect((await t.request('GET', '/v1/payment_links', { key: token })).body.error.code).toBe('agent_disconnected');
    // The last owner stays an owner.
    const self = await ownerEmail(biz);
    const refused = await browser.request('POST', action, { ...Browser.form(page.html, action), email: self, role: 'viewer' });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('at least one owner');
  });

  it('adds a person as a viewer unless the owner chooses, and says so once after the redirect', async () => {
    const biz = await t.business();
    const browser = await signIn(await ownerEmail(biz));
    const action = `/dashboard/businesses/${biz.id}/test/team`;
    const page = await browser.request('GET', action);
    expect(page.html).toMatch(/<option value="viewer" selected/);
    // A form without a role adds a viewer.
    const posted = await browser.request('POST', action, { ...Browser.form(page.html, action), email: 'New@Team.example' });
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(action);
    const after = await browser.request('GET', action);
    expect(after.html).toContain('new@team.example is now a viewer.');
    expect((await browser.request('GET', action)).html).not.toContain('is now a');
    const role = async (email: string) => (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('m.role')
      .where('m.business_id', '=', biz.id).where('p.email', '=', email).executeTakeFirstOrThrow()).role;
    expect(await role('new@team.example')).toBe('viewer');
    // Without a role, a member keeps theirs.
    await setMember(t.context, { businessId: biz.id, email: 'new@team.example', role: 'developer' });
    expect((await browser.request('POST', action, { ...Browser.form(page.html, action), email: 'new@team.example' })).status).toBe(303);
    expect(await role('new@team.example')).toBe('developer');
    expect((await browser.request('GET', action)).html).toContain('new@team.example is now a developer.');
  });

  it('sessions end after 12 hours', async () => {
    const biz = await t.business();
    const browser = await signIn(await ownerEmail(biz));
    expect((await browser.request('GET', '/dashboard')).status).toBe(200);
    await t.jump(12 * HOUR + MINUTE);
    expect((await browser.request('GET', '/dashboard')).status).toBe(303);
  });
});

describe('review regressions', () => {
  it('goes only to dashboard paths after signing in, whatever next says', async () => {
    const biz = await t.business();
    const email = await ownerEmail(biz);
    for (const next of ['/dashboard/x\r\nSet-Cookie: a=b', '/oauth/authorize?client_id=x', 'https://evil.example/', '//evil.example/']) {
      const link = (await createSignInLink(t.context, email, next))!.url;
      const signed = await new Browser(t).signInWith(link);
      expect(signed.status, next).toBe(303);
      expect(signed.location, next).toBe('/dashboard');
    }
    const link = (await createSignInLink(t.context, email, '/dashboard/businesses'))!.url;
    expect((await new Browser(t).signInWith(link)).location).toBe('/dashboard/businesses');
  });

  it('signing out clears the cookie with the attributes it was set with', async () => {
    const biz = await t.business();
    const browser = await signIn(await ownerEmail(biz));
    const home = await browser.request('GET', '/dashboard');
    const response = await fetch(`${t.url}/dashboard/sign-out`, { method: 'POST', redirect: 'manual', headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `__Host-ps_session=${'x'}`,
    }, body: new URLSearchParams(Browser.form(home.html, '/dashboard/sign-out')) });
    // A stale cookie gets the refusal page; the real sign-out clears the cookie Secure and Path=/.
    expect(response.status).toBe(403);
    const out = await browser.request('POST', '/dashboard/sign-out', Browser.form(home.html, '/dashboard/sign-out'));
    expect(out.status).toBe(303);
    expect(browser.has('__Host-ps_session')).toBe(false);
  });
});

it('two owners demoting each other at once leave one owner', async () => {
  const biz = await t.business();
  const first = await ownerEmail(biz);
  const second = `second-${biz.id}@shop.example`.toLowerCase();
  await setMember(t.context, { businessId: biz.id, email: second, role: 'owner' });
  const results = await Promise.allSettled([
    setMember(t.context, { businessId: biz.id, email: first, role: 'viewer' }),
    setMember(t.context, { businessId: biz.id, email: second, role: 'viewer' }),
  ]);
  expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
  const owners = await t.db.selectFrom('memberships').select('person_id').where('business_id', '=', biz.id).where('role', '=', 'owner').execute();
  expect(owners).toHaveLength(1);
});
