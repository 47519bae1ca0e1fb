import type { VNode } from 'preact';
import type { DashboardSession } from '../../auth/sessions.ts';
import { html } from '../../ui/index.ts';
import { DASHBOARD } from '../paths.ts';
import { DashboardPage } from './frame.ts';

/** What went wrong (or what to do next), in a sentence. */
export function messagePage(title: string, text: string, session?: DashboardSession): VNode {
  return DashboardPage({ title, session, children: html`<div><h1>${title}</h1><p>${text}</p><p><a href=${DASHBOARD}>Back to the dashboard</a></p></div>` });
}
