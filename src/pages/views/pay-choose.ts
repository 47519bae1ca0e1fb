import type { VNode } from 'preact';
import type { PayerView } from '../../resources/payer/view.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { PayerPage, brandFrame } from './frame.ts';
import { PaymentSummary } from './summary.ts';
import { WalletPanel, type Wallet } from './wallet.ts';

export interface OfferedProvider {
  id: string;
  name: string;
  recommended: boolean;
}

/**
 * The second step, once the buyer started: the ways to pay. Card providers as the merchant's
 * routing offers them (best first), and paying from the buyer's own wallet when crypto is
 * allowed (in Test mode, the outcomes money could have instead).
 */
export function payChoosePage({ t, view, paths, providers, wallet, declined = false }: {
  t: Messages;
  view: PayerView;
  paths: { provider: string; details: string; test: string; coin: (coin: string) => string };
  providers: OfferedProvider[];
  wallet: Wallet | null;
  /** Back here because the card provider declined the card. */
  declined?: boolean;
}): VNode {
  return PayerPage({
    t, business: view.business.name, livemode: view.livemode, theme: view.checkout?.theme, ...brandFrame(view.business.id, view.brand),
    title: t.payTitle(view.description),
    children: html`<div data-status=${view.status} data-status-url=${`/pay/${encodeURIComponent(view.id)}/status`}>
      ${PaymentSummary({ t, view })}
      ${declined && Notice({ tone: 'error', children: t.cardDeclined })}
      <h2>${t.howToPay}</h2>
      <section aria-labelledby="card-heading" class="way-to-pay">
        <h3 id="card-heading">${t.byCard}</h3>
        ${providers.length === 0
          ? html`<p>${wallet ? t.noProviders : t.noProvidersNoWallet}</p>`
          : html`<div><p class="muted">${t.byCardHint}</p>
              ${Form({ action: paths.provider, label: t.byCard, children: providers.map((provider) => Button({
                variant: provider.recommended ? 'primary' : 'secondary', name: 'provider', value: provider.id,
                children: provider.recommended ? `${t.payWith(provider.name)} (${t.recommended})` : t.payWith(provider.name),
              })) })}</div>`}
      </section>
      ${wallet && WalletPanel({ t, wallet, testAction: paths.test, coinHref: paths.coin })}
      <p><a href=${paths.details}>${t.changeDetails}</a></p>
    </div>`,
  });
}
