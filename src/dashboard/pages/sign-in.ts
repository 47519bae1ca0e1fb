import type { VNode } from 'preact';
import { html } from '../../ui/index.ts';
import { DashboardPage } from './frame.ts';

/** How to sign in: the OpenID provider when one is configured, or a sign-in link from the operator. */
export function signInPage({ next, oidc }: { next: string; oidc?: { name: string; start: string } }): VNode {
  return DashboardPage({
    title: 'Sign in',
    children: html`<div>
      <h1>Sign in</h1>
      ${oidc && html`<p><a class="button primary" href=${`${oidc.start}?next=${encodeURIComponent(next)}`}>Sign in with ${oidc.name}</a></p>`}
      <p>${oidc ? 'Or ask' : 'Ask'} your operator for a sign-in link, or make one on the server:</p>
      <p><code>npm run --silent cli -- login-link --email you@example.com</code></p>
      <p class="muted">After signing in you will come back to <code>${next}</code>.</p>
    </div>`,
  });
}
