import type { ComponentChildren, VNode } from 'preact';
import type { PaymentRest } from '../../resources/payments/remainder.ts';
import type { PaymentOut } from '../../resources/payments/schemas.ts';
import type { ForwardWait, PaymentTimeline, TimelineEvent, TimelineMail, TimelineNotice } from '../../resources/payments/timeline.ts';
import { Button, Form, html, Money, Notice, ShareAddress } from '../../ui/index.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { businessPath, objectPath } from '../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';
import { AskForRest, restCounts, RestSection } from './payment-rest.ts';
import { forwardedTotal, PaymentBooks } from './payment-books.ts';
import type { TransferOut } from '../../resources/ledger/schemas.ts';
import { coinAmount, DeliveryBadge, mailFate, MAIL_KIND_WORDS, PAYMENT_FACT_NAMES, PaymentBadge, sourceName, WAITING_TO_BE_FORWARDED } from '../wording.ts';

// One payment: its facts, what can be done with it, and its timeline (spec 6.2): every event
// and each delivery of it, and the processor's notices, the ones that did not match flagged.

/** Label and value pairs, the values as given (a dash for none). */
export function Facts({ label, facts }: { label: string; facts: ReadonlyArray<readonly [string, ComponentChildren]> }): VNode {
  return html`<dl class="facts" aria-label=${label}>${facts.map(([name, value]) => html`<div class="fact-row"><dt>${name}</dt><dd>${value ?? '–'}</dd></div>`)}</dl>`;
}

function EventItem({ event }: { event: TimelineEvent }): VNode {
  return html`<li>
    <p><strong><code>${event.type}</code></strong> ${at(event.created)} <span class="muted">${event.id}</span></p>
    ${event.deliveries.length === 0
      ? html`<p class="muted">Sent to no endpoint.</p>`
      : html`<ul>${event.deliveries.map((delivery) => html`<li>
          ${DeliveryBadge({ status: delivery.status })} to <code>${delivery.endpoint_url}</code>
          ${` · ${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}`}
          ${delivery.last_status !== null && ` · last answer ${delivery.last_status}`}
          ${delivery.last_error !== null && html`<span> · ${delivery.last_error}</span>`}
          ${delivery.next_attempt_at !== null && delivery.status === 'pending' && html`<span> · next try ${at(delivery.next_attempt_at)}</span>`}
        </li>`)}</ul>`}
  </li>`;
}

function NoticeItem({ notice }: { notice: TimelineNotice }): VNode {
  return html`<li>
    <p>${notice.flagged && html`<span class="flag">Did not match: </span>`}
      Processor notice ${notice.kind === null ? '' : html`<code>${notice.kind}</code>`} ${at(notice.received)}, ${notice.outcome}</p>
    ${notice.reason !== null && html`<p>${notice.reason}</p>`}
  </li>`;
}

function MailItem({ mail }: { mail: TimelineMail }): VNode {
  return html`<li><p>${MAIL_KIND_WORDS[mail.kind]} to <span class="argument">${mail.to}</span>, ${at(mail.created)}: ${mailFate(mail)}</p></li>`;
}

/**
 * What arrived: in the payment's currency as its buyer was told (a held payment), then in the coin
 * that came; and what is missing of a held underpayment.
 */
function arrival(payment: PaymentOut, rest: PaymentRest | undefined): Array<readonly [string, ComponentChildren]> {
  const coin = payment.value_coin === null ? null : coinAmount(payment.value_coin, payment.coin);
  const received = rest?.received ?? null;
  return [
    [PAYMENT_FACT_NAMES.arrived, received === null ? coin : html`<span>${Money({ amount: received, currency: payment.currency })}${coin && ` (${coin})`}</span>`],
    ['Missing', rest?.missing ? Money({ amount: rest.missing, currency: payment.currency }) : null],
  ];
}

/** What reached the merchant; while a forward failed or is late, that it waits and the operator knows (never a dash). */
function reachedYou(payment: PaymentOut, waits: readonly ForwardWait[], transfers: readonly TransferOut[]): ComponentChildren {
  // By the books: a held or accepted payment's money reached the merchant too, though spec 3 leaves merchant_received empty.
  const reached = forwardedTotal(transfers, payment.payout_wallet) ?? (payment.merchant_received === null ? null : coinAmount(payment.merchant_received, payment.coin));
  if (waits.length === 0) return reached;
  return html`<div class="forward-wait">
    ${reached && html`<p>${reached}</p>`}
    <p><strong>${WAITING_TO_BE_FORWARDED}.</strong></p>
    <ul class="muted">${waits.map((wait) => html`<li>${wait.state === 'failed' ? 'Could not be sent' : 'Not confirmed yet'} since ${at(wait.since)}${wait.reason && `: ${wait.reason}`}</li>`)}</ul>
  </div>`;
}

function facts(payment: PaymentOut, rest: PaymentRest | undefined, transfers: readonly TransferOut[], business: BusinessFrame['business'], mode: BusinessFrame['mode'], waits: readonly ForwardWait[]): Array<readonly [string, ComponentChildren]> {
  return [
    ['Status', PaymentBadge({ status: payment.status })],
    ['Amount', Money({ amount: payment.amount, currency: payment.currency })],
    [PAYMENT_FACT_NAMES.id, html`<code>${payment.id}</code>`],
    ['Source', sourceName(payment.source)],
    // Only a pricing table's payment has a plan: no empty row on the others.
    ...(payment.plan_label === null ? [] : [['Plan', payment.plan_label] as const]),
    ['Reference', payment.reference],
    ['Customer', payment.customer_id === null ? payment.customer_email : html`<span>${payment.customer_email ?? ''} <a href=${`${businessPath(business.id, 'payments', mode)}?customer_id=${encodeURIComponent(payment.customer_id)}`}>their payments</a></span>`],
    ['Order', payment.order_id === null ? null : html`<a href=${objectPath(business.id, 'orders', mode, payment.order_id)}>${payment.order_id}</a>`],
    ['Created', at(payment.created)],
    ['Started', at(payment.started_at)],
    [PAYMENT_FACT_NAMES.paid, at(payment.paid_at)],
    [PAYMENT_FACT_NAMES.expires, at(payment.expires_at)],
    [PAYMENT_FACT_NAMES.canceled, at(payment.canceled_at)],
    ['Paid with', payment.provider_name ?? (payment.method === 'crypto' && payment.started_at !== null ? 'own wallet' : null)],
    ...arrival(payment, rest),
    ['Reached you', reachedYou(payment, waits, transfers)],
    [PAYMENT_FACT_NAMES.heldBecause, payment.hold_reason],
    ['Deposit address', payment.deposit_address === null ? null : html`<code>${payment.deposit_address}</code>`],
    ['Fee', `${(payment.fee_bps / 100).toFixed(2)}%`],
  ];
}

/** Whether the person may accept this payment now (the action decides anyway): not while its rest was asked for. */
export function acceptable(payment: PaymentOut, role: BusinessFrame['role'], rest?: PaymentTimeline['rest']): boolean {
  return payment.status === 'held' && payment.hold_acceptable && role !== undefined && atLeast(role, 'developer') && !restCounts(rest);
}

export function paymentPage({ session, business, mode, role, timeline, transfers = [], accepted, restAsked = false }: BusinessFrame & { timeline: PaymentTimeline; transfers?: readonly TransferOut[]; accepted?: boolean; restAsked?: boolean }): VNode {
  const { payment, events, notices, mail, rest, waitingToForward } = timeline;
  return DashboardPage({
    title: `Payment ${payment.id}`,
    session,
    frame: { business, mode, role },
    area: 'payments',
    children: html`<div>
      <p><a href=${businessPath(business.id, 'payments', mode)}>All payments</a></p>
      <h1>${payment.description}</h1>
      ${accepted && Notice({ tone: 'success', children: 'Accepted: the payment is paid, and payment.paid was sent.' })}
      <div class="held-actions">
        ${acceptable(payment, role, rest) && html`<a class="button primary" href=${objectPath(business.id, 'payments', mode, payment.id, '/accept')}>Accept this payment</a>`}
        ${AskForRest({ payment, rest, frame: { business, mode, role } })}
      </div>
      ${RestSection({ rest, frame: { business, mode, role }, asked: restAsked })}
      ${rest?.remainder && html`<h2>This payment</h2>`}
      ${Facts({ label: 'The payment', facts: facts(payment, rest, transfers, business, mode, waitingToForward) })}
      ${(payment.livemode || transfers.length > 0) && PaymentBooks({ transfers })}
      <h2>Payer page</h2>
      ${ShareAddress({ name: 'payer_url', label: 'Payer address (where the payer pays and sees the payment)', url: payment.url, what: 'payer address', openLabel: 'Open the payer page' })}
      <h2>Timeline</h2>
      ${events.length === 0 ? html`<p class="muted">No events yet.</p>` : html`<ol class="timeline" aria-label="Events">${events.map((event) => html`<${EventItem} event=${event} />`)}</ol>`}
      ${notices.length > 0 && html`<section aria-labelledby="notices-heading">
        <h2 id="notices-heading">Processor notices</h2>
        <ol class="timeline" aria-label="Processor notices">${notices.map((notice) => html`<${NoticeItem} notice=${notice} />`)}</ol>
      </section>`}
      ${mail.length > 0 && html`<section aria-labelledby="mail-heading">
        <h2 id="mail-heading">Mail</h2>
        <ul class="timeline" aria-label="Mail about this payment">${mail.map((each) => html`<${MailItem} mail=${each} />`)}</ul>
      </section>`}
    </div>`,
  });
}

/** The confirmation step before a held payment is accepted as paid. */
export function paymentAcceptPage({ session, business, mode, role, payment, rest }: BusinessFrame & { payment: PaymentOut; rest?: PaymentRest | undefined }): VNode {
  return DashboardPage({
    title: `Accept payment ${payment.id}`,
    session,
    frame: { business, mode, role },
    area: 'payments',
    children: html`<div>
      <h1>Accept this held payment?</h1>
      ${Facts({ label: 'The payment', facts: [
        ['Description', payment.description],
        ['Amount', Money({ amount: payment.amount, currency: payment.currency })],
        ...arrival(payment, rest),
        ['Held because', payment.hold_reason],
      ] })}
      <p>Accepting marks it paid as it is and sends <code>payment.paid</code> to your endpoints, so your systems fulfil the order. It cannot be undone.</p>
      ${Form({ action: objectPath(business.id, 'payments', mode, payment.id, '/accept'), label: 'Accept the payment', children: [
        Button({ variant: 'primary', children: 'Accept as paid' }),
        html`<a href=${objectPath(business.id, 'payments', mode, payment.id)}>Cancel</a>`,
      ] })}
    </div>`,
  });
}
