import type { VNode } from 'preact';
import type { PayerView } from '../../resources/payer/view.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { moment, PayerPage, price, brandFrame } from './frame.ts';
import { PaymentSummary } from './summary.ts';
import { TestControls } from './test-controls.ts';

// Where a payment ends up: paid (a receipt, then on to the merchant), held (what happens next, in
// plain words), failed, or closed (expired, or canceled by the merchant).

function frame(t: Messages, view: PayerView) {
  return { t, business: view.business.name, livemode: view.livemode, theme: view.checkout?.theme, ...brandFrame(view.business.id, view.brand) };
}

/** The receipt; with `next`, the merchant's success address (the script goes there after a moment). */
export function payPaidPage({ t, view, next }: { t: Messages; view: PayerView; next: string | null }): VNode {
  return PayerPage({
    ...frame(t, view),
    title: t.paidTitle,
    children: html`<div data-status=${view.status} data-next=${next ?? undefined}>
      ${Notice({ tone: 'success', children: html`<div><h1>${t.paidTitle}</h1><p>${t.paidText(view.business.name)}</p></div>` })}
      <section aria-labelledby="receipt-heading" class="receipt">
        <h2 id="receipt-heading">${t.receipt}</h2>
        <dl>
          <div><dt>${t.description}</dt><dd>${view.description}</dd></div>
          <div><dt>${t.amount}</dt><dd>${price(t, view.amountMinor, view.currency)}</dd></div>
          ${view.paidAt && html`<div><dt>${t.paidOn}</dt><dd>${moment(t, view.paidAt)}</dd></div>`}
          ${view.providerName && html`<div><dt>${t.paidWith}</dt><dd>${view.providerName}</dd></div>`}
          <div><dt>${t.paymentId}</dt><dd><code>${view.id}</code></dd></div>
        </dl>
      </section>
      ${next && html`<p><a class="button primary" href=${next}>${t.continueToMerchant(view.business.name)}</a> <span class="muted going-on" hidden>${t.goingOn}</span></p>`}
    </div>`,
  });
}

/** Live, and nothing could receive the buyer's money now (no network watched, no provider with keys): words instead of a form or an address. */
export function payUnavailablePage({ t, view }: { t: Messages; view: PayerView }): VNode {
  return PayerPage({
    ...frame(t, view),
    title: t.unavailableTitle,
    // No time left shown: nothing can be paid now anyway.
    summary: PaymentSummary({ t, view, timeLeft: null }),
    children: html`<div data-status=${view.status}>
      ${Notice({ tone: 'error', children: html`<div><h2>${t.unavailableTitle}</h2><p>${t.unavailableText}</p></div>` })}
    </div>`,
  });
}

export function payHeldPage({ t, view }: { t: Messages; view: PayerView }): VNode {
  return PayerPage({
    ...frame(t, view),
    title: t.heldTitle,
    // Followed: the merchant may accept it, and the page then shows the receipt.
    children: html`<div data-status=${view.status} data-status-url=${`/pay/${encodeURIComponent(view.id)}/status`}>
      ${Notice({ tone: 'warning', children: html`<div><h1>${t.heldTitle}</h1><p>${t.heldText(view.business.name)}</p></div>` })}
      <p><span class="muted">${t.paymentId}</span> <code>${view.id}</code></p>
    </div>`,
  });
}

export function payFailedPage({ t, view }: { t: Messages; view: PayerView }): VNode {
  return PayerPage({
    ...frame(t, view),
    title: t.failedTitle,
    children: html`<div data-status=${view.status}>
      ${Notice({ tone: 'error', children: html`<div><h1>${t.failedTitle}</h1><p>${t.failedText(view.business.name)}</p></div>` })}
    </div>`,
  });
}

/**
 * Expired, or canceled by the merchant: no longer takes payments (money sent anyway still shows
 * here once it arrives). With `testAction`, Test mode's panel plays out such money arriving late.
 */
export function payClosedPage({ t, view, testAction = null }: { t: Messages; view: PayerView; testAction?: string | null }): VNode {
  return PayerPage({
    ...frame(t, view),
    title: t.closedTitle,
    children: html`<div data-status=${view.status} data-status-url=${`/pay/${encodeURIComponent(view.id)}/status`}>
      <h1>${t.closedTitle}</h1>
      <p>${view.canceledAt ? t.canceledText(view.business.name) : t.expiredText}</p>
      <p>${t.askMerchant(view.business.name)}</p>
      ${testAction && TestControls({ t, hint: t.testControlsLate,
        children: Form({ action: testAction, label: t.byWallet, children: Button({ name: 'outcome', value: 'late', children: view.canceledAt ? t.testLateCanceled : t.testLate }) }) })}
    </div>`,
  });
}
