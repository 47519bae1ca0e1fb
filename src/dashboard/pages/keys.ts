import type { VNode } from 'preact';
import type { ApiKeyOut } from '../../resources/api-keys/schemas.ts';
import { Button, CopyButton, Form, html, Notice, RadioGroup, Table, TextField } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';
import { RefusalNotice, type FormRefusal } from '../refusals.ts';

/** The secret keys of one business and mode; a new key's secret is shown this once. */
export function keysPage({ session, business, mode, role, manages, keys, created, refused }: BusinessFrame & {
  manages: boolean; keys: ApiKeyOut[]; created?: { secret: string; name: string | null };
  /** The create form refused: what was typed, and why. */
  refused?: { name: string; access: string; error: Omit<FormRefusal, 'status'> };
}): VNode {
  const errorFor = (field: string) => (refused?.error.field === field ? refused.error.message : undefined);
  const placed = refused?.error.field === 'name' || refused?.error.field === 'access';
  const action = businessPath(business.id, 'keys', mode);
  const rows = keys.map((key) => [
    key.name ?? '',
    html`<code class="nowrap">${key.hint}</code>`,
    html`<span>${key.access === 'full' ? 'Full access' : 'Read only'}${key.kind === 'api' ? '' : ` (${key.kind})`}<br /><span class="muted">${key.scopes.join(' ')}</span></span>`,
    at(key.created),
    at(key.last_used),
    key.revoked !== null
      ? html`<span>Revoked ${at(key.revoked)}</span>`
      : manages
        ? Form({ action: `${action}/${encodeURIComponent(key.id)}/revoke`, label: `Revoke ${key.name ?? key.hint}`, children: Button({ variant: 'danger', children: 'Revoke' }) })
        : 'Active',
  ]);
  return DashboardPage({
    title: 'API keys',
    session,
    frame: { business, mode, role },
    area: 'keys',
    children: html`<div>
      <h1>${business.name}: API keys</h1>
      ${created && Notice({ tone: 'warning', children: html`<div>
        <p>The new key${created.name ? ` “${created.name}”` : ''} is shown this once; copy it now:</p>
        <p id="new-secret"><code>${created.secret}</code></p>
        ${CopyButton({ target: 'new-secret', label: 'Copy the key' })}
      </div>` })}
      ${Table({ label: 'Secret keys', columns: ['Name', 'Key', 'Access', 'Created', 'Last used', 'State'], rows, empty: 'No keys yet.' })}
      ${manages
        ? html`<section aria-labelledby="create-key">
            <h2 id="create-key">Create a ${mode === 'live' ? 'Live' : 'Test'} key</h2>
            ${refused && RefusalNotice({ refusal: refused.error, ...(placed ? { placed: 'No key was created: see the field marked below.' } : {}) })}
            ${Form({ action, label: 'Create a key', children: [
              TextField({ name: 'name', label: 'Name', hint: 'To recognise the key later, such as the server that uses it.', maxLength: 80, value: refused?.name, error: errorFor('name') }),
              RadioGroup({ name: 'access', legend: 'Access', value: refused?.access || 'full', error: errorFor('access'), choices: [
                { value: 'full', label: 'Full access: every API operation, and webhook endpoints' },
                { value: 'read_only', label: 'Read only: payments, orders and customers' },
              ] }),
              Button({ variant: 'primary', children: 'Create key' }),
            ] })}
          </section>`
        : html`<p class="muted">Only owners and developers manage keys.</p>`}
    </div>`,
  });
}
