import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appWithChromium } from '../support/browser-app.ts';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { seriousViolations } from '../support/accessibility.ts';
import { LIVE_WALLET } from '../support/harness.ts';
import type { TestBusiness } from '../support/harness.ts';
import { openArea } from '../support/dashboard-nav.ts';

// The dashboard's forms in a real headless browser (Debian's Chromium, driven by playwright-core):
// a create is answered POST, 303, GET, so reloading the page it lands on sends nothing again, and
// a new key's secret is shown that once, in no address and nowhere in the database in the clear.

const app = appWithChromium();

const SECRET = /sk_test_[0-9A-Za-z]{32}/;

/** A new business's owner, signed in, on one of its Test pages; with every address the page asked for or was sent to. */
async function ownerOn(area: 'keys' | 'team' | 'settings'): Promise<{ biz: TestBusiness; page: Page; url: string; addresses: string[] }> {
  const biz = await app.t.business();
  const owner = await app.t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow();
  const page = await app.browser.newPage();
  const addresses: string[] = [];
  page.on('request', (request) => addresses.push(request.url()));
  page.on('response', (response) => addresses.push(response.headers().location ?? ''));
  page.on('framenavigated', (frame) => addresses.push(frame.url()));
  await page.goto((await createSignInLink(app.t.context, owner.email))!.url);
  await page.click('button');
  await page.waitForURL(`${app.t.config.baseUrl}/dashboard`);
  const url = `${app.t.config.baseUrl}/dashboard/businesses/${biz.id}/test/${area}`;
  await page.goto(url);
  return { biz, page, url, addresses };
}

/** The tables (any schema) with a row whose text, or whose bytes in hex, contains `text`. */
async function tablesContaining(text: string): Promise<string[]> {
  const { rows: tables } = await sql<{ name: string }>`SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`.execute(app.t.db);
  const found: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql`SELECT 1 FROM ${sql.table(name)} AS r WHERE r::text LIKE ${`%${text}%`} OR r::text LIKE ${`%${Buffer.from(text).toString('hex')}%`} LIMIT 1`.execute(app.t.db);
    if (rows.length > 0) found.push(name);
  }
  return found;
}

describe('dashboard forms in Chromium', () => {
  it('creating a key: the secret once, after a redirect; a reload makes no second key and shows no secret', async () => {
    const { biz, page, url: keysUrl, addresses } = await ownerOn('keys');
    const posts: number[] = [];
    const caching: Array<string | undefined> = [];
    page.on('response', (response) => {
      if (response.request().method() === 'POST') posts.push(response.status());
      else if (response.url() === keysUrl) caching.push(response.headers()['cache-control']);
    });
    await page.fill('input[name="name"]', 'Shop server');
    await page.click('button:has-text("Create key")');
    await page.waitForLoadState('load');

    expect(posts).toEqual([303]);
    expect(page.url()).toBe(keysUrl);
    const secret = SECRET.exec(await page.textContent('main') ?? '')?.[0];
    expect(secret).toBeDefined();
    expect(await page.textContent('body')).toContain('is shown this once');
    expect((await app.t.request('GET', '/v1/payment_links', { key: secret! })).status).toBe(200);
    // Read once: the sealed notice is gone, and the secret is nowhere in the database in the clear.
    expect(await app.t.db.selectFrom('dashboard_notices').select('id').execute()).toEqual([]);
    expect(await tablesContaining(secret!)).toEqual([]);
    expect(await tablesContaining(biz.id), 'the search finds what is there').toContain('public.businesses');

    // The page with the secret is kept by no cache: Away and Back asks for it again.
    expect(caching).toEqual(['no-store']);
    await openArea(page, 'Account', 'Team');
    await page.goBack();
    expect(page.url()).toBe(keysUrl);
    expect(await page.textContent('body')).not.toMatch(SECRET);
    await page.reload();
    expect(await page.textContent('body')).not.toMatch(SECRET);
    expect(posts).toEqual([303]);
    const keys = await app.t.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).where('name', '=', 'Shop server').execute();
    expect(keys).toHaveLength(1);
    expect(addresses.filter((address) => address.includes(secret!) || address.includes(secret!.slice(8)))).toEqual([]);
    await page.close();
  });

  it('the secret waits sealed between the create and its page', async () => {
    const { biz, page, url: keysUrl } = await ownerOn('keys');
    // The browser's own session posts the form but stops at the redirect: written, not yet read.
    const csrf = await page.inputValue(`form[action="${new URL(keysUrl).pathname}"] input[name="${CSRF_FIELD}"]`);
    const posted = await page.request.post(keysUrl, { form: { [CSRF_FIELD]: csrf, name: 'Till', access: 'full' }, maxRedirects: 0 });
    expect(posted.status()).toBe(303);
    const [notice] = await app.t.db.selectFrom('dashboard_notices').selectAll().where('place', 'like', `${biz.id}/%`).execute();
    expect(notice?.place).toBe(`${biz.id}/test/keys`);
    const secret = SECRET.exec(app.t.context.secrets.open(notice!.body_sealed))?.[0];
    expect(secret).toBeDefined();
    expect(await tablesContaining(secret!)).toEqual([]);
    await page.goto(keysUrl);
    expect(await page.textContent('main')).toContain(secret);
    await page.close();
  });

  it('adding a person: viewer unless chosen, said once after the redirect; a reload adds nobody again', async () => {
    const { biz, page, url: teamUrl } = await ownerOn('team');
    expect(await page.inputValue('select[name="role"]')).toBe('viewer');
    await page.fill('input[name="email"]', 'helper@corner.example');
    await page.click('button:has-text("Save")');
    await page.waitForLoadState('load');
    expect(page.url()).toBe(teamUrl);
    expect(await page.textContent('[role="status"]')).toContain('helper@corner.example is now a viewer.');

    await page.reload();
    expect(await page.textContent('body')).not.toContain('is now a viewer');
    const added = await app.t.db.selectFrom('activity').select('id').where('business_id', '=', biz.id).where('action', '=', 'member.role_set').execute();
    expect(added).toHaveLength(1);
    const member = await app.t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('m.role')
      .where('m.business_id', '=', biz.id).where('p.email', '=', 'helper@corner.example').executeTakeFirstOrThrow();
    expect(member.role).toBe('viewer');
    await page.close();
  });

  it('a new payout wallet: its own confirmation page, both addresses in full, labelled and accessible (axe, desktop and phone width); Confirm changes it', async () => {
    const wallet = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const { biz, page, url: settingsUrl } = await ownerOn('settings');
    await page.fill('input[name="payout_wallet"]', wallet);
    await page.click('button:has-text("Review new wallet")');
    await page.waitForLoadState('load');
    expect(page.url()).toBe(`${settingsUrl}/payout-wallet`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm the new payout wallet');
    const change = page.getByRole('definition');
    expect(await change.allTextContents()).toEqual([LIVE_WALLET, wallet]);
    const form = page.getByRole('form', { name: 'Confirm the new payout wallet' });
    expect(await form.locator(`input[name="${CSRF_FIELD}"]`).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 360, height: 740 });
    // At phone width the full address still shows, wrapped, never cut off.
    const box = await page.locator('code.wallet-address').last().boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    expect((await app.t.db.selectFrom('businesses').select('payout_wallet').where('id', '=', biz.id).executeTakeFirstOrThrow()).payout_wallet).toBe(LIVE_WALLET);

    await form.getByRole('button', { name: 'Confirm the new wallet' }).click();
    await page.waitForLoadState('load');
    expect(page.url()).toBe(`${settingsUrl}?saved=wallet`);
    expect(await page.textContent('[role="status"]')).toContain('The payout wallet was changed.');
    expect((await app.t.db.selectFrom('businesses').select('payout_wallet').where('id', '=', biz.id).executeTakeFirstOrThrow()).payout_wallet).toBe(wallet);
    await page.close();
  });
});
