import type { VNode } from 'preact';
import { RECENT_SIGN_IN_MS } from '../../auth/sessions.ts';
import type { PendingWalletChange } from '../../resources/businesses/wallet-change.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';
import { DashboardPage, type BusinessFrame } from './frame.ts';
import { Facts } from './payment.ts';

// The confirmation step of a payout wallet change: both addresses in full, one above the other,
// so a typo or an address someone else put there is seen before any money goes to it.

export const PAYOUT_WALLET_STEP = '/payout-wallet';

const Address = (address: string | null) => address === null
  ? html`<span>none</span>`
  : html`<code class="wallet-address">${address}</code>`;

export function payoutWalletConfirmPage({ session, business, mode, role, change, recent, error }: BusinessFrame & {
  change: PendingWalletChange;
  /** Whether the person signed in recently enough to confirm now (else they sign in again first). */
  recent: boolean;
  error?: string;
}): VNode {
  const settings = businessPath(business.id, 'settings', mode);
  return DashboardPage({
    title: 'Confirm the new payout wallet',
    session,
    frame: { business, mode, role },
    area: 'settings',
    children: html`<div>
      <h1>Confirm the new payout wallet</h1>
      ${error && Notice({ tone: 'error', children: error })}
      <p>Every Live payment started after you confirm is forwarded to the new address. Money sent to a wrong address cannot be brought back: compare it, character by character, with the address your wallet shows.</p>
      ${Facts({ label: 'The change', facts: [['Payout wallet now', Address(change.current)], ['New payout wallet', Address(change.payout_wallet)]] })}
      <p>Every owner of ${business.name} gets an email saying who changed it and when.</p>
      ${!recent && Notice({ tone: 'warning', children: `You signed in more than ${RECENT_SIGN_IN_MS / 60_000} minutes ago: you will be asked to sign in again, then come back here to confirm.` })}
      ${Form({ action: `${settings}${PAYOUT_WALLET_STEP}`, label: 'Confirm the new payout wallet', children: [
        html`<input type="hidden" name="payout_wallet" value=${change.payout_wallet ?? ''} />`,
        Button({ variant: 'primary', children: change.payout_wallet === null ? 'Confirm: no payout wallet' : 'Confirm the new wallet' }),
        html`<a href=${settings}>Cancel</a>`,
      ] })}
    </div>`,
  });
}
