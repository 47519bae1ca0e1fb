import type { VNode } from 'preact';
import { APPROVE_PATH } from '../../agents/authorization.ts';
import type { DashboardSession } from '../../auth/sessions.ts';
import { READ_ONLY_SCOPES, SCOPE_DESCRIPTIONS } from '../../auth/scopes.ts';
import { Button, Form, html, RadioGroup, Select } from '../../ui/index.ts';
import { DashboardPage } from './frame.ts';
import { DEFAULT_POLICY_VALUES, PolicyFields } from './agent-policy.ts';

const SCOPE_WORDS: Record<string, string> = SCOPE_DESCRIPTIONS;

export interface ApprovalRequest {
  id: string;
  clientName: string | null;
  clientId: string;
  /** Set when the client is known by the metadata document at its client_id URL. */
  describedAt: string | null;
  redirectUri: string;
  scopes: string[];
  resource: string;
}

/**
 * An agent asks to act for one of the person's businesses: who it says it is (unverified), where
 * the answer goes, what it asks for; the person picks business, mode and access, or denies.
 */
export function approvePage(session: DashboardSession, request: ApprovalRequest, businesses: Array<{ id: string; name: string }>): VNode {
  // An app's own scheme says nothing about where it runs: show it whole, as an app on the device.
  const target = new URL(request.redirectUri);
  const redirectHost = target.protocol === 'https:' || target.protocol === 'http:' ? target.host : `${request.redirectUri} (an application on this device)`;
  const readOnlyGrantsSome = request.scopes.some((scope) => (READ_ONLY_SCOPES as readonly string[]).includes(scope));
  const requestField = html`<input type="hidden" name="request" value=${request.id} />`;
  const choices = businesses.length === 0
    ? html`<div>
        <p>You do not manage keys in any business, so you cannot connect agents.</p>
        ${Form({ action: APPROVE_PATH, label: 'Deny the agent', children: [requestField, Button({ name: 'decision', value: 'deny', children: 'Deny' })] })}
      </div>`
    : Form({ action: APPROVE_PATH, label: 'Connect the agent', children: [
      requestField,
      Select({ name: 'business', label: 'Business', options: businesses.map((b) => ({ value: b.id, label: b.name })) }),
      RadioGroup({ name: 'mode', legend: 'Mode', value: 'test', choices: [{ value: 'test', label: 'Test' }, { value: 'live', label: 'Live (real money)' }] }),
      RadioGroup({ name: 'access', legend: 'Access', value: 'full', choices: [
        { value: 'full', label: 'Full access' },
        { value: 'read_only', label: `Read only${readOnlyGrantsSome ? '' : ' (grants nothing this agent asked for)'}` },
      ] }),
      PolicyFields({ values: DEFAULT_POLICY_VALUES }),
      Button({ variant: 'primary', name: 'decision', value: 'approve', children: 'Approve' }),
      Button({ name: 'decision', value: 'deny', children: 'Deny' }),
    ] });
  return DashboardPage({
    title: 'Connect an agent',
    session,
    children: html`<div>
      <h1>Connect an agent?</h1>
      <p><strong><bdi>${request.clientName ?? request.clientId}</bdi></strong> <span class="muted">(unverified: the name is what the application says about itself)</span> wants to act for one of your businesses.</p>
      <p>It will receive the answer at <code>${redirectHost}</code>${request.describedAt && html`<span>, and is described at <code>${request.describedAt}</code></span>`}.</p>
      <p>It asks to:</p>
      <ul>${request.scopes.map((scope) => html`<li>${SCOPE_WORDS[scope] ?? scope} <span class="muted">(${scope})</span></li>`)}</ul>
      <p class="muted">For: ${request.resource}</p>
      ${choices}
    </div>`,
  });
}
