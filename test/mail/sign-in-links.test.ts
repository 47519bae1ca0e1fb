import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LINKS_PER_WINDOW } from '../../src/auth/sign-in-mail.ts';
import { MINUTE } from '../../src/core/clock.ts';
import { Browser } from '../support/browser.ts';
import { runCli } from '../support/cli.ts';
import type { TestApp } from '../support/harness.ts';
import { startMailingApp, untilTicked, type SmtpPeer } from '../support/smtp.ts';

// Dashboard sign-in links by email (SMTP_URL set): the sign-in page's form queues the link
// through the outbox, a real SMTP server receives it, and the link signs in. The page reads the
// same whether or not the address has an account.

let t: TestApp;
let smtp: SmtpPeer;
let close: () => Promise<void>;
beforeAll(async () => { ({ t, smtp, close } = await startMailingApp()); });
afterAll(async () => close?.());

const until = <T>(check: () => T | Promise<T>) => untilTicked(t, check);

const FORM = '/dashboard/sign-in/link';

/** Asks for a link on the sign-in page, as a person does. */
async function askForLink(browser: Browser, email: string, next = '/dashboard') {
  const page = await browser.request('GET', `/dashboard/sign-in?next=${encodeURIComponent(next)}`);
  expect(page.html).toContain('Email me a sign-in link');
  return browser.request('POST', FORM, { ...Browser.form(page.html, FORM), email });
}

const signInMailsTo = (email: string) => smtp.received.filter((mail) => mail.to.includes(email) && mail.subject === 'Your sign-in link');
const linkIn = (text: string) => /https:\/\/pay\.example\.test\/dashboard\/sign-in\/link\?\S+/.exec(text)?.[0] ?? '';

describe('a sign-in link by email', () => {
  it('is mailed to a person who asks on the sign-in page, and signs them in once', async () => {
    const biz = await t.business();
    const email = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
      .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow()).email;
    const browser = new Browser(t);
    const next = `/dashboard/businesses/${biz.id}/test/keys`;
    const answer = await askForLink(browser, email.toUpperCase(), next);
    expect(answer.status).toBe(200);
    expect(answer.html).toContain('Check your email');

    const [mail] = await until(() => {
      const found = signInMailsTo(email);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(mail!.text).toContain('within 15 minutes');
    const link = linkIn(mail!.text);
    expect(link).toContain(`next=${encodeURIComponent(next)}`);
    // The link's token is nowhere in the database: the link is hashed, the mail's body sealed and then erased.
    const token = new URL(link).searchParams.get('token')!;
    // The server has the message a moment before the worker records it sent.
    await until(async () => expect(await t.db.selectFrom('outbox').selectAll().where('kind', '=', 'sign_in_link').where('recipient', '=', email).execute())
      .toMatchObject([{ status: 'sent', body: null, body_sealed: null, business_id: null }]));
    const dump = (await sql<{ text: string }>`SELECT string_agg(o::text, '') AS text FROM outbox o`.execute(t.db)).rows[0]?.text ?? '';
    expect(dump).not.toContain(token);

    const signed = await browser.signInWith(link);
    expect(signed.status).toBe(303);
    expect(signed.location).toBe(next);
    expect((await browser.request('GET', '/dashboard')).html).toContain(biz.id);
    expect((await new Browser(t).signInWith(link)).status).toBe(400);
  });

  it('reads the same for an address without an account, and mails nothing', async () => {
    const biz = await t.business();
    const email = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
      .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow()).email;
    const answer = await askForLink(new Browser(t), 'nobody@nowhere.example');
    expect(answer.status).toBe(200);
    const known = await askForLink(new Browser(t), email);
    expect(answer.html.replace('nobody@nowhere.example', 'X')).toBe(known.html.replace(email, 'X'));
    expect(await t.db.selectFrom('outbox').select('id').where('recipient', '=', 'nobody@nowhere.example').execute()).toEqual([]);
    expect(await t.db.selectFrom('sign_in_links as l').innerJoin('people as p', 'p.id', 'l.person_id').select('p.email')
      .where('p.email', '=', 'nobody@nowhere.example').execute()).toEqual([]);
  });

  it(`sends one person at most ${SIGN_IN_LINKS_PER_WINDOW} links in 15 minutes, answering the same`, async () => {
    const biz = await t.business();
    const email = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
      .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow()).email;
    const queued = () => t.db.selectFrom('outbox').select('id').where('recipient', '=', email).execute();
    for (let i = 0; i < SIGN_IN_LINKS_PER_WINDOW + 1; i += 1) expect((await askForLink(new Browser(t), email)).html).toContain('Check your email');
    expect(await queued()).toHaveLength(SIGN_IN_LINKS_PER_WINDOW);
    // Fifteen minutes on (the links made older, not the clock: the CLI's test runs on real time).
    await t.db.updateTable('sign_in_links').set({ created_at: new Date(t.clock.now().getTime() - 16 * MINUTE) })
      .where('person_id', '=', (eb) => eb.selectFrom('people').select('id').where('email', '=', email)).execute();
    await askForLink(new Browser(t), email);
    expect(await queued()).toHaveLength(SIGN_IN_LINKS_PER_WINDOW + 1);
  });

  it('refuses a form without its nonce, and asks again for an address that is not one', async () => {
    const browser = new Browser(t);
    const page = await browser.request('GET', '/dashboard/sign-in');
    const fields = Browser.form(page.html, FORM);
    const stranger = await new Browser(t).request('POST', FORM, { ...fields, email: 'owner1@shop.example' });
    expect(stranger.status).toBe(403);
    expect(stranger.html).toContain('Open the sign-in page again.');
    const typo = await browser.request('POST', FORM, { ...fields, email: 'owner1.shop.example' });
    expect(typo.status).toBe(400);
    expect(typo.html).toContain('Enter your email address');
    expect(typo.html).toContain('value="owner1.shop.example"');
  });

  it('login-link --send mails the link instead of printing it', async () => {
    const biz = await t.business();
    const email = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
      .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow()).email;
    const dataDir = await mkdtemp(path.join(tmpdir(), 'login-link-'));
    try {
      const sent = await runCli(t, ['login-link', '--email', email, '--send', '--json'], { DATA_DIR: dataDir, SMTP_URL: smtp.url, BASE_URL: t.config.baseUrl });
      expect(sent.code).toBe(0);
      expect(JSON.parse(sent.stdout)).toEqual({ sent: true, to: email });
      expect(sent.stdout).not.toContain('token=');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    const [mail] = await until(() => {
      const found = signInMailsTo(email);
      expect(found).toHaveLength(1);
      return found;
    });
    expect((await new Browser(t).signInWith(linkIn(mail!.text))).status).toBe(303);
  });
});
