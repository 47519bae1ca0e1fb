import type { VNode } from 'preact';
import type { PayoutWalletChangeOut } from '../../resources/businesses/payout-wallet.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';
import { Facts } from './payment.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';

// The confirmation step of a payout wallet change (issue 21): the new address in full beside the
// old, read before anything changes; a sign-in of the last few minutes to confirm, else the way
// to sign in again and come back here.

/** The address in full, in groups of four so a person can compare it with their wallet's. */
function Address({ address }: { address: string | null }): VNode {
  if (address === null) return html`<span>none</span>`;
  const groups = address.slice(2).match(/.{1,4}/g) ?? [];
  return html`<code class="address">0x${groups.map((group, index) => html`${index > 0 ? ' ' : ''}${group}`)}</code>`;
}

export function payoutWalletConfirmPage({ session, business, mode, role, change, signInAgain }: BusinessFrame & {
  change: PayoutWalletChangeOut;
  /** Where signing in again starts, coming back to this page. */
  signInAgain: string;
}): VNode {
  const settings = businessPath(business.id, 'settings', mode);
  return DashboardPage({
    title: 'Confirm the new payout wallet',
    session,
    frame: { business, mode, role },
    area: 'settings',
    children: html`<div>
      <h1>Confirm the new payout wallet</h1>
      <p>Every Live payment that starts after you confirm is forwarded to the new wallet. Check it character by character against your wallet: money sent to a wrong address cannot be recovered.</p>
      ${Facts({ label: 'The change', facts: [
        ['Current wallet', Address({ address: change.old_wallet })],
        ['New wallet', Address({ address: change.new_wallet })],
        ['Waits until', at(change.expires_at)],
      ] })}
      <p>Every owner of ${business.name} is emailed when it changes.</p>
      ${change.recent_sign_in
        ? Form({ action: `${settings}/payout-wallet/${change.id}`, label: 'Confirm the new payout wallet', children: [
            Button({ variant: 'danger', children: 'Confirm the new wallet' }),
            html`<a href=${settings}>Keep the current wallet</a>`,
          ] })
        : html`<div>
            ${Notice({ tone: 'warning', children: 'Changing where money goes needs a sign-in within the last 10 minutes. Sign in again, and you come back to this page to confirm.' })}
            <p><a class="button" href=${signInAgain}>Sign in again to confirm</a>${' '}<a href=${settings}>Keep the current wallet</a></p>
          </div>`}
    </div>`,
  });
}
