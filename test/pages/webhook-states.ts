import { PAYMENT_EVENT_TYPES } from '../../src/events/types.ts';
import type { EndpointSummary } from '../../src/resources/webhook-endpoints/overview.ts';
import type { WebhookEndpointOut } from '../../src/resources/webhook-endpoints/schemas.ts';
import type { DeliveryDetail } from '../../src/webhooks/log/read-delivery.ts';
import type { AttemptEntry, DeliveryLogEntry } from '../../src/webhooks/log/schemas.ts';
import type { ReplayOut } from '../../src/webhooks/replays/schemas.ts';
import { webhookDeliveryPage } from '../../src/dashboard/pages/webhooks/delivery.ts';
import { webhookEditPage, webhookNewPage } from '../../src/dashboard/pages/webhooks/endpoint-form.ts';
import { webhookEndpointPage } from '../../src/dashboard/pages/webhooks/endpoint.ts';
import { webhooksPage } from '../../src/dashboard/pages/webhooks/endpoints.ts';
import { webhookRemovePage } from '../../src/dashboard/pages/webhooks/remove.ts';
import { webhookRollPage } from '../../src/dashboard/pages/webhooks/roll.ts';
import { roaster, seconds, signedIn, VIEWER, type Fill, type PageState } from './state-kit.ts';

// The webhooks area in each state a person meets it, with the endpoints of a coffee roaster: what
// a merchant typed (addresses, descriptions, key names), what an endpoint answered, and the event
// bodies go through `v` (see states.ts); ids, times and counts the service makes do not.

const ENDPOINT_ID = 'we_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ';

function endpoint(v: Fill, more: Partial<WebhookEndpointOut> = {}): WebhookEndpointOut {
  return {
    id: ENDPOINT_ID, object: 'webhook_endpoint', url: v('https://shop.kestrelcoffee.example/webhooks/payments'), description: v('Online shop orders'),
    events: [...PAYMENT_EVENT_TYPES], livemode: false, mode: 'test', previous_secret_expires_at: null, created: seconds('2026-02-10T09:15:00Z'), ...more,
  };
}

function summaries(v: Fill): { endpoints: EndpointSummary[]; removed: EndpointSummary[] } {
  return {
    endpoints: [
      { ...endpoint(v), added_by: { via: 'api', key: { id: 'key_Q2mX8vLr4TnW9pKc3Zb7HfJd', name: v('Online shop server'), hint: v('sk_test_…8fQz') } }, removed: null },
      { ...endpoint(v, { id: 'we_R2nW8kX5pQ9mL3tV7cB4zH6j', url: v('https://books.kestrelcoffee.example/hooks'), description: null, events: ['payment.paid', 'payment.updated'], created: seconds('2026-03-01T11:00:00Z') }),
        added_by: { via: 'dashboard' }, removed: null },
    ],
    removed: [
      { ...endpoint(v, { id: 'we_H8wK4mPz2Rt7Xn5Lc3Vq9BdS', url: v('https://old-till.kestrelcoffee.example/notify'), description: v('Old till'), created: seconds('2025-12-01T08:00:00Z') }),
        added_by: { via: 'api', key: { id: 'key_H8wK4mPz2Rt7Xn5Lc3Vq9BdS', name: null, hint: v('sk_test_…Gh4s') } }, removed: seconds('2026-02-20T17:30:00Z') },
    ],
  };
}

/** An event body: JSON, so the whole text stands for what a merchant and buyer typed into it (JSON would escape a value inside it). */
function body(v: Fill, type: string, id: string): string {
  return v(JSON.stringify({ id, type, created: seconds('2026-03-04T09:16:00Z'), livemode: false, data: { payment: { id: 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ', description: 'Order #1042 at Kestrel Coffee Roasters', amount: '53.70' } } }));
}

function delivery(v: Fill, more: Partial<DeliveryLogEntry> & { id: string; event_type: string }): DeliveryLogEntry {
  const eventId = more.event_id ?? 'evt_K3mW8qXp2Lr7Vn4Tc9Bz5HjD';
  return {
    kind: 'event', event_id: eventId, status: 'succeeded', created: seconds('2026-03-04T09:16:00Z'), sent: seconds('2026-03-04T09:16:01Z'),
    attempts: 1, manual_attempts: 0, last_status: 200, last_error: null, next_retry: null, body: body(v, more.event_type, eventId), ...more,
  };
}

function deliveries(v: Fill): DeliveryLogEntry[] {
  return [
    delivery(v, { id: 'dlv_Z7mQ2xW9pL4rT8vN3kB6cH1s', event_type: 'ping', kind: 'test', attempts: 0, manual_attempts: 1, event_id: 'evt_T5vR2nXk8Lp4Wq7Mc9Bz3HjF' }),
    delivery(v, { id: 'dlv_P9nL2wXk7Rq4Tm8Vc3Bz6HsF', event_type: 'payment.paid', status: 'pending', attempts: 2, last_status: 503, last_error: v('the endpoint answered 503'), next_retry: seconds('2026-03-04T09:22:01Z') }),
    delivery(v, { id: 'dlv_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', event_type: 'payment.started', status: 'failed', attempts: 7, manual_attempts: 1, last_status: null, last_error: v('refused: shop.kestrelcoffee.example resolves to an address that is not on the public internet') }),
    delivery(v, { id: 'dlv_N7pL3kWq9Xc2Vb8RmT4HsY6e', event_type: 'payment.started' }),
  ];
}

function replays(v: Fill): ReplayOut[] {
  const replay = (more: Partial<ReplayOut>): ReplayOut => ({
    id: 2, endpoint_id: ENDPOINT_ID, since: seconds('2026-03-03T00:00:00Z'), requested_by: v('tomas@kestrelcoffee.example'), status: 'running', total: 40, done: 12,
    succeeded: 10, skipped: 1, failed: 1, created: seconds('2026-03-04T10:00:00Z'), finished: null, ...more,
  });
  return [replay({}), replay({ id: 1, status: 'done', total: 3, done: 3, succeeded: 3, skipped: 0, failed: 0, since: seconds('2026-02-20T08:00:00Z'), created: seconds('2026-02-21T09:00:00Z'), finished: seconds('2026-02-21T09:00:04Z') })];
}

function attempt(v: Fill, number: number | null, more: Partial<AttemptEntry> = {}): AttemptEntry {
  return {
    trigger: 'automatic', number, url: v('https://shop.kestrelcoffee.example/webhooks/payments'), sent: seconds('2026-03-04T09:16:01Z') + (number ?? 8) * 600,
    duration_ms: 212, succeeded: false, status_code: 503, error: v('the endpoint answered 503'), response_excerpt: v('<html><body>Service Unavailable</body></html>'), ...more,
  };
}

function detail(v: Fill, more: Partial<DeliveryLogEntry>, attempts: AttemptEntry[]): DeliveryDetail {
  return {
    endpoint: { id: ENDPOINT_ID, url: v('https://shop.kestrelcoffee.example/webhooks/payments'), removed: false },
    delivery: delivery(v, { id: 'dlv_P9nL2wXk7Rq4Tm8Vc3Bz6HsF', event_type: 'payment.paid', ...more }),
    attempts,
  };
}

const frame = (v: Fill, role: 'owner' | 'viewer' = 'owner', mode: 'test' | 'live' = 'test') => ({ business: roaster(v), mode, role });
const secret = (v: Fill) => v('whsec_4qN8xLm2Rk7Tw9Vp3Bc6Hz1Yd5Fg0u3K');
const since = (v: Fill) => v('2026-03-03 09:00');

export const WEBHOOK_STATES: readonly PageState[] = [
  signedIn({ fn: webhooksPage, name: 'webhooks-list', main: true, shows: 'Test endpoints, one added by a key (named) and one in the dashboard, and one removed last week' },
    (v, s) => webhooksPage({ session: s, ...frame(v), ...summaries(v) })),
  signedIn({ fn: webhooksPage, name: 'webhooks-viewer', shows: 'the endpoints as a viewer sees them: nothing to add' },
    (v, s) => webhooksPage({ session: s, ...frame(v, 'viewer'), endpoints: summaries(v).endpoints, removed: [] }), VIEWER),
  signedIn({ fn: webhooksPage, name: 'webhooks-live-empty', shows: 'no Live endpoint yet' },
    (v, s) => webhooksPage({ session: s, ...frame(v, 'owner', 'live'), endpoints: [], removed: [] })),
  signedIn({ fn: webhookNewPage, name: 'webhook-new', main: true, shows: 'the form to add an endpoint, every event ticked' },
    (v, s) => webhookNewPage({ session: s, ...frame(v), values: { url: v(''), description: v(''), events: PAYMENT_EVENT_TYPES } })),
  signedIn({ fn: webhookNewPage, name: 'webhook-new-refused', shows: 'the form again after the API refused the address, its message beside it' },
    (v, s) => webhookNewPage({ session: s, ...frame(v, 'owner', 'live'), values: { url: v('http://shop.kestrelcoffee.example/hooks'), description: v('Shop'), events: ['payment.paid'] },
      error: { field: 'url', message: v('url must be a full https:// address.') } })),
  signedIn({ fn: webhookEditPage, name: 'webhook-edit', shows: 'editing an endpoint\'s address, description and events' },
    (v, s) => webhookEditPage({ session: s, ...frame(v), endpoint: endpoint(v, { events: ['payment.paid', 'payment.failed'] }) })),
  signedIn({ fn: webhookEndpointPage, name: 'webhook-endpoint-added', main: true, shows: 'an endpoint just added: its secret shown once, its log (delivered, retrying, failed, a test ping) and a replay under way' },
    (v, s) => webhookEndpointPage({ session: s, ...frame(v), endpoint: { ...endpoint(v), removed: false }, deliveries: deliveries(v), replays: replays(v),
      secret: { endpoint: ENDPOINT_ID, secret: secret(v), rolled: false, previous_until: null }, replay: { since: since(v) } })),
  signedIn({ fn: webhookEndpointPage, name: 'webhook-endpoint-rolled', shows: 'right after rolling the secret at once: the old one signs nothing further' },
    (v, s) => webhookEndpointPage({ session: s, ...frame(v), endpoint: { ...endpoint(v), removed: false }, deliveries: deliveries(v), replays: [],
      secret: { endpoint: ENDPOINT_ID, secret: secret(v), rolled: true, previous_until: null }, replay: { since: since(v) } })),
  signedIn({ fn: webhookEndpointPage, name: 'webhook-endpoint-rolled-overlap', shows: 'right after rolling the secret keeping the previous one for 24 hours' },
    (v, s) => webhookEndpointPage({ session: s, ...frame(v), endpoint: { ...endpoint(v, { previous_secret_expires_at: seconds('2026-03-05T09:30:00Z') }), removed: false }, deliveries: [], replays: [],
      secret: { endpoint: ENDPOINT_ID, secret: secret(v), rolled: true, previous_until: seconds('2026-03-05T09:30:00Z') }, replay: { since: since(v) } })),
  signedIn({ fn: webhookEndpointPage, name: 'webhook-endpoint-replay-refused', shows: 'a replay asked for a time that is not one: the message beside the field' },
    (v, s) => webhookEndpointPage({ session: s, ...frame(v), endpoint: { ...endpoint(v), removed: false }, deliveries: deliveries(v), replays: replays(v),
      replay: { since: v('yesterday'), error: 'Failed since must be a day such as 2026-03-01, or a day and time such as 2026-03-01 14:30 (UTC).' } })),
  signedIn({ fn: webhookEndpointPage, name: 'webhook-endpoint-live', shows: 'a Live endpoint: a ping is the only test event' },
    (v, s) => webhookEndpointPage({ session: s, ...frame(v, 'owner', 'live'), endpoint: { ...endpoint(v, { livemode: true, mode: 'live' }), removed: false }, deliveries: [], replays: [], replay: { since: since(v) }, notice: 'saved' })),
  signedIn({ fn: webhookEndpointPage, name: 'webhook-endpoint-viewer', shows: 'an endpoint as a viewer sees it: its log and replays, nothing to change' },
    (v, s) => webhookEndpointPage({ session: s, ...frame(v, 'viewer'), endpoint: { ...endpoint(v), removed: false }, deliveries: deliveries(v), replays: replays(v), replay: { since: since(v) } }), VIEWER),
  signedIn({ fn: webhookEndpointPage, name: 'webhook-endpoint-removed', shows: 'a removed endpoint: its history, read only, for 30 days' },
    (v, s) => webhookEndpointPage({ session: s, ...frame(v), endpoint: { ...endpoint(v), removed: true }, deliveries: deliveries(v).slice(1), replays: [], replay: { since: since(v) } })),
  signedIn({ fn: webhookRollPage, name: 'webhook-roll', main: true, shows: 'rolling the secret: at once, or keeping the previous one 24 hours' },
    (v, s) => webhookRollPage({ session: s, ...frame(v), endpoint: endpoint(v) })),
  signedIn({ fn: webhookRemovePage, name: 'webhook-remove', shows: 'the confirmation step before removing an endpoint' },
    (v, s) => webhookRemovePage({ session: s, ...frame(v), endpoint: endpoint(v) })),
  signedIn({ fn: webhookDeliveryPage, name: 'webhook-delivery-retrying', main: true, shows: 'a delivery being retried, just sent by hand and refused again: its attempts, the exact body, Retry now' },
    (v, s) => webhookDeliveryPage({ session: s, ...frame(v), sent: true, detail: detail(v, { status: 'pending', attempts: 2, manual_attempts: 1, last_status: 503, last_error: v('the endpoint answered 503'), next_retry: seconds('2026-03-04T09:22:01Z') },
      [attempt(v, 1), attempt(v, 2), attempt(v, null, { trigger: 'retry_now', error: v('timed out after 10 seconds'), status_code: null, response_excerpt: null })]) })),
  signedIn({ fn: webhookDeliveryPage, name: 'webhook-delivery-resent', shows: 'a failed delivery resent and delivered' },
    (v, s) => webhookDeliveryPage({ session: s, ...frame(v), sent: true, detail: detail(v, { status: 'succeeded', attempts: 7, manual_attempts: 1, last_status: 200 },
      [...[1, 2, 3, 4, 5, 6, 7].map((number) => attempt(v, number)), attempt(v, null, { trigger: 'resend', succeeded: true, status_code: 200, error: null, response_excerpt: v('ok') })]) })),
  signedIn({ fn: webhookDeliveryPage, name: 'webhook-delivery-viewer', shows: 'a test ping as a viewer sees it: nothing to send' },
    (v, s) => webhookDeliveryPage({ session: s, ...frame(v, 'viewer'), detail: detail(v, { id: 'dlv_Z7mQ2xW9pL4rT8vN3kB6cH1s', event_type: 'ping', kind: 'test', attempts: 0, manual_attempts: 1 },
      [attempt(v, null, { trigger: 'test', succeeded: true, status_code: 200, error: null, response_excerpt: v('pong') })]) }), VIEWER),
];
