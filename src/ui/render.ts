import { html as preactHtml } from 'htm/preact';
import { createContext, h, type VNode } from 'preact';
import { useContext } from 'preact/hooks';
import { renderToString } from 'preact-render-to-string';
import './guard.ts';

// The one HTML renderer of every page: htm builds elements from a template's literal parts only,
// so an interpolated value is text or an attribute value, never markup; preact-render-to-string
// escapes it; guard.ts refuses handlers, raw HTML and unsafe URLs. What leaves is an HtmlPage,
// which only renderPage makes and only sendPage sends.

/** Markup from a template with one root element: `html\`<p>${text}</p>\``. Import it from here, so the guard is installed. */
export const html: (strings: TemplateStringsArray, ...values: unknown[]) => VNode = preactHtml;

/** What a page's render knows about its viewer: the session's CSRF token (forms need it) and time zone. */
export interface Viewer {
  /** The session's CSRF token; a page with a form cannot render without it. */
  csrfToken?: string;
  /** An IANA time zone name for times; UTC when absent or not a zone. */
  timeZone?: string;
  /** This response's CSP nonce, for the page's own script assets. */
  nonce?: string;
}

const ViewerContext = createContext<Viewer | undefined>(undefined);

/** The viewer of the page being rendered; only inside renderPage. */
export function useViewer(): Viewer {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error('A component read the viewer outside renderPage.');
  return viewer;
}

const MADE_BY_RENDER_PAGE = Symbol('HtmlPage');
let makePage: (text: string) => HtmlPage;

/** A whole rendered document. Only renderPage makes one, so a page cannot be sent from a string. */
export class HtmlPage {
  readonly #text: string;

  private constructor(token: symbol, text: string) {
    if (token !== MADE_BY_RENDER_PAGE) throw new TypeError('An HtmlPage is made only by renderPage.');
    this.#text = text;
  }

  static {
    makePage = (text) => new HtmlPage(MADE_BY_RENDER_PAGE, text);
  }

  toString(): string {
    return this.#text;
  }
}

/** Renders a page (a Layout at its root) for one viewer. */
export function renderPage(page: VNode, viewer: Viewer): HtmlPage {
  const text = renderToString(h(ViewerContext.Provider, { value: viewer }, page));
  if (!text.startsWith('<html')) throw new Error('renderPage renders whole documents: put the page in a Layout.');
  return makePage(`<!doctype html>${text}`);
}
