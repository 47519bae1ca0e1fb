import type { VNode } from 'preact';
import { coinLabel } from '../../core/payment-request.ts';
import type { PayerView } from '../../resources/payer/view.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { PayerPage, brandFrame } from './frame.ts';
import { PaymentSummary } from './summary.ts';
import { TestControls } from './test-controls.ts';
import { WalletPanel, WalletTestButtons, type Wallet } from './wallet.ts';

export interface OfferedProvider {
  id: string;
  name: string;
  recommended: boolean;
}

/**
 * The second step, once the buyer started: the ways to pay as one list. Card providers as the
 * merchant's routing offers them (spec 2.2: best first, the first recommended), then paying from
 * the buyer's own wallet when crypto is allowed; in Test mode the outcomes money could have
 * instead, in the Test controls at the foot of the page.
 */
export function payChoosePage({ t, view, paths, providers, wallet, declined = false, timeLeft, delayed = [] }: {
  t: Messages;
  view: PayerView;
  paths: { provider: string; details: string; test: string; coin: (coin: string) => string };
  providers: OfferedProvider[];
  wallet: Wallet | null;
  /** Back here because the card provider declined the card. */
  declined?: boolean;
  timeLeft: string | null;
  /** Coins whose network's processor is not healthy now: the address stays valid, confirming may take longer. */
  delayed?: readonly string[];
}): VNode {
  const slowNetworks = [...new Set(delayed.map((coin) => coinLabel(coin).network))];
  return PayerPage({
    t, business: view.business.name, livemode: view.livemode, theme: view.checkout?.theme, ...brandFrame(view.business.id, view.brand),
    title: t.payTitle(view.description),
    summary: PaymentSummary({ t, view, timeLeft }),
    children: html`<div data-status=${view.status} data-status-url=${`/pay/${encodeURIComponent(view.id)}/status`}>
      ${declined && Notice({ tone: 'error', children: t.cardDeclined })}
      ${wallet?.kind === 'live' && slowNetworks.length > 0 && Notice({ tone: 'warning', children: html`<p class="confirmation-delayed">${t.confirmationDelayed(slowNetworks)}</p>` })}
      <h2 class="steps-heading">${t.howToPay}</h2>
      <section aria-labelledby="card-heading" class="way-to-pay">
        <h3 id="card-heading">${t.byCard}</h3>
        ${providers.length === 0
          ? html`<p>${wallet ? t.noProviders : t.noProvidersNoWallet}</p>`
          : html`<div><p class="muted">${t.byCardHint}</p>
              ${Form({ action: paths.provider, label: t.byCard, children: html`<ul class="pay-options">${providers.map((provider) => html`<li class=${provider.recommended ? 'recommended' : undefined}>
                ${Button({ variant: provider.recommended ? 'primary' : 'secondary', name: 'provider', value: provider.id,
                  children: [html`<span>${t.payWith(provider.name)}</span>`, provider.recommended && ' ', provider.recommended && html`<span class="badge">${t.recommended}</span>`] })}
              </li>`)}</ul>` })}</div>`}
      </section>
      ${wallet && WalletPanel({ t, wallet, coinHref: paths.coin, heading: providers.length > 0 ? t.orByWallet : t.byWallet })}
      <p><a href=${paths.details}>${t.changeDetails}</a></p>
      ${wallet?.kind === 'test' && TestControls({ t, hint: t.testControlsWallet, children: WalletTestButtons({ t, action: paths.test }) })}
    </div>`,
  });
}
