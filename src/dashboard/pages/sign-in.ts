import type { VNode } from 'preact';
import { RECENT_SIGN_IN_MS } from '../../auth/sessions.ts';
import { Button, html, TextField } from '../../ui/index.ts';
import { DashboardPage } from './frame.ts';

/** The "email me a sign-in link" form, where mail is sent (SMTP_URL set). */
export interface SignInByMail {
  /** The form's nonce (also in a cookie): the form is posted before there is a session. */
  nonce: string;
  /** The address as typed, when it was refused. */
  email?: string;
  error?: string;
}

/**
 * How to sign in: the OpenID provider when one is configured; a sign-in link by email when the
 * service sends mail, or else from the operator (the page says which).
 */
export function signInPage({ next, oidc, mail, again = false }: {
  next: string; oidc?: { name: string; start: string }; mail?: SignInByMail;
  /** What the person is doing needs a recent sign-in (changing the payout wallet): they sign in again, the provider asking too. */
  again?: boolean;
}): VNode {
  return DashboardPage({
    title: again ? 'Sign in again' : 'Sign in',
    children: html`<div>
      <h1>${again ? 'Sign in again' : 'Sign in'}</h1>
      ${again && html`<p>What you are about to do needs a sign-in within the last ${RECENT_SIGN_IN_MS / 60_000} minutes. Nothing was changed yet: after signing in you come back to confirm it.</p>`}
      ${oidc && html`<p><a class="button primary" href=${`${oidc.start}?next=${encodeURIComponent(next)}${again ? '&again=1' : ''}`}>Sign in with ${oidc.name}</a></p>`}
      ${mail
        ? html`<form method="post" action="/dashboard/sign-in/link" aria-label="Email me a sign-in link">
            <input type="hidden" name="nonce" value=${mail.nonce} />
            <input type="hidden" name="next" value=${next} />
            <${TextField} name="email" type="email" label=${oidc ? 'Or get a sign-in link by email' : 'Your email address'} required=${true}
              autocomplete="email" maxLength=${254} value=${mail.email} error=${mail.error}
              hint="If the address belongs to someone with a dashboard account, a link that signs in once, within 15 minutes, is sent to it." />
            <${Button} variant=${oidc ? 'secondary' : 'primary'}>Email me a sign-in link<//>
          </form>
          <p class="muted">Your operator can also make you a sign-in link.</p>`
        : html`<p>This service does not send email (no SMTP server is configured), so sign-in links are not mailed.</p>
          <p>${oidc ? 'Or ask' : 'Ask'} your operator for a sign-in link, or make one on the server:</p>
          <p><code>npm run --silent cli -- login-link --email you@example.com</code></p>`}
      <p class="muted">After signing in you will come back to <code>${next}</code>.</p>
    </div>`,
  });
}
