// The buy button (spec 4.2): <buy-button checkout="SLUG"></buy-button> on any site, with
// <script src="…/embed.js" defer></script>. It renders a link, styled as a button, that opens the
// checkout's hosted page in a new tab (the pages refuse to be framed). No eval, no inline script
// or style on the merchant's page: its markup and styles live in its own shadow root, as a
// constructed stylesheet (which a merchant's CSP does not govern).
(() => {
  'use strict';
  if (!window.customElements || customElements.get('buy-button')) return;
  const script = document.currentScript;
  const origin = script && script.src ? new URL(script.src).origin : location.origin;

  // `all: initial` first: nothing the merchant's page sets (fonts, letter spacing, text
  // transforms, colours) reaches the button through inheritance.
  const CSS = `
    :host { display: inline-block; }
    :host([hidden]) { display: none; }
    a { all: initial; display: inline-block; min-height: 44px; box-sizing: border-box; padding: 10px 20px; border-radius: 6px;
        font: 600 16px/24px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; text-decoration: none; cursor: pointer;
        background: #0a54c7; color: #fff; border: 2px solid #0a54c7; overflow-wrap: anywhere; }
    a.dark { background: #a8c7ff; color: #0b1a33; border-color: #a8c7ff; }
    a:hover { filter: brightness(1.08); }
    a:focus-visible { outline: 3px solid #0a54c7; outline-offset: 2px; }
    a.dark:focus-visible { outline-color: #a8c7ff; }`;

  class BuyButton extends HTMLElement {
    static observedAttributes = ['checkout'];
    /** The slug the button shows now. */
    #shown;

    connectedCallback() {
      this.render();
    }

    attributeChangedCallback() {
      if (this.isConnected) this.render();
    }

    render() {
      const root = this.shadowRoot || this.attachShadow({ mode: 'open' });
      // Without a checkout there is nothing to buy: the element stays empty.
      const slug = (this.getAttribute('checkout') || '').trim();
      if (slug === this.#shown) return;
      this.#shown = slug;
      root.replaceChildren();
      if (!slug) return;
      const page = `${origin}/c/${encodeURIComponent(slug)}`;
      // (A browser without constructed stylesheets, Safari before 16.4, shows a plain link.)
      if ('adoptedStyleSheets' in root && root.adoptedStyleSheets.length === 0) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
        root.adoptedStyleSheets = [sheet];
      }
      // Works before (and without) button.json: the merchant's own text, else "Buy".
      const link = document.createElement('a');
      link.href = page;
      link.target = '_blank';
      link.rel = 'noopener';
      link.part = 'button';
      link.textContent = (this.textContent || '').trim() || 'Buy';
      root.append(link);
      // The checkout's own label (or "Pay <price>", "Plans from <price>") and theme. A checkout that is unknown or takes
      // no buyers shows nothing; when the facts cannot be read, the link stays as it is.
      fetch(`${page}/button.json`, { mode: 'cors', credentials: 'omit' })
        .then((response) => {
          if (response.status === 404 || response.status === 410) {
            link.remove();
            // Nothing for the buyer; the site's developer reads why in the console.
            console.warn(`<buy-button checkout="${slug}">: ${response.status === 404 ? 'no checkout has this slug' : 'this checkout takes no new buyers'} at ${origin}; the button is hidden.`);
          }
          return response.ok ? response.json() : null;
        })
        .then((info) => {
          if (!info || typeof info.label !== 'string') return;
          link.textContent = info.label;
          if (info.theme === 'dark') link.className = 'dark';
        })
        .catch(() => undefined);
    }
  }
  customElements.define('buy-button', BuyButton);
})();
