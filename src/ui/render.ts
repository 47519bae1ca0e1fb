import { html as preactHtml } from 'htm/preact';
import { createContext, h, type VNode } from 'preact';
import { useContext } from 'preact/hooks';
import { renderToString } from 'preact-render-to-string';
import { randomBase62 } from '../core/ids.ts';
import './guard.ts';

// The one HTML renderer of every page: htm builds elements from a template's literal parts only,
// so an interpolated value is text or an attribute value, never markup; preact-render-to-string
// escapes it; guard.ts refuses handlers, raw HTML and unsafe URLs. What leaves is an HtmlPage,
// which only renderPage (and PageCache, from what renderPage made) makes and only sendPage sends.

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

/**
 * Markup of one part of a page, for a script of ours to put in place, never a document to send:
 * the payment card an agent's host shows (mcp/apps), whose script inserts what the service
 * rendered. Made by the same renderer and guard, so an interpolated value is text here too.
 */
export function renderFragment(node: VNode, viewer: Viewer): string {
  const text = renderToString(h(ViewerContext.Provider, { value: viewer }, node));
  if (text.startsWith('<html')) throw new Error('renderFragment renders a part of a page: send a document with renderPage.');
  return text;
}

// Rendering is most of what a page costs once its data is read, and a page is a pure function of
// what it is made from. A PageCache keeps the HTML of recent pages by a key naming all of that,
// rendered once with markers where the per-response values go (the CSP nonce, the form token);
// each response fills in its own. A key that leaves out something the page shows would serve a
// stale page, so callers key by the whole view, never by an id alone.

/** Random per process, base62 (escaping leaves it as it is), so no text on a page can hold one. */
const NONCE_MARK = `n${randomBase62(30)}`;
const TOKEN_MARK = `c${randomBase62(30)}`;
const PER_RESPONSE = /^[\w-]+$/;

export class PageCache {
  readonly #kept = new Map<string, string>();
  readonly #capacity: number;
  #size = 0;

  /** `capacity`: the characters of keys and pages kept at most (the least recently used go first). */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /**
   * The page `make` renders for `viewer`, kept by `key` (with the viewer's time zone and whether
   * it has a nonce and a form token). The nonce and token must be plain tokens, which they always are.
   */
  render(key: string, make: () => VNode, viewer: Viewer): HtmlPage {
    const { nonce, csrfToken } = viewer;
    if ((nonce !== undefined && !PER_RESPONSE.test(nonce)) || (csrfToken !== undefined && !PER_RESPONSE.test(csrfToken))) {
      throw new Error('A nonce or form token is made of letters, digits, - and _.');
    }
    const full = `${viewer.timeZone ?? ''}\u0000${nonce === undefined ? 0 : 1}${csrfToken === undefined ? 0 : 1}\u0000${key}`;
    let text = this.#kept.get(full);
    if (text === undefined) {
      text = renderPage(make(), {
        ...viewer,
        ...(nonce === undefined ? {} : { nonce: NONCE_MARK }),
        ...(csrfToken === undefined ? {} : { csrfToken: TOKEN_MARK }),
      }).toString();
      this.#size += full.length + text.length;
      for (const [oldest, page] of this.#kept) {
        if (this.#size <= this.#capacity) break;
        this.#kept.delete(oldest);
        this.#size -= oldest.length + page.length;
      }
    } else {
      this.#kept.delete(full); // the most recently used goes last: the first is the next to go
    }
    if (full.length + text.length <= this.#capacity) this.#kept.set(full, text);
    else this.#size -= full.length + text.length;
    if (nonce !== undefined) text = text.replaceAll(NONCE_MARK, nonce);
    if (csrfToken !== undefined) text = text.replaceAll(TOKEN_MARK, csrfToken);
    return makePage(text);
  }
}
