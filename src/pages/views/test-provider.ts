import type { VNode } from 'preact';
import type { PayerView } from '../../resources/payer/view.ts';
import { Button, Form, html } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { brandFrame, PayerPage, price } from './frame.ts';
import { TestControls } from './test-controls.ts';

/**
 * Test mode's stand-in for a card provider's hosted page: the outcomes a provider can produce
 * (spec 3 rule 4: a declined card leaves the payment open and sends nothing).
 */
export function testProviderPage({ t, view, provider, action, back }: { t: Messages; view: PayerView; provider: { id: string; name: string }; action: string; back: string }): VNode {
  return PayerPage({
    t, business: view.business.name, livemode: view.livemode, ...brandFrame(view.business.id, view.brand),
    title: t.testProviderTitle(provider.name),
    children: html`<div>
      <h1>${t.testProviderTitle(provider.name)}</h1>
      <p>${view.description}: <strong>${price(t, view.amountMinor, view.currency)}</strong></p>
      <p>${t.testProviderText}</p>
      ${TestControls({ t, hint: t.testControlsProvider, children: Form({ action, label: t.testProviderTitle(provider.name), children: [
        Button({ name: 'outcome', value: 'paid', children: t.testProviderPaid }),
        Button({ name: 'outcome', value: 'underpaid', children: t.testProviderUnderpaid }),
        Button({ name: 'outcome', value: 'declined', children: t.testProviderDeclined }),
      ] }) })}
      <p><a href=${back}>${t.backToPayment}</a></p>
    </div>`,
  });
}
