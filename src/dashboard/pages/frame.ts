import { escapeHtml, hidden, page } from '../../core/html.ts';
import type { DashboardSession } from '../../auth/sessions.ts';
import { businessPath } from '../paths.ts';
import type { Mode } from '../requests.ts';

// The frame around every signed-in page: who is signed in, the way out, and inside a business
// its areas and the Test/Live switch.

export function signedInPage(session: DashboardSession, title: string, body: string): string {
  const nav = `<nav><a href="/dashboard">Businesses</a><form method="post" action="/dashboard/sign-out" style="display:inline">${hidden('csrf', session.csrfToken)}<button>Sign out ${escapeHtml(session.email)}</button></form></nav>`;
  return page(title, body, nav);
}

export interface BusinessFrame {
  session: DashboardSession;
  business: { id: string; name: string };
  mode: Mode;
}

/** A business's areas, in the mode shown, and the way to the other mode. */
export function businessNav(frame: Pick<BusinessFrame, 'business' | 'mode'>): string {
  const { business, mode } = frame;
  const other: Mode = mode === 'test' ? 'live' : 'test';
  return `<p class="note">${escapeHtml(business.name)} (${mode === 'test' ? 'Test' : 'Live'}): <a href="${businessPath(business.id, 'agents', mode)}">Connected agents</a> · <a href="${businessPath(business.id, 'keys', mode)}">API keys</a> · <a href="${businessPath(business.id, 'team')}">Team</a> · <a href="${businessPath(business.id, 'keys', other)}">Switch to ${other === 'test' ? 'Test' : 'Live'}</a></p>`;
}

export function messagePage(title: string, text: string, session?: DashboardSession): string {
  const body = `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p><p><a href="/dashboard">Back</a></p>`;
  return session ? signedInPage(session, title, body) : page(title, body);
}
