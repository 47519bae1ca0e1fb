import type { VNode } from 'preact';
import type { WebhookEndpointOut } from '../../../resources/webhook-endpoints/schemas.ts';
import type { DeliveryLogEntry } from '../../../webhooks/log/schemas.ts';
import { MAX_ATTEMPTS } from '../../../webhooks/deliveries.ts';
import { TEST_EVENT_TYPES } from '../../../webhooks/log/send-test.ts';
import { REPLAY_STATUS, replayProgress, type ReplayOut } from '../../../webhooks/replays/schemas.ts';
import { Button, CopyButton, Form, html, Notice, Select, Table, TextField } from '../../../ui/index.ts';
import type { PageNotices } from '../../notices.ts';
import { businessPath, objectPath } from '../../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from '../frame.ts';
import { Facts } from '../payment.ts';
import { DeliveryState, eventsText, managesEndpoints } from './facts.ts';
import { ObjectBadge } from '../../wording.ts';

// One endpoint: its facts, what can be done with it (edit, roll the secret, a test event,
// remove), its delivery log (the latest 50), and replaying its failed deliveries with each
// replay's progress. A removed endpoint's page keeps its history, read only, for 30 days.

/** A signing secret shown this once: the endpoint's first, or a rolled one. */
export type SecretShown = PageNotices['webhooks'];

export interface ReplayForm {
  /** The time typed (or offered) for "failed since". */
  since: string;
  error?: string;
}

function SecretNotice({ shown }: { shown: SecretShown }): VNode {
  return Notice({ tone: 'warning', children: html`<div>
    ${!shown.rolled && html`<p>The endpoint was added. Its signing secret is shown this once; copy it now:</p>`}
    ${shown.rolled && shown.previous_until === null && html`<p>The secret was rolled: the old secret signs nothing further, from now on. The new one is shown this once; copy it now:</p>`}
    ${shown.rolled && shown.previous_until !== null && html`<p>The secret was rolled. The previous secret also signs every request until ${at(shown.previous_until)}
      (a second <code>v1=</code> in <code>Service-Signature</code>), so your receiver can change over. The new one is shown this once; copy it now:</p>`}
    <p id="new-signing-secret"><code>${shown.secret}</code></p>
    ${CopyButton({ target: 'new-signing-secret', label: 'Copy the secret' })}
  </div>` });
}

function attemptsText(delivery: DeliveryLogEntry): string {
  const automatic = delivery.kind === 'test' ? 'test send' : `${delivery.attempts} of ${MAX_ATTEMPTS}`;
  const manual = delivery.kind === 'test' || delivery.manual_attempts === 0 ? '' : `, ${delivery.manual_attempts} by hand`;
  return `${automatic}${manual}`;
}

export function webhookEndpointPage({ session, business, mode, role, endpoint, deliveries, replays, secret, notice, replay, testRefused }: BusinessFrame & {
  endpoint: WebhookEndpointOut & { removed: boolean };
  deliveries: DeliveryLogEntry[];
  replays: ReplayOut[];
  secret?: SecretShown;
  notice?: 'saved' | 'replaying';
  replay: ReplayForm;
  /** Why a test send was refused (the endpoint's test events a minute), in words for people. */
  testRefused?: string;
}): VNode {
  const page = objectPath(business.id, 'webhooks', mode, endpoint.id);
  const acts = managesEndpoints(role) && !endpoint.removed;
  const rows = deliveries.map((delivery) => [
    html`<a href=${`${page}/deliveries/${encodeURIComponent(delivery.id)}`}><code>${delivery.event_type}</code></a>${delivery.kind === 'test' ? ' (test)' : ''}`,
    at(delivery.sent),
    attemptsText(delivery),
    DeliveryState({ delivery }),
    delivery.status === 'pending' ? at(delivery.next_retry) : '–',
  ]);
  const replayRows = replays.map((each) => [at(each.created), at(each.since), each.requested_by, replayProgress(each),
    each.status === 'done' ? html`<span>finished ${at(each.finished)}</span>` : REPLAY_STATUS[each.status]]);
  return DashboardPage({
    title: `Endpoint ${endpoint.url}`,
    session,
    frame: { business, mode, role },
    area: 'webhooks',
    children: html`<div>
      <p><a href=${businessPath(business.id, 'webhooks', mode)}>All endpoints</a></p>
      <h1>${endpoint.description ?? 'Webhook endpoint'}</h1>
      ${endpoint.removed && Notice({ tone: 'warning', children: 'Removed: nothing is sent to it any more. Its delivery history stays here for 30 days after removal.' })}
      ${secret && html`<${SecretNotice} shown=${secret} />`}
      ${notice === 'saved' && Notice({ tone: 'success', children: 'Saved.' })}
      ${notice === 'replaying' && Notice({ tone: 'success', children: 'The replay started: its progress is shown under Replays.' })}
      ${Facts({ label: 'The endpoint', facts: [
        ['Status', ObjectBadge({ status: endpoint.removed ? 'removed' : 'active' })],
        ['Address', html`<code>${endpoint.url}</code>`],
        ['Events', eventsText(endpoint.events)],
        ['Id', html`<code>${endpoint.id}</code>`],
        ['Created', at(endpoint.created)],
        ...(endpoint.previous_secret_expires_at === null ? [] : [['Previous secret signs until', at(endpoint.previous_secret_expires_at)] as const]),
      ] })}
      ${acts && html`<p>
        <a class="button" href=${`${page}/edit`}>Edit</a>
        <a class="button" href=${`${page}/roll`}>Roll the secret</a>
        <a class="button danger" href=${`${page}/remove`}>Remove</a>
      </p>`}
      ${acts && html`<section aria-labelledby="test-heading">
        <h2 id="test-heading">Send a test event</h2>
        ${mode === 'test'
          ? html`<p>One signed event, sent now and never retried: a <code>ping</code>, or a made-up payment event (payment <code>pay_sample</code>, order <code>ord_sample</code>).</p>`
          : html`<p>A Live endpoint takes a <code>ping</code> only: one signed event, sent now and never retried.</p>`}
        ${testRefused && Notice({ tone: 'error', children: `Not sent. ${testRefused}` })}
        ${Form({ action: `${page}/test`, label: 'Send a test event', children: [
          mode === 'test' && Select({ name: 'type', label: 'Event to send', value: 'ping', options: TEST_EVENT_TYPES.map((type) => ({ value: type, label: type })) }),
          Button({ children: mode === 'test' ? 'Send test event' : 'Send a ping' }),
        ] })}
      </section>`}
      <h2 id="log-heading">Delivery log</h2>
      <p>The latest 50 deliveries, newest first. Open one for its exact body and each attempt.</p>
      ${Table({ label: 'Delivery log', columns: ['Event', 'Sent', 'Attempts', 'Status', 'Next retry'], rows, empty: 'Nothing sent to this endpoint yet.' })}
      <section aria-labelledby="replay-heading">
        <h2 id="replay-heading">Replays</h2>
        ${acts && html`<div>
          <p>Sends every event delivery to this endpoint that failed since the time you choose once more, oldest first, in the background; each counts as a resend.</p>
          ${Form({ action: `${page}/replay`, label: 'Replay failed deliveries', children: [
            TextField({ name: 'since', label: 'Failed since (UTC)', value: replay.since, error: replay.error, maxLength: 16, required: true,
              hint: 'A day such as 2026-03-01, or a day and time such as 2026-03-01 14:30.' }),
            Button({ children: 'Replay failed deliveries' }),
          ] })}
        </div>`}
        ${Table({ label: 'Replays', columns: ['Asked', 'Failed since', 'By', 'Progress', 'State'], rows: replayRows, empty: 'No replays yet.' })}
      </section>
    </div>`,
  });
}
