import { escapeHtml, hidden } from '../../core/html.ts';
import type { AgentConnectionOut } from '../../resources/agent-connections/schemas.ts';
import { businessPath } from '../paths.ts';
import { businessNav, signedInPage, type BusinessFrame } from './frame.ts';
import { when } from './time.ts';

/** The agents connected to one business in one mode, who approved each, and Disconnect. */
export function agentsPage(frame: BusinessFrame & { manages: boolean; connections: AgentConnectionOut[] }): string {
  const { session, business, mode, manages, connections } = frame;
  const action = businessPath(business.id, 'agents', mode);
  const rows = connections.map((c) => `<tr><td>${escapeHtml(c.client_name ?? c.client_id)}</td><td>${c.livemode ? 'Live' : 'Test'}</td>
<td>${c.access === 'full' ? 'Full access' : 'Read only'}</td><td>${escapeHtml(c.approved_by.email)}, ${when(c.created)}</td><td>${when(c.last_used)}</td>
<td>${c.disconnected !== null ? `Disconnected ${when(c.disconnected)}` : manages
    ? `<form method="post" action="${action}/${encodeURIComponent(c.id)}/disconnect">${hidden('csrf', session.csrfToken)}<button>Disconnect</button></form>` : 'Connected'}</td></tr>`).join('');
  return signedInPage(session, 'Connected agents', `<h1>${escapeHtml(business.name)}: connected agents</h1>${businessNav(frame)}
<table><tr><th>Agent</th><th>Mode</th><th>Access</th><th>Approved by</th><th>Last used</th><th></th></tr>${rows || '<tr><td colspan="6">None yet.</td></tr>'}</table>`);
}
