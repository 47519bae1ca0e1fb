import type { ComponentChildren, VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { Button, Form, html, Layout, Time } from '../../ui/index.ts';
import { businessPath, DASHBOARD } from '../paths.ts';
import type { Mode } from '../requests.ts';

// The frame around every dashboard page: who is signed in and the way out; inside a business its
// areas, the Test/Live switch, and the Test-mode banner.

export interface BusinessFrame {
  session: DashboardSession;
  business: { id: string; name: string };
  mode: Mode;
}

/** A time as the API gives it (Unix seconds), or a dash for none. */
export function unixTime(seconds: number | null): VNode | string {
  return seconds === null ? '–' : Time({ at: new Date(seconds * 1000) });
}

const MODE_NAMES: Record<Mode, string> = { test: 'Test', live: 'Live' };

/** A business's areas in the mode shown, and the way to the other mode. */
export function businessNav(business: { id: string; name: string }, mode: Mode): VNode {
  const other: Mode = mode === 'test' ? 'live' : 'test';
  return html`<p class="muted">
    ${business.name} · ${MODE_NAMES[mode]}:
    ${' '}<a href=${businessPath(business.id, 'agents', mode)}>Connected agents</a>
    ${' · '}<a href=${businessPath(business.id, 'keys', mode)}>API keys</a>
    ${' · '}<a href=${businessPath(business.id, 'team', mode)}>Team</a>
    ${' · '}<a href=${businessPath(business.id, 'keys', other)}>Switch to ${MODE_NAMES[other]}</a>
  </p>`;
}

/** A page of the dashboard: signed in or not, in a business (and mode) or not. */
export function DashboardPage({ title, session, frame, children }: {
  title: string;
  session?: DashboardSession | undefined;
  frame?: Omit<BusinessFrame, 'session'>;
  children: ComponentChildren;
}): VNode {
  const nav = session && html`<span>
    <a href=${DASHBOARD}>Businesses</a>
    ${' '}${Form({ action: '/dashboard/sign-out', label: 'Sign out', children: Button({ children: `Sign out ${session.email}` }) })}
  </span>`;
  return Layout({
    title,
    nav,
    testModeBanner: frame?.mode === 'test' ? 'Test mode: test data only; no real money moves.' : undefined,
    children: html`<div>${frame && businessNav(frame.business, frame.mode)}${children}</div>`,
  });
}
