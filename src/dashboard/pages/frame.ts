import type { ComponentChildren, VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { Button, Form, html, Layout, Notice, Time } from '../../ui/index.ts';
import type { AccountStatus, Role } from '../../db/schema.ts';
import { AREA_NAMES, businessPath, DASHBOARD, NAV_GROUPS, type BusinessArea, type NavLink } from '../paths.ts';
import type { Mode } from '../requests.ts';
import { DASHBOARD_SCRIPT_PATH } from '../assets.ts';

// The frame around every dashboard page: who is signed in and the way out; inside a business its
// areas, the Test/Live switch, and the Test-mode banner.

export interface BusinessFrame {
  session: DashboardSession;
  /** status: a suspended or archived account's pages say so above everything else. */
  business: { id: string; name: string; status?: AccountStatus };
  mode: Mode;
  /** The person's role here, shown beside the business. */
  role?: Role;
}

/** A time as the API gives it (Unix seconds), or a dash for none. */
export function unixTime(seconds: number | null): VNode | string {
  return seconds === null ? '–' : Time({ at: new Date(seconds * 1000) });
}

/** What people of an account they cannot change may still do (the actions' `withdraws`). */
const READ_ONLY_NOTICE: Record<Exclude<AccountStatus, 'active'>, string> = {
  suspended: 'This account is suspended: you can read everything here and change nothing. Revoking keys, disconnecting agents, removing webhook endpoints and erasing a customer still work.',
  archived: 'This account is archived: you can read everything here and change nothing. Revoking keys, disconnecting agents, removing webhook endpoints and erasing a customer still work.',
};

export const MODE_NAMES: Record<Mode, string> = { test: 'Test', live: 'Live' };

/** Where a navigation link goes, and whether it is the page shown (an area's first link). */
function NavItem({ businessId, mode, link, current }: { businessId: string; mode: Mode; link: NavLink; current: boolean }): VNode {
  return html`<li><a href=${businessPath(businessId, link.area, mode) + (link.rest ?? '')} aria-current=${current ? 'page' : undefined}>${link.name}</a></li>`;
}

/**
 * A business's navigation in the mode shown: one bar with the business, its mode, the person's
 * role and the way to the other mode; then Home and the groups of areas. Without script: on a
 * desktop each group is a disclosure (<details>, one open at a time), on a phone everything
 * folds into one Menu disclosure. The two lists are the same links; CSS shows one of them.
 */
function BusinessNav({ business, mode, role, area, place }: Omit<BusinessFrame, 'session'> & { area: BusinessArea | undefined; place: string | undefined }): VNode {
  const other: Mode = mode === 'test' ? 'live' : 'test';
  const item = (link: NavLink) => NavItem({ businessId: business.id, mode, link, current: link.area === area && link.rest === place });
  const home = item({ area: 'home', name: AREA_NAMES.home });
  return html`<nav class="business-nav" aria-label=${`${business.name}, ${MODE_NAMES[mode]} mode`}>
    <div class="business-bar">
      <p class="business-line"><strong class="business-name">${business.name}</strong>
        ${' '}<span class=${`mode-badge ${mode}`}>${MODE_NAMES[mode]} mode</span>
        ${role && html`<span class="business-role">${' '}you are ${role === 'owner' ? 'an owner' : `a ${role}`}</span>`}</p>
      <a class="mode-switch" href=${businessPath(business.id, area ?? 'home', other)}>Switch to ${MODE_NAMES[other]}</a>
    </div>
    <ul class="nav-groups">
      ${home}
      ${NAV_GROUPS.map((group) => html`<li>
        <details class="nav-group" name="business-nav">
          <summary aria-current=${group.links.some((link) => link.area === area) ? 'true' : undefined}>${group.name}</summary>
          <ul>${group.links.map(item)}</ul>
        </details>
      </li>`)}
    </ul>
    <details class="nav-menu">
      <summary>Menu</summary>
      <ul>
        ${home}
        ${NAV_GROUPS.map((group) => html`<li><span class="nav-group-name">${group.name}</span><ul>${group.links.map(item)}</ul></li>`)}
      </ul>
    </details>
    ${business.status && business.status !== 'active' && Notice({ tone: 'warning', children: READ_ONLY_NOTICE[business.status] })}
  </nav>`;
}

/** A page of the dashboard: signed in or not, in a business (and mode) or not. */
export function DashboardPage({ title, session, frame, area, place, children }: {
  title: string;
  session?: DashboardSession | undefined;
  frame?: Omit<BusinessFrame, 'session'>;
  /** The area the page belongs to, marked in the navigation. */
  area?: BusinessArea;
  /** Which of the area's links the page is, when not its first (the rest of that link: `?kind=pricing_table`). */
  place?: string | undefined;
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
    // The copy buttons' script, on signed-in pages only (signing in runs no script at all).
    scripts: session ? [DASHBOARD_SCRIPT_PATH] : [],
    children: html`<div>${frame && BusinessNav({ ...frame, area, place })}${children}</div>`,
  });
}
