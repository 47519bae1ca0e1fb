// The buy button (spec 4.2): <buy-button checkout="SLUG"></buy-button> on any site, with
// <script src="…/embed.js" async></script>. It renders a link, styled as a button, that opens the
// checkout's hosted page in a new tab. No eval, no inline script or style on the merchant's page:
// its markup and styles live in its own shadow root.
(() => {
  'use strict';
  if (!window.customElements || customElements.get('buy-button')) return;
  const script = document.currentScript;
  const origin = script && script.src ? new URL(script.src).origin : location.origin;

  const CSS = `
    :host { display: inline-block; }
    a { display: inline-block; min-height: 44px; box-sizing: border-box; padding: 10px 20px; border-radius: 6px;
        font: 600 16px/24px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; text-decoration: none;
        background: #0a54c7; color: #fff; border: 2px solid #0a54c7; }
    a.dark { background: #a8c7ff; color: #0b1a33; border-color: #a8c7ff; }
    a:hover { filter: brightness(1.08); }
    a:focus-visible { outline: 3px solid #0a54c7; outline-offset: 2px; }
    a.dark:focus-visible { outline-color: #a8c7ff; }`;

  class BuyButton extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot || this.dataset.ready) return;
      this.dataset.ready = '1';
      const slug = this.getAttribute('checkout') || '';
      const page = `${origin}/c/${encodeURIComponent(slug)}`;
      const root = this.attachShadow({ mode: 'open' });
      if ('adoptedStyleSheets' in root) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
        root.adoptedStyleSheets = [sheet];
      }
      const link = document.createElement('a');
      link.href = page;
      link.target = '_blank';
      link.rel = 'noopener';
      link.part = 'button';
      link.textContent = (this.textContent || '').trim() || 'Buy';
      root.append(link);
      // The checkout's own label (or "Pay <price>"), name and theme, when it can be read.
      fetch(`${page}/button.json`, { mode: 'cors', credentials: 'omit' })
        .then((response) => (response.ok ? response.json() : null))
        .then((info) => {
          if (!info) return;
          link.textContent = info.label;
          link.setAttribute('aria-label', `${info.label}: ${info.name}`);
          if (info.theme === 'dark') link.className = 'dark';
        })
        .catch(() => undefined);
    }
  }
  customElements.define('buy-button', BuyButton);
})();
