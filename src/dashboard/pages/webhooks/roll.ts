import type { VNode } from 'preact';
import type { WebhookEndpointOut } from '../../../resources/webhook-endpoints/schemas.ts';
import { Button, Form, html, RadioGroup } from '../../../ui/index.ts';
import { objectPath } from '../../paths.ts';
import { DashboardPage, type BusinessFrame } from '../frame.ts';

/**
 * Rolling an endpoint's signing secret (spec 6.3 rule 7): at once, when the old one must sign
 * nothing further (it leaked), or keeping it 24 hours while the receiver changes over.
 */
export function webhookRollPage({ session, business, mode, role, endpoint }: BusinessFrame & { endpoint: WebhookEndpointOut }): VNode {
  const page = objectPath(business.id, 'webhooks', mode, endpoint.id);
  return DashboardPage({
    title: 'Roll the signing secret',
    session,
    frame: { business, mode, role },
    area: 'webhooks',
    children: html`<div>
      <h1>Roll the signing secret?</h1>
      <p>Of <code>${endpoint.url}</code>. The new secret signs every request from now on and is shown once, on the next page; the API never returns it.</p>
      ${Form({ action: `${page}/roll`, label: 'Roll the signing secret', children: [
        RadioGroup({ name: 'keep_previous', legend: 'The old secret', value: 'no', choices: [
          { value: 'no', label: 'Stops at once: the old secret signs nothing further (choose this if it leaked)' },
          { value: 'yes', label: 'Keeps signing for 24 hours: each request carries a signature with each secret until then' },
        ] }),
        Button({ variant: 'primary', children: 'Roll the secret' }),
        html`<a href=${page}>Cancel</a>`,
      ] })}
    </div>`,
  });
}
