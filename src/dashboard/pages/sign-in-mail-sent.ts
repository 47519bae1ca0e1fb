import type { VNode } from 'preact';
import { html } from '../../ui/index.ts';
import { DashboardPage } from './frame.ts';

/**
 * After asking for a sign-in link by email. The same words whether or not the address has an
 * account, so the page tells no one who has one.
 */
export function signInMailSentPage({ email }: { email: string }): VNode {
  return DashboardPage({
    title: 'Check your email',
    children: html`<div>
      <h1>Check your email</h1>
      <p>If <strong>${email}</strong> belongs to someone with a dashboard account, a sign-in link is on its way to it.
        It signs in once, within 15 minutes.</p>
      <p>Nothing after a few minutes? Check the address and your spam folder, <a href="/dashboard/sign-in">ask again</a>, or ask your operator for a link.</p>
    </div>`,
  });
}
