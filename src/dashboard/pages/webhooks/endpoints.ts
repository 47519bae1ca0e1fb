import type { VNode } from 'preact';
import { MAX_ENDPOINTS_PER_MODE } from '../../../resources/webhook-endpoints/create.ts';
import type { EndpointSummary } from '../../../resources/webhook-endpoints/overview.ts';
import { html, Table } from '../../../ui/index.ts';
import { businessPath, objectPath } from '../../paths.ts';
import { DashboardPage, MODE_NAMES, unixTime as at, type BusinessFrame } from '../frame.ts';
import { AddedBy, eventsText, managesEndpoints } from './facts.ts';

/** The endpoints of a mode (who added each), adding one, and the ones removed in the last 30 days with their history. */
export function webhooksPage({ session, business, mode, role, endpoints, removed }: BusinessFrame & { endpoints: EndpointSummary[]; removed: EndpointSummary[] }): VNode {
  const path = businessPath(business.id, 'webhooks', mode);
  const address = (endpoint: EndpointSummary) => html`<a href=${objectPath(business.id, 'webhooks', mode, endpoint.id)}>${endpoint.url}</a>`;
  const rows = endpoints.map((endpoint) => [address(endpoint), endpoint.description ?? '–', eventsText(endpoint.events), AddedBy({ addedBy: endpoint.added_by }), at(endpoint.created)]);
  const removedRows = removed.map((endpoint) => [address(endpoint), endpoint.description ?? '–', AddedBy({ addedBy: endpoint.added_by }), at(endpoint.removed)]);
  return DashboardPage({
    title: 'Webhooks',
    session,
    frame: { business, mode, role },
    area: 'webhooks',
    children: html`<div>
      <h1>Webhooks</h1>
      <p>${MODE_NAMES[mode]} payment events are sent to these addresses, signed with each endpoint's secret (<code>Service-Signature</code>). Open one for its delivery log.</p>
      ${managesEndpoints(role) && (endpoints.length < MAX_ENDPOINTS_PER_MODE
        ? html`<p><a class="button primary" href=${`${path}/new`}>Add an endpoint</a></p>`
        : html`<p class="muted">This mode has ${MAX_ENDPOINTS_PER_MODE} endpoints, the most it can have: remove one to add another.</p>`)}
      ${Table({ label: 'Endpoints', columns: ['Address', 'Description', 'Events', 'Added', 'Created'], rows, empty: `No ${MODE_NAMES[mode]} endpoints yet.` })}
      ${removed.length > 0 && html`<section aria-labelledby="removed-heading">
        <h2 id="removed-heading">Removed in the last 30 days</h2>
        <p>Nothing is sent to them; their delivery history stays readable for 30 days after removal.</p>
        ${Table({ label: 'Removed endpoints', columns: ['Address', 'Description', 'Added', 'Removed'], rows: removedRows, empty: '' })}
      </section>`}
    </div>`,
  });
}
