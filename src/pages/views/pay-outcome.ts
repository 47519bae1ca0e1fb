import type { VNode } from 'preact';
import { toMicros } from '../../resources/orders/derive.ts';
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
          <div><dt>${t.description}</dt><dd>${view.description}${view.planLabel && ` (${view.planLabel})`}</dd></div>
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
  const rest = view.remainder;
  const offered = rest !== null && (rest.status === 'open' || rest.status === 'pending');
  // The rest was paid: the payment stays held (docs/remainders.md), but the buyer is done.
  const complete = rest?.status === 'paid';
  const title = complete ? t.paidTitle : t.heldTitle;
  return PayerPage({
    ...frame(t, view),
    title,
    // Followed: the merchant may accept it, and the page then shows the receipt.
    children: html`<div data-status=${view.status} data-status-url=${`/pay/${encodeURIComponent(view.id)}/status`}>
      ${Notice({ tone: complete ? 'success' : 'warning', children: html`<div><h1>${title}</h1>
        ${HeldAmounts({ t, view })}
        <p>${offered ? t.restAskedText(view.business.name) : complete ? t.restPaidText(view.business.name) : t.heldText(view.business.name)}</p>
      </div>` })}
      ${offered && html`<p><a class="button primary" href=${`/pay/${encodeURIComponent(rest.id)}`}>${t.payRemaining(price(t, rest.amountMinor, view.currency))}</a></p>`}
      <p><span class="muted">${t.paymentId}</span> <code>${view.id}</code></p>
    </div>`,
  });
}

/**
 * What arrived at a held payment, in plain words: of an underpayment, how much of the amount and
 * what is missing (in the payment's currency, the buyer's terms); of more than was due, both.
 */
function HeldAmounts({ t, view }: { t: Messages; view: PayerView }): VNode | null {
  const received = view.receivedMinor ?? 0;
  if (received > 0 && received < view.amountMinor) {
    return html`<p class="held-amounts">${t.heldReceived(price(t, received, view.currency), price(t, view.amountMinor, view.currency), price(t, view.amountMinor - received, view.currency))}</p>`;
  }
  // More than due arrived (in a dollar coin: compared with the USD value locked at start).
  const arrivedMinor = view.valueCoin === null ? 0 : Number(toMicros(view.valueCoin) / 10_000n);
  if (view.usdValueMinor !== null && arrivedMinor > view.usdValueMinor) {
    return html`<p class="held-amounts">${t.heldReceivedMore(price(t, arrivedMinor, 'USD'), price(t, view.usdValueMinor, 'USD'))}</p>`;
  }
  return null;
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
