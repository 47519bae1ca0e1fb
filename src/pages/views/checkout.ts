import type { VNode } from 'preact';
import { checkoutTakesCrypto, type CheckoutView } from '../../resources/payer/checkout.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { DetailsFields, type FieldErrors, type FormValues } from './details.ts';
import { PayerPage, price, brandFrame } from './frame.ts';

/** What a checkout sells: its name, description, price (a pricing table's are its plans') and how it can be paid. */
export function CheckoutSummary({ t, view, amount }: { t: Messages; view: CheckoutView; amount?: string }): VNode {
  const { checkout } = view;
  return html`<section class="payment-summary" aria-labelledby="checkout-heading">
    <h1 id="checkout-heading">${checkout.name}</h1>
    ${checkout.description && html`<p>${checkout.description}</p>`}
    ${amount !== undefined && html`<p class="amount-due"><strong>${amount}</strong></p>`}
    <p class="muted">${checkoutTakesCrypto(view) ? t.checkoutWaysCardOrWallet : t.checkoutWaysCard}</p>
  </section>`;
}

/** A checkout's hosted page (spec 2.2): what it sells and for how much, how it can be paid, in its theme, and the buyer's details. */
export function checkoutPage({ t, view, action, values, errors }: { t: Messages; view: CheckoutView; action: string; values: FormValues; errors: FieldErrors }): VNode {
  const { checkout, business } = view;
  const amount = price(t, checkout.amount_minor, checkout.currency);
  return PayerPage({
    t, business: business.name, livemode: checkout.livemode, theme: checkout.theme, ...brandFrame(business.id, view.brand),
    title: checkout.name,
    summary: CheckoutSummary({ t, view, amount }),
    children: html`<section aria-labelledby="details-heading">
      <h2 id="details-heading">${t.yourDetails}</h2>
      ${Object.keys(errors).length > 0 && Notice({ tone: 'error', children: t.fixErrors })}
      ${Form({ action, label: t.yourDetails, children: [
        DetailsFields({ t, collect: checkout.collect, values, errors }),
        Button({ variant: 'primary', children: checkout.button_label ?? t.payAmount(amount) }),
      ] })}
    </section>`,
  });
}

/** A deleted checkout (`active` false) takes no new buyers. */
export function checkoutClosedPage({ t, view }: { t: Messages; view: CheckoutView }): VNode {
  return PayerPage({
    t, business: view.business.name, livemode: view.checkout.livemode, theme: view.checkout.theme, ...brandFrame(view.business.id, view.brand),
    title: view.checkout.active ? t.checkoutPausedTitle : t.checkoutClosedTitle,
    // Deleted for good, or its account cannot take payments for now (paused, suspended, no payout wallet).
    children: html`<div><h1>${view.checkout.active ? t.checkoutPausedTitle : t.checkoutClosedTitle}</h1><p>${view.checkout.active ? t.checkoutPausedText(view.business.name) : t.checkoutClosedText(view.business.name)}</p></div>`,
  });
}
