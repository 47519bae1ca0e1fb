import type { VNode } from 'preact';
import type { TrackingView } from '../../resources/payer/view.ts';
import { html } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { moment, PayerPage, price, brandFrame } from './frame.ts';

/**
 * A payment link's tracking page (spec 2.1 tracking_url): status, amount, what it is for and its
 * times. Never the payer's email, name, phone or addresses: anyone the link is shown to may read it.
 */
export function trackPage({ t, view, statusUrl }: { t: Messages; view: TrackingView; statusUrl: string }): VNode {
  const status = view.canceledAt ? t.canceledStatus : t.statuses[view.status] ?? view.status;
  return PayerPage({
    t, business: view.business.name, livemode: view.livemode, ...brandFrame(view.business.id, view.brand),
    title: t.trackTitle,
    children: html`<div data-status=${view.status} data-status-url=${statusUrl}>
      <h1>${t.trackTitle}</h1>
      <dl class="receipt">
        <div><dt>${t.status}</dt><dd><strong>${status}</strong></dd></div>
        <div><dt>${t.description}</dt><dd>${view.description}</dd></div>
        <div><dt>${t.amount}</dt><dd>${price(t, view.amountMinor, view.currency)}</dd></div>
        ${view.status === 'held' && view.receivedMinor !== null && view.receivedMinor > 0 && html`<div><dt>${t.received}</dt><dd>${price(t, view.receivedMinor, view.currency)}</dd></div>`}
        <div><dt>${t.created}</dt><dd>${moment(t, view.createdAt)}</dd></div>
        ${view.paidAt && html`<div><dt>${t.paidOn}</dt><dd>${moment(t, view.paidAt)}</dd></div>`}
        ${view.canceledAt && html`<div><dt>${t.canceledOn}</dt><dd>${moment(t, view.canceledAt)}</dd></div>`}
        ${(view.status === 'open' || view.status === 'pending') && !view.canceledAt && html`<div><dt>${t.expiresAt}</dt><dd>${moment(t, view.expiresAt)}</dd></div>`}
      </dl>
    </div>`,
  });
}
