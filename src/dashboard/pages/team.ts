import type { VNode } from 'preact';
import type { MemberOut } from '../../resources/team/schemas.ts';
import { ROLES } from '../../tenancy/roles.ts';
import { Button, Form, html, Notice, Select, Table, TextField } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';
import { DashboardPage, type BusinessFrame } from './frame.ts';
import { NotificationsSection } from './notifications.ts';
import type { NotificationPreferencesOut } from '../../resources/team/notifications.ts';
import { RefusalNotice, type FormRefusal } from '../refusals.ts';

/** The people of a business and their roles; owners add people (a viewer unless chosen otherwise) and change roles. */
export function teamPage({ session, business, mode, role, isOwner, members, saved, notifications, refused }: BusinessFrame & {
  isOwner: boolean;
  members: MemberOut[];
  /** The signed-in person's own mail preferences for this business. */
  notifications: NotificationPreferencesOut;
  /** Who was just added or given a role (once, after the form). */
  saved?: { email: string; role: MemberOut['role'] };
  /** The form refused: what was typed, and why. */
  refused?: { email: string; role: string; error: Omit<FormRefusal, 'status'> };
}): VNode {
  const errorFor = (field: string) => (refused?.error.field === field ? refused.error.message : undefined);
  const placed = refused?.error.field === 'email' || refused?.error.field === 'role';
  const rows = members.map((m) => [m.email, m.role, m.manages_keys ? 'Manages keys and agents' : '']);
  return DashboardPage({
    title: 'Team',
    session,
    frame: { business, mode, role },
    area: 'team',
    children: html`<div>
      <h1>${business.name}: team</h1>
      ${saved && Notice({ tone: 'success', children: html`<p>${saved.email} is now ${saved.role === 'owner' ? 'an' : 'a'} ${saved.role}.</p>` })}
      ${Table({ label: 'Team', columns: ['Person', 'Role', 'Rights'], rows, empty: 'Nobody yet.' })}
      ${isOwner
        ? html`<section aria-labelledby="set-role">
            <h2 id="set-role">Add a person or change a role</h2>
            ${refused && RefusalNotice({ refusal: refused.error, ...(placed ? { placed: 'Nothing was changed: see the field marked below.' } : {}) })}
            ${Form({ action: businessPath(business.id, 'team', mode), label: 'Add a person or change a role', children: [
              TextField({ name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'off', value: refused?.email, error: errorFor('email') }),
              Select({ name: 'role', label: 'Role', value: refused?.role ?? 'viewer', error: errorFor('role'), options: ROLES.map((role) => ({ value: role, label: role })) }),
              Button({ variant: 'primary', children: 'Save' }),
            ] })}
            <p class="muted">Owners and developers manage keys and connect agents. Taking that away disconnects the agents the person approved.</p>
          </section>`
        : html`<p class="muted">Only owners change roles.</p>`}
      ${NotificationsSection({ action: `${businessPath(business.id, 'team', mode)}/notifications`, preferences: notifications })}
    </div>`,
  });
}
