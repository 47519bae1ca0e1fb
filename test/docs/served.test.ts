import { request } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDocs } from '../../src/http/docs-pages.ts';
import { html, Layout, Markdown, renderPage } from '../../src/ui/index.ts';
import { axeFindings, preloadAxe } from '../support/accessibility.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The documentation as the service serves it (/docs/…): every page of README.md and docs/, from
// the same Markdown; every link between them, and to their headings, answers; the Markdown's own
// HTML stays text; and in Chromium every page passes axe in both themes, at 1280 and 375 px,
// asking nothing of another origin.

let t: TestApp;
const { files } = renderDocs();

beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); }, 120_000);
afterAll(async () => t?.close());

/** A request with its path exactly as written (fetch resolves `..` and `%2e%2e` before sending). */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(`${t.url}${path}`, { method, headers }, (answer) => {
      let body = '';
      answer.setEncoding('latin1').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
    });
    sent.path = path;
    sent.on('error', reject).end();
  });
}

const hrefsOf = (text: string) => [...text.matchAll(/<(?:a|img|link)\s[^>]*?(?:href|src)="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
const idsOf = (text: string) => new Set([...text.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!));

describe('served', () => {
  it('serves README.md and every Markdown file of docs/, each at its address, with its CSP', async () => {
    const urls = files.map((file) => file.url);
    expect(urls).toEqual(expect.arrayContaining(['/docs/readme', '/docs/x402', '/docs/reference/configuration', '/docs/reference/errors', '/docs/reference/cli']));
    for (const url of urls) {
      const response = await fetch(`${t.url}${url}`);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-security-policy'), url).toContain("default-src 'none'");
    }
    // A picture that is not there, or a path out of the folder (sent as written: fetch would tidy
    // the dots away), is the service's own not found; an encoded name finds its picture; a picture
    // takes only GET.
    for (const missing of ['/docs/screenshots/nope.png', '/docs/screenshots/../../package.json', '/docs/screenshots/%2e%2e/%2e%2e/package.json', '/docs/screenshots/..%2f..%2fpackage.json']) {
      const answer = await raw('GET', missing);
      expect(answer.status, missing).toBe(404);
      expect(JSON.parse(answer.body).error.code, missing).toBe('not_found');
    }
    // A page goes in the best coding the reader accepts, the same page whichever (Vary says so).
    const { brotliDecompressSync, gunzipSync } = await import('node:zlib');
    const plain = await raw('GET', '/docs/accept-payments');
    expect([plain.headers['content-encoding'], plain.headers.vary]).toEqual([undefined, 'Accept-Encoding']);
    const brotli = await raw('GET', '/docs/accept-payments', { 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(Buffer.from(brotli.body, 'latin1')).toString('utf8')).toBe(Buffer.from(plain.body, 'latin1').toString('utf8'));
    const gzip = await raw('GET', '/docs/accept-payments', { 'accept-encoding': 'gzip, br;q=0' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(gzip.body, 'latin1')).equals(Buffer.from(plain.body, 'latin1'))).toBe(true);
    expect(Buffer.byteLength(brotli.body, 'latin1')).toBeLessThan(Buffer.byteLength(plain.body, 'latin1') / 2);
    const encoded = await raw('GET', '/docs/screenshots/docs-reference%2Dlight.png');
    expect([encoded.status, encoded.headers['content-type']]).toEqual([200, 'image/png']);
    const posted = await raw('POST', '/docs/screenshots/docs-reference-light.png');
    expect([posted.status, posted.headers.allow]).toEqual([405, 'GET']);
  });

  it('links every page to pages, headings and pictures that answer', async () => {
    const texts = new Map<string, string>();
    const page = async (url: string) => {
      if (!texts.has(url)) texts.set(url, await (await fetch(`${t.url}${url}`)).text());
      return texts.get(url)!;
    };
    const broken: string[] = [];
    for (const file of files) {
      for (const href of hrefsOf(await page(file.url))) {
        if (/^(https|mailto):/.test(href)) continue;
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path === '' ? file.url : path;
        if (target.endsWith('.png') || target.endsWith('.svg') || target.endsWith('.css')) {
          if ((await fetch(`${t.url}${target}`)).status !== 200) broken.push(`${file.url} → ${href}`);
          continue;
        }
        const response = await fetch(`${t.url}${target}`, { headers: { accept: 'text/html' } });
        if (response.status !== 200) broken.push(`${file.url} → ${href} (${response.status})`);
        else if (anchor !== undefined && target.startsWith('/docs/') && !idsOf(await page(target)).has(anchor)) broken.push(`${file.url} → ${href} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('lists the guides in the reading order of the README\'s map, then the references, then the rest', async () => {
    const text = await (await fetch(`${t.url}/docs/readme`)).text();
    const contents = /<nav class="docs-contents"[\s\S]*?<\/nav>/.exec(text)![0];
    const groups = [...contents.matchAll(/<h2>([^<]+)<\/h2>\s*<ul>([\s\S]*?)<\/ul>/g)].map((match) => ({ label: match[1], links: [...match[2]!.matchAll(/href="([^"]+)"/g)].map((link) => link[1]) }));
    expect(groups.map((group) => group.label)).toEqual(['Start', 'Guides', 'References', 'More', 'API']);
    expect(groups[1]!.links).toEqual(['/docs/accept-payments', '/docs/connect-an-agent', '/docs/run-it', '/docs/dashboard-and-payer-pages', '/docs/how-it-is-built']);
    expect(groups[2]!.links).toContain('/docs/reference/configuration');
    // A new page in docs/ lands here until it is placed: a guide joins GUIDES (docs-pages.ts) and the README's map.
    expect(groups[3]!.links).toEqual(['/docs/benchmarks', '/docs/remainders', '/docs/screenshots/readme', '/docs/x402']);
  });

  it('renders reference-style links, footnotes and task lists', () => {
    const out = renderPage(Layout({ title: 'x', children: html`<div>${Markdown({
      source: 'See [the guide][g] and ![a picture][p].[^1]\n\n- [x] done\n- [ ] not yet\n\n[g]: a.md#b\n[p]: c.png\n\n[^1]: A note.\n',
      resolve: (url) => `/served/${url}`,
    })}</div>` }), {}).toString();
    expect(out).toContain('<a href="/served/a.md#b">the guide</a>');
    expect(out).toContain('<img src="/served/c.png" alt="a picture"');
    expect(out).toContain('<a href="#fn:1">1</a>');
    expect(out).toMatch(/id="fn:1"[^>]*>[\s\S]*A note\./);
    expect(out).toContain('☑ done');
    expect(out).toContain('☐ not yet');
    const loose = renderPage(Layout({ title: 'x', children: html`<div>${Markdown({ source: '- [x] done\n\n- [ ] later\n', resolve: (url) => url })}</div>` }), {}).toString();
    expect(loose).toContain('<li><p>☑ done</p></li>');
  });

  it('keeps the Markdown\'s own HTML as text, and a script link inert', () => {
    const out = renderPage(Layout({ title: 'x', children: html`<div>${Markdown({
      source: '# Hi <img src=x onerror=alert(1)>\n\n<script>alert(1)</script>\n\n[click](javascript:alert(1)) <!-- a note -->',
      resolve: (url) => url,
    })}</div>` }), {}).toString();
    expect(out).toContain('&lt;script>alert(1)&lt;/script>');
    expect(out).toContain('Hi &lt;img src=x onerror=alert(1)>');
    expect(out).not.toContain('<img');
    expect(out).not.toContain('javascript:');
    expect(out).not.toContain('a note');
  });
});

describe('in Chromium', () => {
  let browser: Browser;
  let tab: Page;
  const requests: string[] = [];
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
    tab = await browser.newPage();
    tab.on('request', (request) => requests.push(request.url()));
    // axe-core compiled into each page as it opens, not sent again after every navigation.
    await preloadAxe(tab);
  }, 600_000);
  afterAll(async () => browser?.close());

  it('passes axe in both themes at 1280 and 375 px on every page, loading nothing from elsewhere', async () => {
    const findings: string[] = [];
    for (const width of [1280, 375]) {
      await tab.setViewportSize({ width, height: 900 });
      for (const colorScheme of ['light', 'dark'] as const) {
        await tab.emulateMedia({ colorScheme });
        for (const file of files) {
          await tab.goto(`${t.url}${file.url}`);
          for (const violation of (await axeFindings(tab)).serious) findings.push(`${file.url} ${colorScheme} ${width}px: ${violation.id} ${violation.targets.slice(0, 3).join(', ')}`);
          if (await tab.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)) findings.push(`${file.url} ${colorScheme} ${width}px: wider than the window`);
        }
      }
    }
    expect(findings).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(`${t.url}/`))).toEqual([]);
  }, 600_000);

  it.runIf(process.env.SCREENSHOTS === '1')('photographs the front door, a guide and a reference into docs/screenshots/ (SCREENSHOTS=1)', async () => {
    const shots: Array<[string, string, 'light' | 'dark', number]> = [
      ['docs-readme-light.png', '/docs/readme', 'light', 1280],
      ['docs-reference-light.png', '/docs/reference/configuration', 'light', 1280],
      ['docs-guide-dark-phone.png', '/docs/accept-payments', 'dark', 375],
    ];
    for (const [name, url, colorScheme, width] of shots) {
      await tab.setViewportSize({ width, height: 900 });
      await tab.emulateMedia({ colorScheme });
      await tab.goto(`${t.url}${url}`);
      await tab.screenshot({ path: new URL(`../../docs/screenshots/${name}`, import.meta.url).pathname });
    }
  });
});
