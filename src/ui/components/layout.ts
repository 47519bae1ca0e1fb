import type { ComponentChildren, VNode } from 'preact';
import { STYLESHEET_PATH } from '../assets.ts';
import { html } from '../render.ts';

export interface LayoutProps {
  /** The page's own name; the document title is "<title> · Payment Service". */
  title: string;
  /** Links (and the sign-out form) in the header. */
  nav?: ComponentChildren;
  /** Shown above everything while the viewer works in Test mode: what Test means on this page. */
  testModeBanner?: ComponentChildren;
  lang?: string;
  children?: ComponentChildren;
}

/**
 * The document around every page: head, skip link, header and main landmark. The Test-mode
 * banner is inside the header, so a person moving by landmarks meets it too.
 */
export function Layout({ title, nav, testModeBanner, lang = 'en', children }: LayoutProps): VNode {
  return html`<html lang=${lang}>
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · Payment Service</title>
      <link rel="stylesheet" href=${STYLESHEET_PATH} />
    </head>
    <body>
      <a class="skip-link" href="#main">Skip to main content</a>
      <header>
        ${testModeBanner != null && html`<div class="test-mode-banner" role="note">${testModeBanner}</div>`}
        <div class="site-header">
          <span class="brand">Payment Service</span>
          ${nav != null && html`<nav aria-label="Main">${nav}</nav>`}
        </div>
      </header>
      <main id="main" tabindex="-1">${children}</main>
    </body>
  </html>`;
}
