import { escapeHtml, hidden } from '../../core/html.ts';
import type { MemberOut } from '../../resources/team/schemas.ts';
import { ROLES } from '../../tenancy/roles.ts';
import { businessPath } from '../paths.ts';
import { businessNav, signedInPage, type BusinessFrame } from './frame.ts';

/** The people of a business and their roles; owners add people and change roles. */
export function teamPage(frame: BusinessFrame & { isOwner: boolean; members: MemberOut[] }): string {
  const { session, business, isOwner, members } = frame;
  const rows = members.map((m) => `<tr><td>${escapeHtml(m.email)}</td><td>${escapeHtml(m.role)}</td><td>${m.manages_keys ? 'Manages keys and agents' : ''}</td></tr>`).join('');
  const options = ROLES.map((role) => `<option value="${role}">${role}</option>`).join('');
  const form = isOwner ? `<h2>Add a person or change a role</h2><form method="post" action="${businessPath(business.id, 'team')}">${hidden('csrf', session.csrfToken)}
<label>Email <input name="email" type="email" required></label> <label>Role <select name="role">${options}</select></label> <button>Save</button></form>
<p class="note">Owners and developers manage keys and connect agents. Taking that away disconnects the agents the person approved.</p>` : '<p class="note">Only owners change roles.</p>';
  return signedInPage(session, 'Team', `<h1>${escapeHtml(business.name)}: team</h1>${businessNav(frame)}<table><tr><th>Person</th><th>Role</th><th></th></tr>${rows}</table>${form}`);
}
