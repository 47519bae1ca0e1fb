import type { VNode } from 'preact';
import { PAYMENT_EVENT_TYPES } from '../../../events/types.ts';
import type { EndpointAddedBy } from '../../../resources/webhook-endpoints/overview.ts';
import type { DeliveryLogEntry } from '../../../webhooks/log/schemas.ts';
import { atLeast } from '../../../tenancy/roles.ts';
import { html } from '../../../ui/index.ts';
import type { BusinessFrame } from '../frame.ts';
import { DeliveryBadge } from '../../wording.ts';

// What the webhook pages say the same way: an endpoint's events, who added it, a delivery's state.

/** Whether the person manages endpoints (developers and owners); the actions decide anyway. */
export const managesEndpoints = (role: BusinessFrame['role']) => role !== undefined && atLeast(role, 'developer');

/** The events an endpoint receives, in a line. */
export function eventsText(events: readonly string[]): string {
  return events.length === PAYMENT_EVENT_TYPES.length ? 'Every payment event' : events.join(', ');
}

/** Who added an endpoint: a key (by name and hint), or a person in the dashboard. */
export function AddedBy({ addedBy }: { addedBy: EndpointAddedBy }): VNode {
  if (addedBy.via === 'dashboard') return html`<span>In the dashboard</span>`;
  if (addedBy.key === null) return html`<span>By a secret key</span>`;
  return html`<span>By the key ${addedBy.key.name === null ? '' : html`“${addedBy.key.name}” `}<code class="nowrap">${addedBy.key.hint}</code></span>`;
}

/** A delivery's state and its last answer: the status code or the error. */
export function DeliveryState({ delivery }: { delivery: Pick<DeliveryLogEntry, 'status' | 'last_status' | 'last_error'> }): VNode {
  const answer = delivery.last_error ?? (delivery.last_status === null ? null : `answered ${delivery.last_status}`);
  return html`<span>${DeliveryBadge({ status: delivery.status })}${answer !== null && html`<br /><span class="muted">${answer}</span>`}</span>`;
}
