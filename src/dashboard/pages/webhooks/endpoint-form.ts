import type { VNode } from 'preact';
import { PAYMENT_EVENT_TYPES } from '../../../events/types.ts';
import type { WebhookEndpointOut } from '../../../resources/webhook-endpoints/schemas.ts';
import { Button, CheckboxGroup, Form, html, Notice, TextField } from '../../../ui/index.ts';
import { businessPath, objectPath } from '../../paths.ts';
import type { Mode } from '../../requests.ts';
import { DashboardPage, MODE_NAMES, type BusinessFrame } from '../frame.ts';

// Adding an endpoint and editing one: its address, description and events, with the API's
// refusal beside the field it names and what was typed kept.

/** The form as typed: url, description, and each event type ticked ("on") or not. */
export type EndpointForm = { url?: string; description?: string; events: readonly string[] };
export type FormError = { field: string | undefined; message: string };

const FIELDS = ['url', 'description', 'events'];

function EndpointFields({ mode, values, error, submit }: { mode: Mode; values: EndpointForm; error: FormError | undefined; submit: string }) {
  const errorFor = (field: string) => (error?.field === field ? error.message : undefined);
  return [
    TextField({ name: 'url', label: 'Address', type: 'url', value: values.url ?? '', error: errorFor('url'), maxLength: 2048, required: true,
      hint: mode === 'live' ? 'A full https:// address on the public internet.' : 'A full https:// address, or http://localhost while you develop.' }),
    TextField({ name: 'description', label: 'Description (optional)', value: values.description ?? '', error: errorFor('description'), maxLength: 80,
      hint: 'To recognise it later; up to 80 characters.' }),
    CheckboxGroup({ id: 'field-events', legend: 'Events it receives', error: errorFor('events'),
      boxes: PAYMENT_EVENT_TYPES.map((type) => ({ name: type, label: html`<code>${type}</code>`, checked: values.events.includes(type) })) }),
    Button({ variant: 'primary', children: submit }),
  ];
}

/** Says what was refused: beside its field, or here when it names none (too many endpoints). */
function Refusal({ error, what }: { error: FormError | undefined; what: string }) {
  if (!error) return null;
  return Notice({ tone: 'error', children: FIELDS.includes(error.field ?? '') ? `${what}: see the field marked below.` : error.message });
}

/** The form to add an endpoint (every event ticked to begin with). */
export function webhookNewPage({ session, business, mode, role, values = { events: PAYMENT_EVENT_TYPES }, error }: BusinessFrame & { values?: EndpointForm; error?: FormError }): VNode {
  const path = businessPath(business.id, 'webhooks', mode);
  return DashboardPage({
    title: 'Add an endpoint',
    session,
    frame: { business, mode, role },
    area: 'webhooks',
    children: html`<div>
      <p><a href=${path}>All endpoints</a></p>
      <h1>Add a ${MODE_NAMES[mode]} endpoint</h1>
      <p>Its signing secret is shown once, right after it is added. An endpoint added here keeps being retried when it answers <code>410 Gone</code>; remove it here when it should stop.</p>
      ${Refusal({ error, what: 'The endpoint was not added' })}
      ${Form({ action: path, label: 'Add an endpoint', children: EndpointFields({ mode, values, error, submit: 'Add endpoint' }) })}
    </div>`,
  });
}

/** The form to change an endpoint's address, description and events. */
export function webhookEditPage({ session, business, mode, role, endpoint, values, error }: BusinessFrame & { endpoint: WebhookEndpointOut; values?: EndpointForm; error?: FormError }): VNode {
  const page = objectPath(business.id, 'webhooks', mode, endpoint.id);
  const typed = values ?? { url: endpoint.url, description: endpoint.description ?? '', events: endpoint.events };
  return DashboardPage({
    title: 'Edit endpoint',
    session,
    frame: { business, mode, role },
    area: 'webhooks',
    children: html`<div>
      <p><a href=${page}>Back to the endpoint</a></p>
      <h1>Edit the endpoint</h1>
      <p>A new address also takes the retries still waiting: they go to it from now on.</p>
      ${Refusal({ error, what: 'Nothing was changed' })}
      ${Form({ action: `${page}/edit`, label: 'Edit the endpoint', children: EndpointFields({ mode, values: typed, error, submit: 'Save changes' }) })}
    </div>`,
  });
}
