import type { VNode } from 'preact';
import type { PaymentRest } from '../../resources/payments/remainder.ts';
import type { PaymentOut } from '../../resources/payments/schemas.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { Button, Form, html, Money, Notice, ShareAddress } from '../../ui/index.ts';
import { objectPath } from '../paths.ts';
import type { BusinessFrame } from './frame.ts';
import { PaymentStatus } from './payments.ts';

// The rest of a held underpayment on its payment's page (docs/remainders.md): the button that
// asks the buyer for it, then the remainder's payer address to send them; on a remainder's own
// page, the held payment it completes.

const COUNTING = ['open', 'pending', 'paid'];

/** Whether a remainder was asked for and still counts, so the first payment is not to be accepted too. */
export function restCounts(rest: PaymentRest | undefined): boolean {
  return rest?.remainder != null && COUNTING.includes(rest.remainder.status);
}

/** "Ask for the rest", beside Accept, for who may accept (the action decides anyway). */
export function AskForRest({ payment, rest, frame }: { payment: PaymentOut; rest: PaymentRest | undefined; frame: Omit<BusinessFrame, 'session'> }): VNode | null {
  if (!rest?.askable || rest.missing === null || frame.role === undefined || !atLeast(frame.role, 'developer')) return null;
  return html`${Form({
    action: objectPath(frame.business.id, 'payments', frame.mode, payment.id, '/remainder'),
    label: 'Ask for the rest',
    children: Button({ children: html`Ask for the rest (${Money({ amount: rest.missing, currency: payment.currency })})` }),
  })}<p class="muted rest-hint">Asking for the rest makes a new payment on the same order for what is missing; you send the buyer its address.</p>`;
}

/** The remainder asked for (its status, amount and the address the buyer pays it at), or the payment a remainder completes. */
export function RestSection({ rest, frame, asked }: { rest: PaymentRest | undefined; frame: Omit<BusinessFrame, 'session'>; asked: boolean }): VNode | null {
  const { business, mode } = frame;
  if (rest?.of) {
    return html`<p class="rest-of">The rest of the held payment <a href=${objectPath(business.id, 'payments', mode, rest.of)}>${rest.of}</a>.</p>`;
  }
  const remainder = rest?.remainder;
  if (!remainder) return null;
  return html`<section aria-labelledby="rest-heading" class="rest">
    <h2 id="rest-heading">The rest of this payment</h2>
    ${asked && Notice({ tone: 'success', children: 'Asked for the rest. Send the buyer the address below; their held payment\'s page offers it too.' })}
    <dl class="facts" aria-label="The rest">
      <div class="fact-row"><dt>Status</dt><dd>${PaymentStatus({ status: remainder.status })}</dd></div>
      <div class="fact-row"><dt>Amount</dt><dd>${Money({ amount: remainder.amount, currency: remainder.currency })}</dd></div>
      <div class="fact-row"><dt>Payment</dt><dd><a href=${objectPath(business.id, 'payments', mode, remainder.id)}>${remainder.id}</a></dd></div>
    </dl>
    ${COUNTING.slice(0, 2).includes(remainder.status)
      ? ShareAddress({ name: 'rest_url', label: 'Address the buyer pays the rest at', url: remainder.url, what: 'address of the rest', openLabel: 'Open its payer page' })
      : remainder.status !== 'paid' && html`<p class="muted">It was not paid in time; you can ask for the rest again.</p>`}
  </section>`;
}
