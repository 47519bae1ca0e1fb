import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/auth/sessions.ts';
import { MINUTE } from '../../src/core/clock.ts';
import { toChecksumAddress } from '../../src/core/deposit-addresses.ts';
import { runCli } from '../support/cli.ts';
import { csrfOf, dashboardMerchant, signIn, type DashboardMerchant } from '../support/dashboard.ts';
import { LIVE_WALLET, startTestApp, type TestApp } from '../support/harness.ts';
import { setMember } from '../support/operator.ts';

// Issue 21: where all future money goes changes only deliberately and knowingly. A mixed-case
// address must pass its EIP-55 checksum; the new wallet is shown in full beside the old and
// changes only when confirmed; confirming needs a sign-in of the last 10 minutes (else the owner
// signs in again and comes back to the confirmation); every owner is mailed and the activity
// records it; the operator's CLI change is mailed the same way. Each failed on the code before.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

/** The CLI's data folder: what it generates stays out of the work tree. */
const dataDir = mkdtempSync(path.join(tmpdir(), 'payout-wallet-cli-'));
const CHECKSUMMED = toChecksumAddress('8ba1f109551bd432803012645ac136ddd64dba72');
/** The same address with one letter's case flipped: a typo the checksum catches. */
const MISTYPED = CHECKSUMMED.replace(/[a-f]/, (letter) => letter.toUpperCase());

async function walletOf(m: DashboardMerchant): Promise<string | null> {
  return (await t.db.selectFrom('businesses').select('payout_wallet').where('id', '=', m.biz.id).executeTakeFirstOrThrow()).payout_wallet;
}

async function walletMail(businessId: string) {
  return t.db.selectFrom('outbox').select(['recipient', 'subject', 'body']).where('business_id', '=', businessId).where('kind', '=', 'payout_wallet_changed').orderBy('recipient').execute();
}

/** An owner's form post of a new wallet: the address of its confirmation page. */
async function ask(m: DashboardMerchant, wallet: string): Promise<string> {
  const csrf = csrfOf((await m.owner.request('GET', m.area('settings', 'live'))).html);
  const asked = await m.owner.request('POST', m.area('settings', 'live'), { csrf, payout_wallet: wallet });
  expect(asked.status, asked.html).toBe(303);
  expect(asked.location).toMatch(new RegExp(`^${m.area('settings', 'live')}/payout-wallet/pwc_`));
  return asked.location!;
}

describe('the payout wallet', () => {
  it('refuses a mixed-case address whose checksum fails, with a message beside the field; takes a checksummed or one-case address', async () => {
    const m = await dashboardMerchant(t);
    const csrf = csrfOf((await m.owner.request('GET', m.area('settings'))).html);
    const refused = await m.owner.request('POST', m.area('settings'), { csrf, payout_wallet: MISTYPED });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('do not match its EIP-55 checksum');
    expect(await t.db.selectFrom('payout_wallet_changes').select('id').where('business_id', '=', m.biz.id).execute()).toEqual([]);
    for (const wallet of [CHECKSUMMED, CHECKSUMMED.toLowerCase(), `0x${CHECKSUMMED.slice(2).toUpperCase()}`]) await ask(m, wallet);
    // The operator's change is checked the same way.
    const operator = await runCli(t, ['business', 'update', m.biz.id, '--payout-wallet', MISTYPED, '--json'], { DATA_DIR: dataDir });
    expect(operator.code).toBe(1);
    expect(operator.stderr).toContain('EIP-55 checksum');
    expect(await walletOf(m)).toBe(LIVE_WALLET);
  });

  it('changes only once confirmed on a page showing both addresses in full; then every owner is mailed and the activity says so', async () => {
    const m = await dashboardMerchant(t);
    const second = `second-owner-${m.biz.id}@shop.example`.toLowerCase();
    await setMember(t.context, { businessId: m.biz.id, email: second, role: 'owner' });
    const page = await ask(m, CHECKSUMMED);
    expect(await walletOf(m)).toBe(LIVE_WALLET);

    const confirmation = await m.owner.request('GET', page);
    expect(confirmation.status).toBe(200);
    const shown = (address: string) => `0x${address.slice(2).match(/.{4}/g)!.join(' ')}`;
    expect(confirmation.html.replace(/<!-- -->/g, '')).toContain(shown(LIVE_WALLET));
    expect(confirmation.html.replace(/<!-- -->/g, '')).toContain(shown(CHECKSUMMED));
    expect(confirmation.html).toContain('Confirm the new wallet');
    // Another owner cannot confirm someone else's change; a developer cannot see it.
    const other = await signIn(t, second);
    expect((await other.request('GET', page)).status).toBe(404);
    expect((await m.developer.request('GET', page)).status).toBe(403);

    const confirmed = await m.owner.request('POST', page, { csrf: csrfOf(confirmation.html) });
    expect(confirmed.status).toBe(303);
    expect(await walletOf(m)).toBe(CHECKSUMMED);
    // Used once.
    expect((await m.owner.request('POST', page, { csrf: csrfOf(confirmation.html) })).status).toBe(404);

    const mail = await walletMail(m.biz.id);
    expect(mail.map((each) => each.recipient)).toEqual([m.ownerEmail, second].sort());
    for (const each of mail) {
      expect(each.subject).toContain('payout wallet');
      expect(each.body).toContain(`Old wallet:  ${LIVE_WALLET}`);
      expect(each.body).toContain(`New wallet:  ${CHECKSUMMED}`);
      expect(each.body).toContain(`Changed by:  ${m.ownerEmail}`);
      expect(each.body).toMatch(/When: {8}2026-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    }
    const activity = await t.db.selectFrom('activity').select(['action', 'details', 'actor']).where('business_id', '=', m.biz.id).where('action', '=', 'business.payout_wallet_changed').execute();
    expect(activity).toHaveLength(1);
    expect(activity[0]!.details).toEqual({ from: LIVE_WALLET, to: CHECKSUMMED });
  });

  it('a sign-in older than 10 minutes cannot confirm: the owner signs in again and comes back to the same confirmation', async () => {
    const m = await dashboardMerchant(t);
    const page = await ask(m, CHECKSUMMED);
    const csrf = csrfOf((await m.owner.request('GET', page)).html);
    await t.jump(11 * MINUTE);

    const stale = await m.owner.request('GET', page);
    expect(stale.html).toContain('Sign in again to confirm');
    expect(stale.html).not.toContain('Confirm the new wallet');
    // A forged or replayed confirmation with the old session's token changes nothing either.
    const refused = await m.owner.request('POST', page, { csrf });
    expect(refused.status).toBe(303);
    expect(refused.location).toBe(`/dashboard/sign-in?next=${encodeURIComponent(page)}`);
    expect(await walletOf(m)).toBe(LIVE_WALLET);

    // Signing in again (the link carries where to come back to) opens the confirmation, which now confirms.
    const link = await createSignInLink(t.context, m.ownerEmail, page);
    const signedIn = await m.owner.signInWith(link!.url);
    expect(signedIn.location).toBe(page);
    const again = await m.owner.request('GET', page);
    expect(again.html).toContain('Confirm the new wallet');
    expect((await m.owner.request('POST', page, { csrf: csrfOf(again.html) })).status).toBe(303);
    expect(await walletOf(m)).toBe(CHECKSUMMED);
  });

  it('a change not confirmed within 30 minutes does nothing', async () => {
    const m = await dashboardMerchant(t);
    const page = await ask(m, CHECKSUMMED);
    const csrf = csrfOf((await m.owner.request('GET', page)).html);
    await t.jump(31 * MINUTE);
    const fresh = await signIn(t, m.ownerEmail);
    expect((await fresh.request('GET', page)).status).toBe(404);
    expect((await m.owner.request('POST', page, { csrf })).status).toBeGreaterThanOrEqual(300);
    expect(await walletOf(m)).toBe(LIVE_WALLET);
  });

  it('the operator\'s change from the CLI takes effect at once, and every owner is mailed', async () => {
    const m = await dashboardMerchant(t);
    const changed = await runCli(t, ['business', 'update', m.biz.id, '--payout-wallet', CHECKSUMMED, '--json'], { DATA_DIR: dataDir });
    expect(changed.code, changed.stderr).toBe(0);
    expect(await walletOf(m)).toBe(CHECKSUMMED);
    const mail = await walletMail(m.biz.id);
    expect(mail.map((each) => each.recipient)).toEqual([m.ownerEmail]);
    expect(mail[0]!.body).toContain('Changed by:  the service\'s operator');
    expect(mail[0]!.body).toContain(`Old wallet:  ${LIVE_WALLET}`);
  });
});
