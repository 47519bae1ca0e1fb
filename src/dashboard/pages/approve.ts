import { APPROVE_PATH } from '../../agents/authorization.ts';
import type { DashboardSession } from '../../auth/sessions.ts';
import { READ_ONLY_SCOPES } from '../../auth/scopes.ts';
import { escapeHtml, hidden } from '../../core/html.ts';
import { signedInPage } from './frame.ts';

const SCOPE_WORDS: Record<string, string> = {
  'payments:read': 'read payments, payment links, checkouts and checkout sessions',
  'checkouts:write': 'create payment links, checkouts and checkout sessions, and simulate Test payments',
  'orders:read': 'read orders',
  'orders:write': 'update orders and report cancellations and refunds',
  'customers:read': 'read customers',
};

export interface ApprovalRequest {
  id: string;
  clientName: string | null;
  clientId: string;
  /** Whether the client is known by a metadata document at its client_id URL. */
  describedAt: string | null;
  redirectUri: string;
  scopes: string[];
  resource: string;
}

/**
 * An agent asks to act for one of the person's businesses: who it says it is (unverified), where
 * the answer goes, what it asks for; the person picks business, mode and access, or denies.
 */
export function approvePage(session: DashboardSession, request: ApprovalRequest, businesses: Array<{ id: string; name: string }>): string {
  // An app's own scheme says nothing about where it runs: show it whole, as an app on the device.
  const target = new URL(request.redirectUri);
  const redirectHost = target.protocol === 'https:' || target.protocol === 'http:' ? target.host : `${request.redirectUri} (an application on this device)`;
  const asks = request.scopes.map((scope) => `<li>${escapeHtml(SCOPE_WORDS[scope] ?? scope)} <span class="note">(${escapeHtml(scope)})</span></li>`).join('');
  const readOnly = request.scopes.filter((scope) => (READ_ONLY_SCOPES as readonly string[]).includes(scope));
  const intro = `<h1>Connect an agent?</h1>
<p><strong>${escapeHtml(request.clientName ?? request.clientId)}</strong> <span class="warn">(unverified: the name is what the application says about itself)</span> wants to act for one of your businesses.</p>
<p>It will receive the answer at <code>${escapeHtml(redirectHost)}</code>${request.describedAt ? `, and is described at <code>${escapeHtml(request.describedAt)}</code>` : ''}.</p>
<p>It asks to:</p><ul>${asks}</ul><p class="note">For: ${escapeHtml(request.resource)}</p>`;
  if (businesses.length === 0) {
    return signedInPage(session, 'Connect an agent', `${intro}<p>You do not manage keys in any business, so you cannot connect agents.</p>
<form method="post" action="${APPROVE_PATH}">${hidden('csrf', session.csrfToken)}${hidden('request', request.id)}<button name="decision" value="deny">Deny</button></form>`);
  }
  const options = businesses.map((b) => `<option value="${escapeHtml(b.id)}">${escapeHtml(b.name)}</option>`).join('');
  return signedInPage(session, 'Connect an agent', `${intro}
<form method="post" action="${APPROVE_PATH}">${hidden('csrf', session.csrfToken)}${hidden('request', request.id)}
<fieldset><legend>Business</legend><select name="business">${options}</select></fieldset>
<fieldset><legend>Mode</legend><label><input type="radio" name="mode" value="test" checked> Test</label> <label><input type="radio" name="mode" value="live"> Live (real money)</label></fieldset>
<fieldset><legend>Access</legend><label><input type="radio" name="access" value="full" checked> Full access</label>
<label><input type="radio" name="access" value="read_only"> Read only${readOnly.length === 0 ? ' (grants nothing this agent asked for)' : ''}</label></fieldset>
<button name="decision" value="approve">Approve</button><button name="decision" value="deny">Deny</button></form>`);
}
