import type { VNode } from 'preact';
import type { AgentApprovalOut, AgentConnectionDetail } from '../../resources/agent-connections/policy.ts';
import type { AgentConnectionOut } from '../../resources/agent-connections/schemas.ts';
import { Button, Form, html, Notice, Table, Time } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { ApprovalBadge, ConnectionBadge, operationName } from '../wording.ts';
import { DashboardPage, type BusinessFrame } from './frame.ts';
import { PolicyFields, type PolicyValues } from './agent-policy.ts';

// A connected agent's own page (its spend policy, what it created today against each limit, its
// approval requests) and the page of one approval request, where a person approves or declines
// exactly what the agent asked.

export function agentName(connection: Pick<AgentConnectionOut, 'client_name' | 'client_id'>): VNode {
  return connection.client_name === null ? html`<code>${connection.client_id}</code>` : html`<span><bdi>${connection.client_name}</bdi> <span class="muted">(unverified name)</span></span>`;
}

/** The approval requests as a table, each linked to its page. */
export function ApprovalsTable({ label, approvals, empty }: { label: string; approvals: AgentApprovalOut[]; empty: string }): VNode {
  return Table({
    label,
    columns: ['Asked', 'Operation', 'Why it needs a person', 'State'],
    rows: approvals.map((approval) => [
      Time({ at: approval.created }),
      html`<a href=${approval.path}>${operationName(approval.operation)}</a>`,
      approval.reasons.join('; '),
      ApprovalBadge({ status: approval.status }),
    ]),
    empty,
  });
}

export function agentPage({ session, business, mode, role, manages, detail, values, error, saved }: BusinessFrame & {
  manages: boolean;
  detail: AgentConnectionDetail;
  /** What the form shows: the policy, or what the person typed when it was refused. */
  values: PolicyValues;
  error?: string | undefined;
  saved?: boolean;
}): VNode {
  const { connection } = detail;
  const action = objectPath(business.id, 'agents', mode, connection.id, '/policy');
  const connected = connection.disconnected === null;
  return DashboardPage({
    title: 'Connected agent',
    session,
    frame: { business, mode, role },
    area: 'agents',
    children: html`<div>
      <p><a href=${businessPath(business.id, 'agents', mode)}>Connected agents</a></p>
      <h1>${agentName(connection)}</h1>
      <p>${connection.access === 'full' ? 'Full access' : 'Read only'} · approved by ${connection.approved_by.email} · ${ConnectionBadge({ connected })}</p>
      ${saved && Notice({ tone: 'success', children: 'The policy is saved: it applies from the agent\'s next call.' })}
      <h2>Today</h2>
      ${Table({
        label: 'What the agent created today',
        columns: ['Currency', 'Created today', 'Most a day', 'Most per payment'],
        rows: detail.limits.map((limit) => [limit.currency, limit.created_today, limit.per_day, limit.per_object]),
        empty: 'The agent may not create amounts in any currency.',
      })}
      <p class="muted">${detail.live_needs_approval ? 'Each of its Live creates and changes waits for a person\'s approval.' : 'Its Live creates and changes within these limits are done without asking.'}</p>
      <h2>Approval requests</h2>
      ${ApprovalsTable({ label: 'Approval requests', approvals: detail.approvals, empty: 'The agent has not asked for anything beyond its policy.' })}
      ${manages && connected && html`<div>
        <h2>Change the policy</h2>
        ${Form({ action, label: 'Change the agent\'s policy', children: [
          PolicyFields({ values, error }),
          Button({ variant: 'primary', children: 'Save the policy' }),
        ] })}
      </div>`}
    </div>`,
  });
}

export function approvalPage({ session, business, mode, role, manages, approval, connection, error }: BusinessFrame & {
  manages: boolean;
  approval: AgentApprovalOut;
  connection: AgentConnectionOut;
  error?: string | undefined;
}): VNode {
  const action = `${approval.path}/decide`;
  // The amount as the service resolved it when the agent asked (a checkout's price, a link's amount): what an approval binds.
  const amount = approval.amount !== null && approval.currency !== null ? `${approval.amount} ${approval.currency}` : null;
  return DashboardPage({
    title: 'An agent asks for approval',
    session,
    frame: { business, mode, role },
    area: 'agents',
    children: html`<div>
      <p><a href=${objectPath(business.id, 'agents', mode, connection.id)}>The agent's page</a></p>
      <h1>${operationName(approval.operation)}${amount && `: ${amount}`}</h1>
      <p>${agentName(connection)} asked at ${Time({ at: approval.created })} to do this in ${mode === 'live' ? 'Live mode (real money)' : 'Test mode'}. It needs a person because: ${approval.reasons.join('; ')}.</p>
      <p class="state-actions">${ApprovalBadge({ status: approval.status })}
        ${approval.decided_by && html`<span>Decided by ${approval.decided_by}${approval.decided && html`, ${Time({ at: approval.decided })}`}.</span>`}
        ${approval.status === 'pending' || approval.status === 'approved' ? html`<span>It expires at ${Time({ at: approval.expires })}.</span>` : null}</p>
      ${error && Notice({ tone: 'error', children: error })}
      <h2>Exactly what it asked (<code>${approval.operation}</code>)</h2>
      <dl class="arguments">${Object.entries(approval.arguments).map(([name, value]) => html`<div>
        <dt><code>${name}</code></dt>
        <dd>${typeof value === 'string' ? html`<span class="argument">${value}</span>` : html`<pre>${JSON.stringify(value, null, 2)}</pre>`}</dd>
      </div>`)}</dl>
      <p class="muted">An approval allows this one call with these arguments${amount && `, for ${amount}`}, once. If what it would create comes to another amount when the agent repeats it (a checkout's price changed), the approval does not apply. Anything else the agent asks needs its own approval.</p>
      ${manages && approval.status === 'pending' && Form({ action, label: 'Decide', children: [
        Button({ variant: 'primary', name: 'decision', value: 'approve', children: 'Approve this call' }),
        ' ',
        Button({ variant: 'danger', name: 'decision', value: 'decline', children: 'Decline' }),
      ] })}
      ${manages && approval.status === 'approved' && Form({ action, label: 'Withdraw', children: [
        html`<p>The agent has not used this approval yet. Withdraw it, and the call is refused when the agent makes it.</p>`,
        Button({ variant: 'danger', name: 'decision', value: 'withdraw', children: 'Withdraw this approval' }),
      ] })}
      ${!manages && (approval.status === 'pending' || approval.status === 'approved') && html`<p>Only the business's owners and developers can decide.</p>`}
    </div>`,
  });
}
