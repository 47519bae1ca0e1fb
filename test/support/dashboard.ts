import { expect } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { Browser } from './browser.ts';
import type { TestApp, TestBusiness } from './harness.ts';
import { setMember } from './operator.ts';

// A business as its people meet it in the dashboard: signed-in browsers for an owner, a developer
// and a viewer, its Test key, and the addresses of its areas.

/** A browser signed in as `email`, with a single-use link as the CLI's login-link makes. */
export async function signIn(t: TestApp, email: string): Promise<Browser> {
  const browser = new Browser(t);
  expect((await browser.signInWith((await createSignInLink(t.context, email))!.url)).status).toBe(303);
  return browser;
}

export interface DashboardMerchant {
  biz: TestBusiness;
  /** The business's Test secret key, and its id. */
  key: string;
  keyId: string;
  ownerEmail: string;
  owner: Browser;
  developer: Browser;
  viewer: Browser;
  /** An area's address: `/dashboard/businesses/<id>/<mode>/<name>`. */
  area(name: string, mode?: 'test' | 'live'): string;
}

export async function dashboardMerchant(t: TestApp, name?: string): Promise<DashboardMerchant> {
  const biz = await t.business(name ? { name } : {});
  const key = await biz.key();
  const ownerEmail = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow()).email;
  const people = { developer: `dev-${biz.id}@shop.example`.toLowerCase(), viewer: `viewer-${biz.id}@shop.example`.toLowerCase() };
  for (const role of ['developer', 'viewer'] as const) await setMember(t.context, { businessId: biz.id, email: people[role], role });
  return {
    biz, key: key.secret, keyId: key.id, ownerEmail,
    owner: await signIn(t, ownerEmail), developer: await signIn(t, people.developer), viewer: await signIn(t, people.viewer),
    area: (area, mode = 'test') => `/dashboard/businesses/${biz.id}/${mode}/${area}`,
  };
}

/** The CSRF token of a signed-in page (its sign-out form carries it): for forged forms. */
export const csrfOf = (html: string): string => Browser.form(html, '/dashboard/sign-out').csrf!;
