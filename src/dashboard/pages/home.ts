import type { VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { Button, Form, html, Notice, Table, TextField } from '../../ui/index.ts';
import { businessPath } from '../paths.ts';
import { DashboardPage } from './frame.ts';

/** The businesses the person belongs to, with their role in each. */
export function homePage(session: DashboardSession, businesses: Array<{ id: string; name: string; role: string }>, zone?: { saved?: boolean; error?: string; typed?: string }): VNode {
  const rows = businesses.map((b) => [b.name, b.role, html`<span>
    <a href=${businessPath(b.id, 'home', 'test')} aria-label=${`${b.name} in Test mode`}>Test</a>
    ${' · '}<a href=${businessPath(b.id, 'home', 'live')} aria-label=${`${b.name} in Live mode`}>Live</a>
  </span>`]);
  return DashboardPage({
    title: 'Businesses',
    session,
    children: html`<div>
      <h1>Your businesses</h1>
      ${Table({ label: 'Your businesses', columns: ['Business', 'Your role', 'Go to'], rows, empty: 'You belong to no business yet.' })}
      <section aria-labelledby="zone-heading">
        <h2 id="zone-heading">Your time zone</h2>
        ${zone?.saved && Notice({ tone: 'success', children: 'Saved: times are shown in your time zone, the exact UTC time on hover.' })}
        ${Form({ action: '/dashboard/time-zone', label: 'Your time zone', children: [
          TextField({ name: 'time_zone', label: 'Time zone', hint: 'As in Europe/Berlin or America/New_York; UTC for none.', value: zone?.typed ?? session.timeZone, maxLength: 64, error: zone?.error, autocomplete: 'off' }),
          Button({ children: 'Save time zone' }),
        ] })}
      </section>
    </div>`,
  });
}
