import type { TestApp } from './harness.ts';

// A person's browser, as far as the dashboard needs one: a cookie jar, redirects followed by
// hand (so a test sees where it is sent), forms read from the served HTML and posted back.
// The app's public origin (BASE_URL) is mapped to the test server.

export interface Page {
  status: number;
  url: string;
  html: string;
  location: string | null;
  headers: Headers;
}

export class Browser {
  readonly #t: TestApp;
  readonly #cookies = new Map<string, string>();

  constructor(t: TestApp) {
    this.#t = t;
  }

  #local(url: string): string {
    return url.startsWith(this.#t.config.baseUrl) ? `${this.#t.url}${url.slice(this.#t.config.baseUrl.length)}` : url.startsWith('/') ? `${this.#t.url}${url}` : url;
  }

  #remember(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(header)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  /** One request, no redirect followed; `raw` is sent as the body as it is (with the content type in `headers`). */
  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers: Record<string, string> = {}, raw?: string): Promise<Page> {
    const response = await fetch(this.#local(url), {
      method,
      redirect: 'manual',
      headers: {
        ...(this.#cookies.size ? { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      body: raw ?? (form ? new URLSearchParams(form).toString() : undefined),
    });
    this.#remember(response);
    return { status: response.status, url, html: await response.text(), location: response.headers.get('location'), headers: response.headers };
  }

  /** GETs `url` and follows redirects within this service; stops at the first one leaving it. */
  async visit(url: string): Promise<Page> {
    let page = await this.request('GET', url);
    for (let hops = 0; page.location && hops < 10; hops += 1) {
      const next = new URL(page.location, this.#t.config.baseUrl).href;
      if (!next.startsWith(this.#t.config.baseUrl)) return page;
      page = await this.request('GET', next);
    }
    return page;
  }

  /** The fields of the form posting to `action` in `html`, buttons excluded. */
  static form(html: string, action: string): Record<string, string> {
    const start = html.indexOf(`action="${action}"`);
    if (start < 0) throw new Error(`No form posting to ${action} in:\n${html}`);
    const body = html.slice(start, html.indexOf('</form>', start));
    const fields: Record<string, string> = {};
    for (const match of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\s*\/?>/g)) fields[match[1]!] = decode(match[2]!);
    return fields;
  }

  has(name: string): boolean {
    return this.#cookies.has(name);
  }

  /** The values of the cookies it holds (for tests that look for them where they must not be). */
  cookieValues(): string[] {
    return [...this.#cookies.values()];
  }

  /** Signs in with a single-use link, as a person does from the CLI's login-link. */
  async signInWith(linkUrl: string): Promise<Page> {
    const page = await this.request('GET', linkUrl);
    const fields = Browser.form(page.html, '/dashboard/sign-in/link');
    return this.request('POST', '/dashboard/sign-in/link', fields);
  }
}

/** What a piece of served HTML reads as: tags dropped (a line break kept), characters decoded. */
export function textOf(html: string): string {
  return decode(html.replace(/<br\s*\/?>/g, '\n').replace(/<[^>]*>/g, '')).trim();
}

function decode(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
