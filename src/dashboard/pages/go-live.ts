import type { VNode } from 'preact';
import type { GoLiveChecklist, GoLiveNetwork } from '../../resources/businesses/go-live.ts';
import { html, Time } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';

// The go-live checklist on the Live settings page: what Live needs before a buyer can pay, each
// item done or to do (said in words, not only by colour), what to do next and where.

interface Item {
  done: boolean;
  title: string;
  text: VNode | string;
}

/** Whether Live buyers can pay now: a payout wallet, and a network watched by a healthy processor. */
export function liveTakesPayments(checklist: GoLiveChecklist): boolean {
  return checklist.payoutWallet !== null && checklist.networks.some((network) => network.served);
}

function networkWords(network: GoLiveNetwork): string {
  if (!network.served) return network.healthy ? 'no recent report' : 'not healthy';
  return network.forwardsHappen ? 'watched and healthy' : 'watched, but its payments are not forwarded now; the service\'s operator has been told';
}

function networksItem(checklist: GoLiveChecklist): Item {
  const served = checklist.networks.filter((network) => network.served);
  // Buyers can still pay on a network whose forwards fail (the money waits at its deposit address), but it is not done.
  const stuck = served.filter((network) => !network.forwardsHappen);
  const reports = checklist.networks.map((network) => {
    const problem = network.served && !network.forwardsHappen ? network.forwardingProblem : network.problem;
    return html`<li>
      ${network.network} (${network.tokens.join(', ') || 'no coin offered'}): ${networkWords(network)}${problem ? `, "${problem}"` : ''}; last reported ${Time({ at: network.reportedAt })}.
    </li>`;
  });
  return {
    done: served.length > 0 && stuck.length === 0,
    title: 'Networks watched by a healthy processor',
    text: html`<div>
      ${served.length > 0
        ? html`<p>Buyers are offered ${served.map((network) => network.network).join(', ')}.</p>`
        : html`<p>No network is watched by a healthy processor now, so Live buyers are told you can't take payments. The service's operator runs the processor (<code>npm start -- --role processor</code>) with an RPC URL per network, such as <code>POLYGON_RPC_URL</code>; a network counts once it reported healthy within ${checklist.freshSeconds} seconds.</p>`}
      ${stuck.length > 0 && html`<p>Payments on ${stuck.map((network) => network.network).join(', ')} are waiting to be forwarded to your payout wallet: the service's operator has been told, and the money stays at each payment's deposit address until then.</p>`}
      ${reports.length > 0 ? html`<ul>${reports}</ul>` : html`<p class="muted">No processor has reported yet.</p>`}
    </div>`,
  };
}

export function GoLiveChecklistSection({ checklist, businessId }: { checklist: GoLiveChecklist; businessId: string }): VNode {
  const settings = businessPath(businessId, 'settings', 'live');
  const items: Item[] = [
    {
      done: checklist.payoutWallet !== null,
      title: 'Payout wallet',
      text: checklist.payoutWallet !== null
        ? html`<p>Set: money is forwarded to <code>${checklist.payoutWallet}</code>.</p>`
        : html`<p>Not set: Live payments cannot start without one. <a href=${`${settings}#wallet-heading`}>Set the payout wallet</a>.</p>`,
    },
    networksItem(checklist),
    {
      done: checklist.providers.length > 0,
      title: 'Card providers',
      text: checklist.providers.length > 0
        ? html`<p>Buyers can pay by card through ${checklist.providers.join(', ')} (while Polygon is watched: they deliver USDC there). Others are never offered.</p>`
        : html`<p>None has its keys here, so Live buyers can pay only from their own wallet. The service's operator sets a provider's keys (such as <code>MOONPAY_API_KEY</code> and <code>MOONPAY_SECRET_KEY</code>). Checkouts fixed to a provider without keys are refused: <a href=${businessPath(businessId, 'checkouts', 'live')}>review your Live checkouts</a>.</p>`,
    },
    {
      done: checklist.liveEndpoints > 0,
      title: 'A Live webhook endpoint',
      text: checklist.liveEndpoints > 0
        ? html`<p>${checklist.liveEndpoints === 1 ? 'One endpoint receives' : `${checklist.liveEndpoints} endpoints receive`} Live events. <a href=${businessPath(businessId, 'webhooks', 'live')}>Live webhooks</a>.</p>`
        : html`<p>None yet: your systems would not hear of Live payments. <a href=${businessPath(businessId, 'webhooks', 'live')}>Add a Live webhook endpoint</a>.</p>`,
    },
  ];
  const left = items.filter((item) => !item.done).length;
  return html`<section aria-labelledby="go-live-heading">
    <h2 id="go-live-heading">Go-live checklist</h2>
    <p>${left === 0 ? 'Everything Live needs is in place.' : `${left} of ${items.length} still to do.`}</p>
    <ul class="checklist">
      ${items.map((item) => html`<li class=${item.done ? 'done' : 'to-do'}>
        <h3><span class="checklist-state">${item.done ? 'Done' : 'To do'}:</span> ${item.title}</h3>
        ${item.text}
      </li>`)}
    </ul>
  </section>`;
}
