import type { ComponentChildren, VNode } from 'preact';
import { ICON_PATH, STYLESHEET_PATH } from '../assets.ts';
import { html, useViewer } from '../render.ts';

export interface LayoutProps {
  /** The page's own name; the document title is "<title> · <brand>". */
  title: string;
  /** Whose page this is, in the header and the title: the service's name unless a merchant's. */
  brand?: string;
  /** Links (and the sign-out form) in the header. */
  nav?: ComponentChildren;
  /** Shown above everything while the viewer works in Test mode: what Test means on this page. */
  testModeBanner?: ComponentChildren;
  lang?: string;
  /** A theme the page keeps whatever the viewer's system prefers (a merchant's checkout); otherwise theirs. */
  theme?: 'light' | 'dark';
  /** More of our own stylesheets (/assets/…), after the base one: a merchant's brand colour. */
  stylesheets?: readonly string[];
  /** Our own script assets (/assets/…) that make the page smoother; it works without them. */
  scripts?: readonly string[];
  /** "Skip to main content", in the page's language. */
  skipLabel?: string;
  children?: ComponentChildren;
}

/** A script asset of ours, with the render's CSP nonce. */
function PageScript({ src }: { src: string }): VNode {
  return html`<script src=${src} nonce=${useViewer().nonce} defer></script>`;
}

/**
 * The document around every page: head, skip link, header and main landmark. The Test-mode
 * banner is inside the header, so a person moving by landmarks meets it too.
 */
export function Layout({ title, brand = 'Payment Service', nav, testModeBanner, lang = 'en', theme, stylesheets = [], scripts = [], skipLabel = 'Skip to main content', children }: LayoutProps): VNode {
  return html`<html lang=${lang} data-theme=${theme}>
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · ${brand}</title>
      <link rel="stylesheet" href=${STYLESHEET_PATH} />
      ${stylesheets.map((href) => html`<link rel="stylesheet" href=${href} />`)}
      <link rel="icon" href=${ICON_PATH} type="image/svg+xml" />
      ${scripts.map((src) => html`<${PageScript} src=${src} />`)}
    </head>
    <body>
      <a class="skip-link" href="#main">${skipLabel}</a>
      <header>
        ${testModeBanner != null && html`<div class="test-mode-banner" role="note">${testModeBanner}</div>`}
        <div class="site-header">
          <span class="brand">${brand}</span>
          ${nav != null && html`<nav aria-label="Main">${nav}</nav>`}
        </div>
      </header>
      <main id="main" tabindex="-1">${children}</main>
    </body>
  </html>`;
}
