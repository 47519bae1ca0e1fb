import type { VNode } from 'preact';
import type { WebhookEndpointOut } from '../../../resources/webhook-endpoints/schemas.ts';
import { Button, Form, html } from '../../../ui/index.ts';
import { objectPath } from '../../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from '../frame.ts';
import { Facts } from '../payment.ts';
import { eventsText } from './facts.ts';

/** The confirmation step before an endpoint is removed. */
export function webhookRemovePage({ session, business, mode, role, endpoint }: BusinessFrame & { endpoint: WebhookEndpointOut }): VNode {
  const page = objectPath(business.id, 'webhooks', mode, endpoint.id);
  return DashboardPage({
    title: 'Remove endpoint',
    session,
    frame: { business, mode, role },
    area: 'webhooks',
    children: html`<div>
      <h1>Remove this endpoint?</h1>
      ${Facts({ label: 'The endpoint', facts: [
        ['Address', html`<code>${endpoint.url}</code>`],
        ['Description', endpoint.description],
        ['Events', eventsText(endpoint.events)],
        ['Created', at(endpoint.created)],
      ] })}
      <p>It stops receiving events at once, the retries still waiting are canceled, and its signing secret is erased. Its delivery history stays readable for 30 days. This cannot be undone.</p>
      ${Form({ action: `${page}/remove`, label: 'Remove the endpoint', children: [
        Button({ variant: 'danger', children: 'Remove endpoint' }),
        html`<a href=${page}>Cancel</a>`,
      ] })}
    </div>`,
  });
}
