import { escapeHtml } from '../../core/html.ts';
import type { DashboardSession } from '../../auth/sessions.ts';
import { businessNav, signedInPage } from './frame.ts';

/** The businesses the person belongs to, with their role in each. */
export function homePage(session: DashboardSession, businesses: Array<{ id: string; name: string; role: string }>): string {
  const rows = businesses.map((b) => `<tr><td>${escapeHtml(b.name)}</td><td>${escapeHtml(b.role)}</td><td>${businessNav({ business: b, mode: 'test' })}</td></tr>`).join('');
  return signedInPage(session, 'Businesses', `<h1>Your businesses</h1><table><tr><th>Business</th><th>Role</th><th></th></tr>${rows}</table>`);
}
