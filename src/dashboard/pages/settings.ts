import type { VNode } from 'preact';
import type { ActivityEntry } from '../../audit/list.ts';
import type { BusinessState } from '../../tenancy/businesses.ts';
import { INTEGRATIONS } from '../../tenancy/businesses.ts';
import { Button, CheckboxGroup, Form, html, Notice, Table, TextField } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';
import type { GoLiveChecklist } from '../../resources/businesses/go-live.ts';
import { GoLiveChecklistSection, liveTakesPayments } from './go-live.ts';
import type { BrandOut } from '../../resources/brand/read.ts';
import { BrandSection } from './settings-brand.ts';
import { ActivityWhat } from '../activity-wording.ts';

// The account: where money goes, whether it takes payments, crypto, the enabled integrations
// (owners change them; the API enforces them), and the account's activity naming who did what.

const INTEGRATION_NAMES: Record<(typeof INTEGRATIONS)[number], string> = { api: 'The API (secret keys and agents)', payment_links: 'Payment links', checkouts: 'Checkouts' };

/** Whether the account takes payments, truly: paused; or in Live, what keeps buyers from paying. */
function takingPayments(account: BusinessState, checklist: GoLiveChecklist | undefined): string {
  if (account.commerce !== 'active') return 'Paused: buyers cannot start payments, and nothing new can be sold.';
  if (checklist && checklist.payoutWallet === null) return 'Live buyers cannot pay yet: the account has no payout wallet (see the go-live checklist).';
  if (checklist && !liveTakesPayments(checklist)) {
    return 'Live buyers cannot pay now: no network is watched by a healthy payment processor, so they are told you can\'t take payments (see the go-live checklist).';
  }
  return 'The account takes payments.';
}

export function settingsPage({ session, business, mode, role, account, activity, checklist, notice, walletChanged, error, brand, typedColor }: BusinessFrame & {
  account: BusinessState;
  /** The logo and colour of the payer pages (BrandSection); none when not given. */
  brand?: BrandOut;
  /** The brand colour as typed, when it was refused. */
  typedColor?: string | undefined;
  /** Live only: what Live needs before buyers can pay. */
  checklist?: GoLiveChecklist;
  activity: { entries: ActivityEntry[]; next: number | null };
  notice?: boolean;
  /** The payout wallet was just changed (after its confirmation). */
  walletChanged?: boolean;
  error?: { field: string | undefined; message: string };
}): VNode {
  const path = businessPath(business.id, 'settings', mode);
  const owner = role === 'owner';
  const disabled = new Set(account.disabled_integrations);
  const rows = activity.entries.map((entry) => [at(entry.created), entry.by.name, ActivityWhat({ entry }), entry.subject_id ? html`<code>${entry.subject_id}</code>` : '–']);
  return DashboardPage({
    title: 'Settings',
    session,
    frame: { business, mode, role },
    area: 'settings',
    children: html`<div>
      <h1>Settings</h1>
      ${notice && Notice({ tone: 'success', children: 'Saved.' })}
      ${walletChanged && Notice({ tone: 'success', children: 'The payout wallet was changed. Every owner was emailed about it.' })}
      ${error && Notice({ tone: 'error', children: error.message })}
      ${!owner && html`<p class="muted">Only the account's owners change its settings.</p>`}
      ${checklist && GoLiveChecklistSection({ checklist, businessId: business.id })}
      <section aria-labelledby="payments-heading">
        <h2 id="payments-heading">Taking payments</h2>
        <p>${takingPayments(account, checklist)}</p>
        ${owner && Form({ action: path, label: 'Taking payments', children: Button({ name: 'commerce', value: account.commerce === 'active' ? 'paused' : 'active', children: account.commerce === 'active' ? 'Pause taking payments' : 'Resume taking payments' }) })}
      </section>
      <section aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">Payout wallet</h2>
        ${owner
          ? Form({ action: path, label: 'Payout wallet', children: [
              TextField({ name: 'payout_wallet', label: 'Wallet address', hint: 'Where your money goes (a 0x address on Polygon); Live payments need one. Leave empty for none. You confirm a new address on the next page.', value: account.payout_wallet ?? '', maxLength: 42, error: error?.field === 'payout_wallet' ? error.message : undefined }),
              Button({ children: 'Review new wallet' }),
            ] })
          : html`<p><code>${account.payout_wallet ?? 'none'}</code></p>`}
      </section>
      <section aria-labelledby="crypto-heading">
        <h2 id="crypto-heading">Stablecoin payments</h2>
        <p>${account.crypto_enabled ? 'Buyers may pay from their own wallet.' : 'Buyers pay by card provider only.'}</p>
        ${owner && Form({ action: path, label: 'Stablecoin payments', children: Button({ name: 'crypto_enabled', value: account.crypto_enabled ? 'off' : 'on', children: account.crypto_enabled ? 'Turn stablecoin payments off' : 'Turn stablecoin payments on' }) })}
      </section>
      <section aria-labelledby="integrations-heading">
        <h2 id="integrations-heading">Integrations</h2>
        ${owner
          ? Form({ action: path, label: 'Integrations', children: [
              html`<input type="hidden" name="integrations" value="set" />`,
              CheckboxGroup({ id: 'field-integrations', legend: 'Enabled', boxes: INTEGRATIONS.map((name) => ({ name: `integration_${name}`, label: INTEGRATION_NAMES[name], checked: !disabled.has(name) })) }),
              Button({ children: 'Save integrations' }),
            ] })
          : html`<ul>${INTEGRATIONS.map((name) => html`<li>${INTEGRATION_NAMES[name]}: ${disabled.has(name) ? 'off' : 'on'}</li>`)}</ul>`}
      </section>
      ${BrandSection({ brand: brand ?? { color: null, logo: null }, owner, paths: { settings: path, logo: `${path}/logo` }, typedColor, error })}
      <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">Activity</h2>
        ${Table({ label: 'Activity', columns: ['When', 'Who', 'What', 'On'], rows, empty: 'Nothing yet.' })}
        ${activity.next !== null && html`<nav class="pager" aria-label="Pages"><a href=${`${path}?before=${activity.next}`} rel="next">Older</a></nav>`}
      </section>
    </div>`,
  });
}
