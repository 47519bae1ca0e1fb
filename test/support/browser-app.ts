import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { CHROMIUM_ARGS, ensureChromium } from './chromium.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './harness.ts';

// What a file of browser journeys starts from: the app at a real origin and one Chromium,
// started before its tests and closed after them; and a business's owner signed in there.

export interface BrowserApp {
  readonly t: TestApp;
  readonly browser: Browser;
}

/** Registers the file's beforeAll and afterAll; read `t` and `browser` inside tests. */
export function appWithChromium(env: Record<string, string> = { RATE_LIMITS: 'off' }, options: TestAppOptions = {}): BrowserApp {
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const executablePath = ensureChromium();
    t = await startTestApp(env, { realOrigin: true, ...options });
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  return {
    get t() { return t!; },
    get browser() { return browser!; },
  };
}

/** A new business named `name`, its owner signed in on a new page at /dashboard; its Test key. */
export async function ownerSignedIn({ t, browser }: BrowserApp, name: string): Promise<{ page: Page; key: string; id: string }> {
  const biz = await t.business({ name });
  const key = (await biz.key()).secret;
  const owner = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow();
  const page = await browser.newPage();
  await page.goto((await createSignInLink(t.context, owner.email))!.url);
  await page.click('button');
  await page.waitForURL(`${t.config.baseUrl}/dashboard`);
  return { page, key, id: biz.id };
}
