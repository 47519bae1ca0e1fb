import type { VNode } from 'preact';
import type { PayerView } from '../../resources/payer/view.ts';
import { html } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { moment, OrderSummary, price } from './frame.ts';

/**
 * What is being paid, to whom, and until when: the summary column of every payer page that takes
 * money. `timeLeft`: the time left in words as the page is made (the script keeps it ticking).
 */
export function PaymentSummary({ t, view, timeLeft }: { t: Messages; view: PayerView; timeLeft: string | null }): VNode {
  return html`<section class="payment-summary" aria-labelledby="summary-heading">
    <h1 id="summary-heading">${view.description}</h1>
    ${view.planLabel && html`<p class="plan-label">${view.planLabel}</p>`}
    ${view.customerName && html`<p class="muted">${t.forWhom(view.customerName)}</p>`}
    <p class="amount-due"><span class="muted">${t.amountDue}</span> <strong>${price(t, view.amountMinor, view.currency)}</strong></p>
    ${view.paysRest && view.order && html`<p class="pays-rest">${t.paysRestText(price(t, view.order.totalMinor - view.amountMinor, view.currency), price(t, view.order.totalMinor, view.currency))}</p>`}
    ${view.memo && html`<div class="memo"><h2>${t.noteFromMerchant(view.business.name)}</h2><p>${view.memo}</p></div>`}
    ${view.order && OrderSummary({ t, order: { ...view.order, items: view.order.items }, currency: view.currency })}
    ${view.status === 'open' && html`<p class="deadline muted">${t.expiresAt} ${moment(t, view.expiresAt)}</p>
      ${timeLeft !== null && html`<p class="time-left"><span class="muted">${t.expiresIn}:</span> <strong class="countdown" data-expires=${view.expiresAt.toISOString()}>${timeLeft}</strong></p>`}`}
  </section>`;
}
