import type { VNode } from 'preact';
import { MAX_ATTEMPTS } from '../../../webhooks/deliveries.ts';
import type { DeliveryDetail } from '../../../webhooks/log/read-delivery.ts';
import type { AttemptEntry } from '../../../webhooks/log/schemas.ts';
import { Button, CopyField, Form, html, Notice, Table } from '../../../ui/index.ts';
import { objectPath } from '../../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from '../frame.ts';
import { Facts } from '../payment.ts';
import { DeliveryState, managesEndpoints } from './facts.ts';

// One delivery (spec 6.3 rule 4): its state, the exact body every attempt sends, each attempt
// with its answer, and sending it again: retry now while it is retrying, resend once finished.

const TRIGGERS: Record<AttemptEntry['trigger'], string> = { automatic: 'automatic', retry_now: 'retry now', resend: 'resend', test: 'test send' };

/** A JSON body indented for reading; anything else (never expected) as it is. */
export function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** What a manual send just did, read from its attempt (the newest). */
function SentNotice({ attempt }: { attempt: AttemptEntry | undefined }): VNode | null {
  if (!attempt) return null;
  return attempt.succeeded
    ? Notice({ tone: 'success', children: `Sent: the endpoint answered ${attempt.status_code ?? ''}.` })
    : Notice({ tone: 'warning', children: `Sent, and not delivered: ${attempt.error ?? 'no answer'}.` });
}

export function webhookDeliveryPage({ session, business, mode, role, detail, sent }: BusinessFrame & { detail: DeliveryDetail; sent?: boolean }): VNode {
  const { endpoint, delivery, attempts } = detail;
  const page = objectPath(business.id, 'webhooks', mode, endpoint.id);
  const self = `${page}/deliveries/${encodeURIComponent(delivery.id)}`;
  const acts = managesEndpoints(role) && !endpoint.removed;
  const retrying = delivery.kind === 'event' && delivery.status === 'pending';
  const finished = delivery.status === 'succeeded' || delivery.status === 'failed';
  const rows = attempts.map((attempt) => [
    attempt.number === null ? TRIGGERS[attempt.trigger] : `${TRIGGERS[attempt.trigger]} ${attempt.number} of ${MAX_ATTEMPTS}`,
    at(attempt.sent),
    html`<code>${attempt.url}</code>`,
    `${attempt.duration_ms} ms`,
    attempt.succeeded ? `answered ${attempt.status_code ?? ''}` : attempt.error ?? 'failed',
    attempt.response_excerpt === null || attempt.response_excerpt === '' ? '–' : html`<code>${attempt.response_excerpt}</code>`,
  ]);
  return DashboardPage({
    title: `Delivery ${delivery.id}`,
    session,
    frame: { business, mode, role },
    area: 'webhooks',
    children: html`<div>
      <p><a href=${page}>Back to the endpoint</a></p>
      <h1><code>${delivery.event_type}</code> to <code>${endpoint.url}</code></h1>
      ${sent && html`<${SentNotice} attempt=${attempts.at(-1)} />`}
      ${Facts({ label: 'The delivery', facts: [
        ['Status', DeliveryState({ delivery })],
        ['Event', html`<code>${delivery.event_id}</code>`],
        ['Kind', delivery.kind === 'test' ? 'a test send (never retried)' : 'an event'],
        ['Created', at(delivery.created)],
        ['Last sent', at(delivery.sent)],
        ['Automatic attempts', delivery.kind === 'test' ? null : `${delivery.attempts} of ${MAX_ATTEMPTS}`],
        ['Sent by hand', String(delivery.manual_attempts)],
        ['Next retry', delivery.status === 'pending' ? at(delivery.next_retry) : null],
      ] })}
      ${acts && retrying && html`<div>
        <p>Retry now sends it at once; it does not use up one of the automatic retries, and a success finishes it.</p>
        ${Form({ action: `${self}/retry`, label: 'Retry now', children: Button({ variant: 'primary', children: 'Retry now' }) })}
      </div>`}
      ${acts && finished && html`<div>
        <p>Resend sends it once more, with the same event id and body; a success marks it delivered.</p>
        ${Form({ action: `${self}/resend`, label: 'Resend', children: Button({ children: 'Resend' }) })}
      </div>`}
      <h2>Attempts</h2>
      ${Table({ label: 'Attempts', columns: ['Attempt', 'Sent', 'To', 'Took', 'Result', 'Response'], rows, empty: 'Not sent yet.' })}
      <h2 id="body-heading">Body</h2>
      <p>What every attempt sends, indented for reading; the signature is made afresh each time.</p>
      <pre class="body" tabindex="0" role="region" aria-labelledby="body-heading"><code>${prettyBody(delivery.body)}</code></pre>
      <details class="form-section">
        <summary>The exact bytes sent (to check a signature)</summary>
        ${CopyField({ name: 'body', label: 'The body on one line, exactly as signed', value: delivery.body, rows: 4, copyLabel: 'Copy the body' })}
      </details>
    </div>`,
  });
}
