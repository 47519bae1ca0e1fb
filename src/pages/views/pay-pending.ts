import type { VNode } from 'preact';
import type { PayerView } from '../../resources/payer/view.ts';
import { html } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { PayerPage, brandFrame } from './frame.ts';
import { PaymentSummary } from './summary.ts';
import { TestControls } from './test-controls.ts';

/**
 * The buyer went to a card provider: the page waits for the money (and follows it), links back
 * to the Test provider in Test mode, and lets the buyer choose another way to pay.
 */
export function payPendingPage({ t, view, paths, timeLeft }: { t: Messages; view: PayerView; paths: { self: string; choose: string; testProvider: string | null }; timeLeft: string | null }): VNode {
  const provider = view.providerName ?? view.provider ?? '';
  return PayerPage({
    t, business: view.business.name, livemode: view.livemode, theme: view.checkout?.theme, ...brandFrame(view.business.id, view.brand),
    title: t.waitingProvider(provider),
    summary: PaymentSummary({ t, view, timeLeft }),
    children: html`<div data-status=${view.status} data-status-url=${`/pay/${encodeURIComponent(view.id)}/status`}>
      <h2>${t.waitingProvider(provider)}</h2>
      <p>${t.waitingProviderText(provider)}</p>
      <p><a href=${paths.self}>${t.refresh}</a></p>
      <p><a href=${paths.choose}>${t.chooseAgain}</a></p>
      ${paths.testProvider && TestControls({ t, hint: t.testControlsProvider, children: html`<p><a class="button secondary" href=${paths.testProvider}>${t.testProviderTitle(provider)}</a></p>` })}
    </div>`,
  });
}
