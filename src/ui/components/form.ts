import type { ComponentChildren, VNode } from 'preact';
import { html, useViewer } from '../render.ts';

/** The form field every posted form carries; the dashboard checks it against the session's token. */
export const CSRF_FIELD = 'csrf';

/** Reads the token at render time; a form rendered for a viewer without one throws. */
function CsrfField(): VNode {
  const { csrfToken } = useViewer();
  if (!csrfToken) throw new Error('A Form needs the session\'s CSRF token: pass { csrfToken } to renderPage.');
  return html`<input type="hidden" name=${CSRF_FIELD} value=${csrfToken} />`;
}

export interface FormProps {
  action: string;
  /** Names the form for assistive technology when several share a page (e.g. "Revoke key sk_…"). */
  label?: string;
  /** multipart/form-data for a form with a file (the handler's scope must take it). */
  enctype?: 'multipart/form-data';
  children?: ComponentChildren;
}

/**
 * A form with a file: the token also in its address, so the server refuses a stranger's upload
 * before reading a byte of its body (the body's token is checked as every form's).
 */
function MultipartForm({ action, label, children }: Omit<FormProps, 'enctype'>): VNode {
  const { csrfToken } = useViewer();
  if (!csrfToken) throw new Error('A Form needs the session\'s CSRF token: pass { csrfToken } to renderPage.');
  const address = `${action}${action.includes('?') ? '&' : '?'}${CSRF_FIELD}=${encodeURIComponent(csrfToken)}`;
  return html`<form method="post" action=${address} aria-label=${label} enctype="multipart/form-data"><${CsrfField} />${children}</form>`;
}

/** A form posted to `action`, carrying the session's CSRF token. */
export function Form({ action, label, enctype, children }: FormProps): VNode {
  if (enctype === 'multipart/form-data') return html`<${MultipartForm} action=${action} label=${label}>${children}</${MultipartForm}>`;
  return html`<form method="post" action=${action} aria-label=${label}><${CsrfField} />${children}</form>`;
}

/** A form that asks for a page (filters, a search): sent by GET, so it changes nothing and carries no token. */
export function SearchForm({ action, label, children }: { action: string; label: string; children?: ComponentChildren }): VNode {
  return html`<form method="get" action=${action} role="search" aria-label=${label} class="search-form">${children}</form>`;
}

export interface ButtonProps {
  /** primary: the page's one main action; danger: what cannot be undone. */
  variant?: 'primary' | 'secondary' | 'danger';
  type?: 'submit' | 'button';
  /** Sent with the form when this button submits it (e.g. decision=approve). */
  name?: string;
  value?: string;
  children?: ComponentChildren;
}

export function Button({ variant = 'secondary', type = 'submit', name, value, children }: ButtonProps): VNode {
  return html`<button class=${`button ${variant}`} type=${type} name=${name} value=${value}>${children}</button>`;
}
