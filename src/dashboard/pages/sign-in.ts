import { escapeHtml, hidden, page } from '../../core/html.ts';

/** How to sign in: the OpenID provider when one is configured, or a sign-in link from the operator. */
export function signInPage(input: { next: string; oidc?: { name: string; start: string } }): string {
  const { next, oidc } = input;
  return page('Sign in', `<h1>Sign in</h1>
${oidc ? `<p><a href="${oidc.start}?next=${encodeURIComponent(next)}">Sign in with ${escapeHtml(oidc.name)}</a></p><p>Or:</p>` : ''}
<p>Ask your operator for a sign-in link, or make one on the server:</p>
<p><code>npm run --silent cli -- login-link --email you@example.com</code></p>
<p class="note">After signing in you will come back to <code>${escapeHtml(next)}</code>.</p>`);
}

/** A sign-in link shows only a button: mail scanners that open links must not use them up. */
export function signInLinkPage(input: { token: string; nonce: string; next: string }): string {
  return page('Sign in', `<h1>Sign in to the dashboard</h1>
<form method="post" action="/dashboard/sign-in/link">${hidden('token', input.token)}${hidden('nonce', input.nonce)}${hidden('next', input.next)}
<button>Continue</button></form>`);
}
