import { escapeHtml, hidden } from '../../core/html.ts';
import type { ApiKeyOut } from '../../resources/api-keys/schemas.ts';
import { businessPath } from '../paths.ts';
import { businessNav, signedInPage, type BusinessFrame } from './frame.ts';
import { when } from './time.ts';

/** The secret keys of one business and mode; a new key's secret is shown this once. */
export function keysPage(frame: BusinessFrame & { manages: boolean; keys: ApiKeyOut[]; created?: { secret: string; name: string | null } }): string {
  const { session, business, mode, manages, keys, created } = frame;
  const action = businessPath(business.id, 'keys', mode);
  const rows = keys.map((key) => `<tr><td>${escapeHtml(key.name ?? '')}</td><td><code>${escapeHtml(key.hint)}</code></td><td>${key.livemode ? 'Live' : 'Test'}</td>
<td>${key.access === 'full' ? 'Full access' : 'Read only'}${key.kind === 'api' ? '' : ` (${escapeHtml(key.kind)})`}<br><span class="note">${escapeHtml(key.scopes.join(' '))}</span></td>
<td>${when(key.created)}</td><td>${when(key.last_used)}</td><td>${key.revoked !== null ? `Revoked ${when(key.revoked)}` : manages
    ? `<form method="post" action="${action}/${encodeURIComponent(key.id)}/revoke">${hidden('csrf', session.csrfToken)}<button>Revoke</button></form>` : 'Active'}</td></tr>`).join('');
  const secret = created ? `<p class="warn">The new key${created.name ? ` “${escapeHtml(created.name)}”` : ''} is shown this once; copy it now:</p><p><code>${escapeHtml(created.secret)}</code></p>` : '';
  const form = manages ? `<h2>Create a key</h2><form method="post" action="${action}">${hidden('csrf', session.csrfToken)}
<label>Name <input name="name" maxlength="80"></label>
<fieldset><legend>Access</legend><label><input type="radio" name="access" value="full" checked> Full access</label> <label><input type="radio" name="access" value="read_only"> Read only</label></fieldset>
<button>Create ${mode === 'live' ? 'Live' : 'Test'} key</button></form>` : '<p class="note">Only owners and developers manage keys.</p>';
  return signedInPage(session, 'API keys', `<h1>${escapeHtml(business.name)}: API keys</h1>${businessNav(frame)}${secret}
<table><tr><th>Name</th><th>Key</th><th>Mode</th><th>Access</th><th>Created</th><th>Last used</th><th></th></tr>${rows || '<tr><td colspan="7">None yet.</td></tr>'}</table>${form}`);
}
