import type { VNode } from 'preact';
import { html } from '../../ui/index.ts';
import { DashboardPage } from './frame.ts';

/**
 * A sign-in link shows only a button: mail scanners that open links must not use them up. The
 * form's own nonce (also in a cookie) stands in for the CSRF token a session would give.
 */
export function signInLinkPage({ token, nonce, next }: { token: string; nonce: string; next: string }): VNode {
  return DashboardPage({
    title: 'Sign in',
    children: html`<div>
      <h1>Sign in to the dashboard</h1>
      <form method="post" action="/dashboard/sign-in/link" aria-label="Sign in">
        <input type="hidden" name="token" value=${token} />
        <input type="hidden" name="nonce" value=${nonce} />
        <input type="hidden" name="next" value=${next} />
        <button class="button primary" type="submit">Continue</button>
      </form>
    </div>`,
  });
}
