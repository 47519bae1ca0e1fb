import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { MINUTE } from '../../src/core/clock.ts';
import { forgetExpired } from '../../src/runtime.ts';
import { csrfOf, dashboardMerchant, signIn, type DashboardMerchant } from '../support/dashboard.ts';
import { Browser } from '../support/browser.ts';
import { runCli } from '../support/cli.ts';
import { LIVE_WALLET, type TestApp } from '../support/harness.ts';
import { setMember } from '../support/operator.ts';
import { startMailingApp, untilTicked, type SmtpPeer } from '../support/smtp.ts';

// Issue 21: the payout wallet, where all future money goes, changes only deliberately. A
// mixed-case address must pass its EIP-55 checksum; the dashboard shows the old and new address
// in full and asks for a confirmation, which needs a sign-in within the last 10 minutes (else
// the person signs in again and comes back, the change still waiting); every owner is mailed
// (a real SMTP server on loopback) and the activity records it. The operator's CLI change too.

let t: TestApp;
let smtp: SmtpPeer;
let close: () => Promise<void>;
beforeAll(async () => { ({ t, smtp, close } = await startMailingApp()); });
afterAll(async () => close?.());

/** The EIP-55 example address (from the EIP), and the same with one letter's case changed: a typo the checksum catches. */
const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const MISTYPED = '0x5aAeb6053f3E94C9b9A09f33669435E7Ef1BeAed';

const until = <T>(check: () => T | Promise<T>) => untilTicked(t, check);

/** The mails telling of the change to CHECKSUMMED (a new business's first wallet is mailed too). */
const walletMailsOf = (businessName: string) => smtp.received.filter((mail) => mail.subject === `The payout wallet of ${businessName} was changed`
  && mail.text.includes(`Now:      ${CHECKSUMMED}`));
const walletOf = async (id: string) => (await t.db.selectFrom('businesses').select('payout_wallet').where('id', '=', id).executeTakeFirstOrThrow()).payout_wallet;

let count = 0;
/** A merchant whose business has a second owner (both are mailed), with its name. */
async function merchant(): Promise<DashboardMerchant & { name: string; owner2: string }> {
  count += 1;
  const name = `Wallet Roasters ${count}`;
  const m = await dashboardMerchant(t, name);
  const owner2 = `owner2-${m.biz.id}@shop.example`.toLowerCase();
  await setMember(t.context, { businessId: m.biz.id, email: owner2, role: 'owner' });
  return { ...m, name, owner2 };
}

/** The owner asks for `wallet` on the settings page: the answer (a redirect to the confirmation), and the settings address. */
async function ask(m: DashboardMerchant, wallet = CHECKSUMMED) {
  const path = m.area('settings');
  const csrf = csrfOf((await m.owner.request('GET', path)).html);
  return { path, csrf, asked: await m.owner.request('POST', path, { csrf, payout_wallet: wallet }) };
}

describe('the payout wallet in the dashboard', () => {
  it('a mixed-case address must pass its EIP-55 checksum; one-case addresses are taken unchecked; nothing changes before the confirmation', async () => {
    const m = await merchant();
    const path = m.area('settings');
    const csrf = csrfOf((await m.owner.request('GET', path)).html);
    const typo = await m.owner.request('POST', path, { csrf, payout_wallet: MISTYPED });
    expect(typo.status).toBe(400);
    expect(typo.html).toContain('do not match its checksum (EIP-55)');
    for (const wallet of [CHECKSUMMED, CHECKSUMMED.toLowerCase(), `0x${CHECKSUMMED.slice(2).toUpperCase()}`]) {
      const asked = await m.owner.request('POST', path, { csrf, payout_wallet: wallet });
      expect(asked.status, wallet).toBe(303);
      expect(asked.location).toBe(`${path}/payout-wallet`);
    }
    expect(await walletOf(m.biz.id)).toBe(LIVE_WALLET);
    // The operator's change is checked the same way.
    const refused = await runCli(t, ['business', 'update', m.biz.id, '--payout-wallet', MISTYPED, '--json'], { DATA_DIR: await mkdtemp(join(tmpdir(), 'wallet-cli-')) });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'invalid_payout_wallet' });
  });

  it('asking shows both addresses in full with a Confirm; confirming changes it, mails every owner (old, new, who, when) and records it', async () => {
    const m = await merchant();
    const { path, asked } = await ask(m);
    expect(asked.status).toBe(303);
    const step = await m.owner.request('GET', asked.location!);
    expect(step.status).toBe(200);
    expect(step.html).toContain('Confirm the new payout wallet');
    expect(step.html).toContain(`<code class="wallet-address">${LIVE_WALLET}</code>`);
    expect(step.html).toContain(`<code class="wallet-address">${CHECKSUMMED}</code>`);
    expect(step.html).not.toContain('sign in again');
    // Asked, not changed: the business, the activity and the mail wait for the confirmation.
    expect(await walletOf(m.biz.id)).toBe(LIVE_WALLET);
    const form = Browser.form(step.html, asked.location!);
    expect(form).toMatchObject({ payout_wallet: CHECKSUMMED });

    // A confirmation naming another address than the one waiting changes nothing.
    const forged = await m.owner.request('POST', asked.location!, { ...form, payout_wallet: '0x3333333333333333333333333333333333333333' });
    expect(forged.status).toBe(409);
    expect(await walletOf(m.biz.id)).toBe(LIVE_WALLET);
    // Without the session's CSRF token, nothing either.
    expect((await m.owner.request('POST', asked.location!, { payout_wallet: CHECKSUMMED })).status).toBe(403);

    const confirmed = await m.owner.request('POST', asked.location!, form);
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe(`${path}?saved=wallet`);
    expect(await walletOf(m.biz.id)).toBe(CHECKSUMMED);
    const settings = await m.owner.request('GET', confirmed.location!);
    expect(settings.html).toContain('The payout wallet was changed. Every owner was emailed about it.');
    expect(settings.html).toContain('Payout wallet changed');
    const [entry] = await t.db.selectFrom('activity').select(['actor', 'details']).where('business_id', '=', m.biz.id).where('action', '=', 'business.payout_wallet_changed').execute();
    expect(entry?.details).toEqual({ payout_wallet: CHECKSUMMED, payout_wallet_before: LIVE_WALLET });
    // Done: the step has nothing left to confirm.
    expect((await m.owner.request('GET', asked.location!)).status).toBe(404);

    const mails = await until(() => {
      const found = walletMailsOf(m.name);
      expect(found).toHaveLength(2);
      return found;
    });
    expect(mails.map((mail) => mail.to).sort()).toEqual([[m.ownerEmail], [m.owner2]].sort());
    const text = mails[0]!.text;
    expect(text).toContain(`Before:   ${LIVE_WALLET}`);
    expect(text).toContain(`Now:      ${CHECKSUMMED}`);
    expect(text).toContain(`By:       ${m.ownerEmail}`);
    expect(text).toContain(`When:     ${t.clock.now().toISOString().slice(0, 10)}`);
    const everyone = smtp.received.filter((mail) => mail.subject.includes(m.name)).flatMap((mail) => mail.to);
    expect(everyone).not.toContain(`dev-${m.biz.id}@shop.example`.toLowerCase());
    expect(everyone).not.toContain(`viewer-${m.biz.id}@shop.example`.toLowerCase());
  });

  it('a sign-in older than 10 minutes: sent to sign in again, back to the confirmation with the change still waiting, applied only on Confirm', async () => {
    const m = await merchant();
    const { asked } = await ask(m);
    const stepPath = asked.location!;
    await t.jump(10 * MINUTE + 1_000);
    const step = await m.owner.request('GET', stepPath);
    expect(step.html).toContain('you will be asked to sign in again');
    const stale = await m.owner.request('POST', stepPath, Browser.form(step.html, stepPath));
    expect(stale.status).toBe(303);
    expect(stale.location).toBe(`/dashboard/sign-in?next=${encodeURIComponent(stepPath)}&again=1`);
    expect(await walletOf(m.biz.id)).toBe(LIVE_WALLET);
    const signInPage = await m.owner.request('GET', stale.location!);
    expect(signInPage.status).toBe(200);
    expect(signInPage.html).toContain('<h1>Sign in again</h1>');
    expect(signInPage.html).toContain('Nothing was changed yet');

    // Signing in again (a link, as the sign-in page mails one) comes back to the step: still waiting, not applied.
    const again = await m.owner.signInWith((await createSignInLink(t.context, m.ownerEmail, stepPath))!.url);
    expect(again.status).toBe(303);
    expect(again.location).toBe(stepPath);
    const back = await m.owner.request('GET', stepPath);
    expect(back.html).toContain(`<code class="wallet-address">${CHECKSUMMED}</code>`);
    expect(back.html).not.toContain('sign in again');
    expect(await walletOf(m.biz.id)).toBe(LIVE_WALLET);
    expect(walletMailsOf(m.name)).toEqual([]);
    expect((await m.owner.request('POST', stepPath, Browser.form(back.html, stepPath))).status).toBe(303);
    expect(await walletOf(m.biz.id)).toBe(CHECKSUMMED);
  });

  it('another owner cannot confirm a change they did not ask for; settings that are not the wallet stay one step', async () => {
    const m = await merchant();
    const { path, csrf, asked } = await ask(m);
    const other = new Browser(t);
    await other.signInWith((await createSignInLink(t.context, m.owner2))!.url);
    expect((await other.request('GET', asked.location!)).status).toBe(404);
    const otherCsrf = csrfOf((await other.request('GET', path)).html);
    expect((await other.request('POST', asked.location!, { csrf: otherCsrf, payout_wallet: CHECKSUMMED })).status).toBe(404);
    expect(await walletOf(m.biz.id)).toBe(LIVE_WALLET);

    expect((await m.owner.request('POST', path, { csrf, crypto_enabled: 'off' })).location).toBe(`${path}?saved=1`);
    expect((await t.db.selectFrom('businesses').select('crypto_enabled').where('id', '=', m.biz.id).executeTakeFirstOrThrow()).crypto_enabled).toBe(false);
  });
});

describe('a change left unconfirmed', () => {
  it('waits an hour: then its page is gone, Confirm changes nothing, and the hourly retention deletes it', async () => {
    const m = await merchant();
    const { path, asked } = await ask(m);
    const form = Browser.form((await m.owner.request('GET', asked.location!)).html, asked.location!);
    await t.jump(60 * MINUTE);
    expect((await m.owner.request('GET', asked.location!)).status).toBe(404);
    // Signed in again just now, so only the change's age refuses it.
    const fresh = await signIn(t, m.ownerEmail);
    expect((await fresh.request('POST', asked.location!, { ...form, csrf: csrfOf((await fresh.request('GET', path)).html) })).status).toBe(404);
    expect(await walletOf(m.biz.id)).toBe(LIVE_WALLET);
    const waiting = () => t.db.selectFrom('payout_wallet_changes').select('person_id').where('business_id', '=', m.biz.id).execute();
    expect(await waiting()).toHaveLength(1);
    await forgetExpired(t.context);
    expect(await waiting()).toEqual([]);
  });
});

describe('the payout wallet from the operator CLI', () => {
  it('business update --payout-wallet changes it at once and mails every owner, naming the operator', async () => {
    const m = await merchant();
    const dataDir = await mkdtemp(join(tmpdir(), 'wallet-cli-'));
    try {
      const updated = await runCli(t, ['business', 'update', m.biz.id, '--payout-wallet', CHECKSUMMED, '--json'], { DATA_DIR: dataDir, SMTP_URL: smtp.url });
      expect(updated.code, updated.stderr).toBe(0);
      expect(JSON.parse(updated.stdout)).toMatchObject({ payout_wallet: CHECKSUMMED });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    const mails = await until(() => {
      const found = walletMailsOf(m.name);
      expect(found).toHaveLength(2);
      return found;
    });
    expect(mails.map((mail) => mail.to).sort()).toEqual([[m.ownerEmail], [m.owner2]].sort());
    expect(mails[0]!.text).toContain(`Before:   ${LIVE_WALLET}`);
    expect(mails[0]!.text).toContain(`Now:      ${CHECKSUMMED}`);
    expect(mails[0]!.text).toContain('By:       the service\'s operator');
    const [entry] = await t.db.selectFrom('activity').select(['actor', 'action', 'details']).where('business_id', '=', m.biz.id).where('actor', '=', 'operator')
      .where('action', '=', 'business.updated').orderBy('id', 'desc').execute();
    expect(entry?.details).toMatchObject({ payout_wallet: CHECKSUMMED, payout_wallet_before: LIVE_WALLET });
  });
});
