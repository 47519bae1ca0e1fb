import type { VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { html, Table } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';
import { DashboardPage } from './frame.ts';

/** The businesses the person belongs to, with their role in each. */
export function homePage(session: DashboardSession, businesses: Array<{ id: string; name: string; role: string }>): VNode {
  const rows = businesses.map((b) => [b.name, b.role, html`<span>
    <a href=${businessPath(b.id, 'payments', 'test')} aria-label=${`${b.name} in Test mode`}>Test</a>
    ${' · '}<a href=${businessPath(b.id, 'payments', 'live')} aria-label=${`${b.name} in Live mode`}>Live</a>
  </span>`]);
  return DashboardPage({
    title: 'Businesses',
    session,
    children: html`<div>
      <h1>Your businesses</h1>
      ${Table({ label: 'Your businesses', columns: ['Business', 'Your role', 'Go to'], rows, empty: 'You belong to no business yet.' })}
    </div>`,
  });
}
