import type { VNode } from 'preact';
import type { AgentConnectionOut } from '../../resources/agent-connections/schemas.ts';
import { Button, Form, html, Table } from '../../ui/index.ts';
import type { AgentApprovalOut } from '../../resources/agent-connections/policy.ts';
import { businessPath, objectPath } from '../paths.ts';
import { ConnectionBadge } from '../wording.ts';
import { agentName, ApprovalsTable } from './agent.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';

/** The agents connected to one business in one mode, who approved each, and Disconnect. */
export function agentsPage({ session, business, mode, role, manages, connections, pending }: BusinessFrame & { manages: boolean; connections: AgentConnectionOut[]; pending: AgentApprovalOut[] }): VNode {
  const action = businessPath(business.id, 'agents', mode);
  const rows = connections.map((c) => [
    // An agent without a name is shown by its client_id: the id we gave it, or its metadata document's URL. Neither is its own claim.
    html`<a href=${objectPath(business.id, 'agents', mode, c.id)}>${agentName(c)}</a>`,
    c.access === 'full' ? 'Full access' : 'Read only',
    html`<span>${c.approved_by.email}, ${at(c.created)}</span>`,
    at(c.last_used),
    c.disconnected !== null
      ? html`<div class="state-actions">${ConnectionBadge({ connected: false })}<span>${at(c.disconnected)}</span></div>`
      : html`<div class="state-actions">${ConnectionBadge({ connected: true })}${manages && Form({
        action: `${action}/${encodeURIComponent(c.id)}/disconnect`, label: `Disconnect ${c.client_name ?? c.client_id}`, children: Button({ variant: 'danger', children: 'Disconnect' }),
      })}</div>`,
  ]);
  return DashboardPage({
    title: 'Connected agents',
    session,
    frame: { business, mode, role },
    area: 'agents',
    children: html`<div>
      <h1>${business.name}: connected agents</h1>
      ${pending.length > 0 && html`<section aria-labelledby="pending-heading">
        <h2 id="pending-heading">Waiting for approval (${pending.length})</h2>
        ${ApprovalsTable({ label: 'Approval requests waiting for a person', approvals: pending, empty: '' })}
      </section>`}
      <p class="muted">Open an agent to see and change what it may do with money.</p>
      ${Table({ label: 'Connected agents', columns: ['Agent', 'Access', 'Approved by', 'Last used', 'State'], rows, empty: 'No agents connected yet.' })}
    </div>`,
  });
}
