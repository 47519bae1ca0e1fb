import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { VNode } from 'preact';
import { html, Layout, Markdown, renderPage, sendStaticPage, staticPage, type HtmlPage, type StaticPage } from '../ui/index.ts';
import { ApiError } from '../core/errors.ts';

// The repository's documentation, served: the README, the guides and notes in docs/ and the
// generated references in docs/reference/, each at /docs/<its path> (README.md at /docs/readme),
// rendered from the same Markdown files by ui/markdown.ts, in the service's look, with a list of
// every page. Links between them go to their served pages (and headings), the screenshots are
// served beside them, and a link to anything else of the repository (source files) is shown as
// text. The pages are made once, as the service starts: they change only with a new version.
// Beside them, /docs itself is the API reference (docs.ts).

const ROOT = new URL('../../', import.meta.url);
/** Where the served pages and pictures live. */
export const DOCS_PREFIX = '/docs';

// Our stylesheet and icon and the screenshots; no script, no frames, no forms.
const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A Markdown file of the repository that is served, by its path there (`docs/x402.md`). */
interface DocFile {
  path: string;
  url: string;
  title: string;
  source: string;
}

/** The served address of a repository path: README.md → /docs/readme, docs/a/b.md → /docs/a/b, docs/screenshots/x.png → /docs/screenshots/x.png. */
function servedUrl(path: string): string {
  const inDocs = path.startsWith('docs/') ? path.slice('docs/'.length) : path;
  return `${DOCS_PREFIX}/${inDocs.replace(/(^|\/)README\.md$/, '$1readme').replace(/\.md$/, '')}`;
}

function walk(folder: string): string[] {
  const absolute = new URL(folder, ROOT);
  if (!existsSync(absolute)) return [];
  // Files and folders only: no dotfile, no symbolic link (it could lead out of docs/), not the API reference's assets.
  return readdirSync(absolute).sort().flatMap((name) => {
    const path = `${folder}${name}`;
    const entry = lstatSync(new URL(path, ROOT));
    if (name.startsWith('.') || entry.isSymbolicLink() || path === 'docs/assets') return [];
    return entry.isDirectory() ? walk(`${path}/`) : entry.isFile() ? [path] : [];
  });
}

/** The repository's served files: README.md and docs/**.md; the pictures in docs/. */
function collect(): { pages: DocFile[]; images: Map<string, string>; served: Served } {
  const files = walk('docs/');
  const pages = ['README.md', ...files.filter((path) => path.endsWith('.md'))].map((path) => {
    const source = readFileSync(new URL(path, ROOT), 'utf8');
    const title = /^#\s+(.+)$/m.exec(source)?.[1]?.replace(/`/g, '') ?? path;
    return { path, url: servedUrl(path), title, source };
  });
  const images = new Map(files.filter((path) => /\.(png|svg)$/.test(path)).map((path) => [servedUrl(path), path]));
  const addresses = [...pages.map((page) => page.url), ...images.keys()];
  const twice = addresses.filter((url, index) => addresses.indexOf(url) !== index);
  if (twice.length > 0) throw new Error(`Two files of the documentation would be served at ${twice.join(', ')}: rename one.`);
  return { pages, images, served: { pages: new Map(pages.map((page) => [page.path, page.url])), pictures: new Set(images.values()) } };
}

/** Where a link or picture of `from` goes when served; null for what is not served (a source file, another site's picture). */
/** What is served, by repository path: each page's address, and the pictures. */
interface Served {
  pages: ReadonlyMap<string, string>;
  pictures: ReadonlySet<string>;
}

function resolver(from: string, { pages: served, pictures }: Served) {
  return (url: string, kind: 'link' | 'image'): string | null => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return kind === 'link' && /^(https|mailto):/i.test(url) ? url : null;
    if (url.startsWith('#')) return url;
    const [path = '', anchor] = url.split('#');
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return null; // a malformed link (a lone %) is shown as text; the links test names it
    }
    const target = posix.normalize(posix.join(posix.dirname(from), decoded));
    if (pictures.has(target)) return servedUrl(target);
    if (kind === 'image') return null;
    const page = served.get(target);
    return page === undefined ? null : `${page}${anchor === undefined ? '' : `#${anchor}`}`;
  };
}

/** The guides for each reader, in the order the README's map gives them (the list shows them so). */
const GUIDES = ['docs/accept-payments.md', 'docs/connect-an-agent.md', 'docs/run-it.md', 'docs/dashboard-and-payer-pages.md', 'docs/how-it-is-built.md'];

/** The list's groups, each page in the first whose test it passes (More: any other, by path). */
const GROUPS: Array<{ label: string; test: (page: DocFile) => boolean; order?: (page: DocFile) => number }> = [
  { label: 'Start', test: (page) => page.path === 'README.md' },
  { label: 'Guides', test: (page) => GUIDES.includes(page.path), order: (page) => GUIDES.indexOf(page.path) },
  { label: 'References', test: (page) => page.path.startsWith('docs/reference/') },
  { label: 'More', test: () => true },
];

const groupOf = (page: DocFile) => GROUPS.find((group) => group.test(page));

function Contents({ pages, current }: { pages: readonly DocFile[]; current: string }): VNode {
  return html`<nav class="docs-contents" aria-label="Documentation">
    ${GROUPS.map((group) => {
      const members = pages.filter((page) => groupOf(page) === group);
      if (group.order) members.sort((a, b) => group.order!(a) - group.order!(b));
      return members.length === 0 ? null : html`<div>
        <h2>${group.label}</h2>
        <ul>${members.map((page) => html`<li><a href=${page.url} aria-current=${page.url === current ? 'page' : undefined}>${page.title}</a></li>`)}</ul>
      </div>`;
    })}
    <div><h2>API</h2><ul><li><a href=${DOCS_PREFIX}>The API reference (OpenAPI)</a></li></ul></div>
  </nav>`;
}

export function docsPage(page: DocFile, pages: readonly DocFile[], resolve: (url: string, kind: 'link' | 'image') => string | null): VNode {
  return Layout({
    title: page.title,
    nav: html`<a href="/">Home</a> <a href=${servedUrl('README.md')}>Documentation</a> <a href=${DOCS_PREFIX}>API reference</a>`,
    // The page first, the list of pages after it (placed beside it by the stylesheet): the outline starts with the page's h1.
    children: html`<div class="docs-page">
      <article class="docs-article">${Markdown({ source: page.source, resolve })}</article>
      ${Contents({ pages, current: page.url })}
    </div>`,
  });
}

/**
 * The documentation, read once per process, when the first app registers it (the files are the
 * running code's own, so they do not change under it); each page rendered on its first request and
 * each picture read on its first request: an app starts without rendering a page (every test file
 * and benchmark starts apps; rendering them all took about half a second).
 */
let collected: ReturnType<typeof collect> | undefined;
const documentation = () => (collected ??= collect());
const rendered = new Map<string, { page: HtmlPage; sent: StaticPage }>();
const pictures = new Map<string, Buffer>();

function renderedPage(page: DocFile): { page: HtmlPage; sent: StaticPage } {
  let made = rendered.get(page.url);
  if (made === undefined) {
    const { pages, served } = documentation();
    const html = renderPage(docsPage(page, pages, resolver(page.path, served)), {});
    made = { page: html, sent: staticPage(html) };
    rendered.set(page.url, made);
  }
  return made;
}

/** Every served page, by its address (the tests read them all). */
export function renderDocs(): { pages: Map<string, HtmlPage>; images: Map<string, string>; files: DocFile[] } {
  const { pages, images } = documentation();
  return { pages: new Map(pages.map((page) => [page.url, renderedPage(page).page])), images, files: pages };
}

/** GET /docs/<page> and the pictures they show. */
export async function docsPages(app: FastifyInstance): Promise<void> {
  const { pages, images } = documentation();
  for (const page of pages) {
    app.get(page.url, async (request, reply) => {
      reply.header('Content-Security-Policy', PAGE_CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin');
      return sendStaticPage(reply, renderedPage(page).sent, request.headers['accept-encoding']);
    });
  }
  // The pictures by folder, one route each (a route per picture cost every app start 40 ms).
  const folders = new Set([...images.keys()].map((url) => url.slice(0, url.lastIndexOf('/'))));
  for (const folder of folders) {
    app.get<{ Params: { '*': string } }>(`${folder}/*`, async (request, reply) => {
      // The rest of the path as the router decoded it; only a picture of the list is ever read.
      const url = `${folder}/${request.params['*']}`;
      const path = images.get(url);
      if (path === undefined) throw new ApiError('not_found', `There is no ${request.method} ${url}.`);
      let body = pictures.get(url);
      if (body === undefined) pictures.set(url, body = readFileSync(new URL(path, ROOT)));
      return reply.header('Content-Security-Policy', "default-src 'none'").type(path.endsWith('.svg') ? 'image/svg+xml' : 'image/png').send(body);
    });
  }
}
