import type { VNode } from 'preact';
import type { PayerView } from '../../resources/payer/view.ts';
import { html } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { moment, OrderSummary, price } from './frame.ts';

/** What is being paid, to whom, and until when: the head of every payer page that takes money. */
export function PaymentSummary({ t, view }: { t: Messages; view: PayerView }): VNode {
  return html`<section class="payment-summary" aria-labelledby="summary-heading">
    <h1 id="summary-heading">${view.description}</h1>
    ${view.customerName && html`<p class="muted">${t.forWhom(view.customerName)}</p>`}
    <p class="amount-due"><span class="muted">${t.amountDue}</span> <strong>${price(t, view.amountMinor, view.currency)}</strong></p>
    ${view.paysRest && view.order && html`<p class="pays-rest">${t.paysRestText(price(t, view.order.totalMinor - view.amountMinor, view.currency), price(t, view.order.totalMinor, view.currency))}</p>`}
    ${view.memo && html`<div class="memo"><h2>${t.noteFromMerchant(view.business.name)}</h2><p>${view.memo}</p></div>`}
    ${view.order && OrderSummary({ t, order: { ...view.order, items: view.order.items }, currency: view.currency })}
    ${view.status === 'open' && html`<p class="muted">${t.expiresAt} ${moment(t, view.expiresAt)}
      <span class="countdown" data-expires=${view.expiresAt.toISOString()} data-label=${t.expiresIn}></span></p>`}
  </section>`;
}
