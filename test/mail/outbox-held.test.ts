import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../src/core/clock.ts';
import { forgetOldMail } from '../../src/mail/outbox.ts';
import { createApiKey } from '../../src/resources/api-keys/create.ts';
import { Browser } from '../support/browser.ts';
import { runCli } from '../support/cli.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';
import { asOperator } from '../support/operator.ts';

// Without SMTP_URL, mail stays in the outbox (held, no job) and the operator reads it with
// `outbox list`; the dashboard says sign-in links are not mailed, and makes none.

let t: TestApp;
let dataDir: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  dataDir = await mkdtemp(path.join(tmpdir(), 'outbox-cli-'));
});
afterAll(async () => {
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The CLI as an operator runs it, on this test's database and without SMTP_URL. */
const cli = (args: string[]) => runCli(t, args, { DATA_DIR: dataDir });

async function ownerOf(biz: TestBusiness) {
  return (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow()).email;
}

/** A business whose Live key added an endpoint: its mail is written, held. */
async function notified() {
  const biz = await t.business();
  const key = await createApiKey.run(await asOperator(t.context, biz.id, true), { name: 'Shop server' });
  const url = `https://hooks.example.com/${biz.id}`;
  expect((await t.request('POST', '/v1/webhook_endpoints', { key: key.secret, body: { url } })).status).toBe(201);
  return { biz, key, url, owner: await ownerOf(biz) };
}

describe('without SMTP_URL', () => {
  it('keeps the mail in the outbox, held, with no job to send it', async () => {
    const { biz, owner } = await notified();
    expect(await t.db.selectFrom('outbox').select(['recipient', 'status', 'attempts']).where('business_id', '=', biz.id).execute())
      .toEqual([{ recipient: owner, status: 'held', attempts: 0 }]);
    const jobs = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'mail'`.execute(t.db);
    expect(jobs.rows[0]?.n).toBe(0);
  });

  it('outbox list shows the mail to the operator; with --business only that business\'s', async () => {
    const mine = await notified();
    const theirs = await notified();
    // In parallel: each run starts a process.
    const [all, scopedRun, text, unknown] = await Promise.all([
      cli(['outbox', 'list', '--json']), cli(['outbox', 'list', '--business', mine.biz.id, '--json']),
      cli(['outbox', 'list', '--business', mine.biz.id]), cli(['outbox', 'list', '--business', 'biz_nope', '--json']),
    ]);
    expect(all.code).toBe(0);
    const listed = JSON.parse(all.stdout).data as Array<Record<string, unknown>>;
    expect(listed.map((mail) => mail.business_id)).toEqual(expect.arrayContaining([mine.biz.id, theirs.biz.id]));
    const one = listed.find((mail) => mail.business_id === mine.biz.id)!;
    expect(one).toMatchObject({ kind: 'webhook_endpoint_added', to: mine.owner, status: 'held', attempts: 0, last_error: null });
    expect(one.body).toContain(mine.url);
    expect(one.body).toContain('"Shop server"');

    const scoped = JSON.parse(scopedRun.stdout).data as Array<Record<string, unknown>>;
    expect(scoped.length).toBeGreaterThan(0);
    expect(scoped.every((mail) => mail.business_id === mine.biz.id)).toBe(true);

    expect(text.stdout).toContain(`To: ${mine.owner}`);
    expect(text.stdout).toContain(`Sends to:  ${mine.url}`);
    expect(text.stdout).not.toContain(theirs.url);

    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('not_found');
  });

  it('the sign-in page says links are not mailed here, makes none when asked, and login-link --send refuses', async () => {
    const biz = await t.business();
    const email = await ownerOf(biz);
    const browser = new Browser(t);
    const page = await browser.request('GET', '/dashboard/sign-in');
    expect(page.html).toContain('does not send email');
    expect(page.html).not.toContain('Email me a sign-in link');
    expect(page.html).toContain('login-link --email');
    // A form posted anyway (with a nonce a sign-in link's page gave): the same page, and no link.
    const { nonce } = Browser.form((await browser.request('GET', '/dashboard/sign-in/link?token=x')).html, '/dashboard/sign-in/link');
    const asked = await browser.request('POST', '/dashboard/sign-in/link', { nonce: nonce!, email });
    expect(asked.status).toBe(400);
    expect(asked.html).toContain('does not send email');
    const links = () => t.db.selectFrom('sign_in_links as l').innerJoin('people as p', 'p.id', 'l.person_id').select('l.token_hash').where('p.email', '=', email).execute();
    expect(await links()).toEqual([]);

    const sent = await cli(['login-link', '--email', email, '--send', '--json']);
    expect(sent.code).toBe(1);
    expect(JSON.parse(sent.stdout).error.message).toContain('SMTP_URL is not set');
    expect(await links()).toEqual([]);
    expect(await t.db.selectFrom('outbox').select('id').where('kind', '=', 'sign_in_link').execute()).toEqual([]);
  });

  it('forgets mail after 30 days, whatever became of it (the hourly retention)', async () => {
    const { biz } = await notified();
    const now = t.clock.now().getTime();
    const [row] = await t.db.selectFrom('outbox').select('id').where('business_id', '=', biz.id).execute();
    await t.db.updateTable('outbox').set({ created_at: new Date(now - 31 * DAY) }).where('id', '=', row!.id).execute();
    const recent = (await notified()).biz.id;
    expect(await forgetOldMail(t.context)).toBeGreaterThanOrEqual(1);
    expect(await t.db.selectFrom('outbox').select('id').where('id', '=', row!.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('outbox').select('id').where('business_id', '=', recent).execute()).toHaveLength(1);
  });
});
