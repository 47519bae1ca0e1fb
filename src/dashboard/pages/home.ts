import type { VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { html, Table } from '../../ui/index.ts';
import { DashboardPage, businessNav } from './frame.ts';

/** The businesses the person belongs to, with their role in each. */
export function homePage(session: DashboardSession, businesses: Array<{ id: string; name: string; role: string }>): VNode {
  const rows = businesses.map((b) => [b.name, b.role, businessNav(b, 'test')]);
  return DashboardPage({
    title: 'Businesses',
    session,
    children: html`<div>
      <h1>Your businesses</h1>
      ${Table({ label: 'Your businesses', columns: ['Business', 'Your role', 'Go to'], rows, empty: 'You belong to no business yet.' })}
    </div>`,
  });
}
