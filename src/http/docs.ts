import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { ICON_PATH } from '../ui/index.ts';
import { API_PREFIX } from '../verbs/operation.ts';

// The API reference at GET /docs: Redoc's standalone bundle (npm package `redoc`, served from
// node_modules by the service itself) renders the OpenAPI document. Public, like the document.

/**
 * Redoc 2 shows its attribution's logo from its CDN and has no option to leave it out: that one
 * outside address in the bundle is replaced by an empty picture, so the page loads nothing from
 * another origin (the browser test fails if a new bundle asks for anything elsewhere).
 */
const OUTSIDE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_PICTURE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/** Starts Redoc on the page (a file of its own: the page runs no inline script). */
const START = `Redoc.init(${JSON.stringify(`${API_PREFIX}/openapi.json`)}, {
  expandResponses: '200,201',
  jsonSampleExpandLevel: 3,
  pathInMiddlePanel: true,
  theme: { colors: { primary: { main: '#1d4ed8' } } },
}, document.getElementById('reference'));
`;

/**
 * Code samples (the curl lines) wrap instead of scrolling sideways: a region that scrolls must be
 * reachable by keyboard, and Redoc's sample panels are not; wrapped, nothing needs to scroll.
 */
const STYLE = `[role="tabpanel"] pre { white-space: pre-wrap; overflow-wrap: anywhere; }
`;

interface Asset {
  path: string;
  type: string;
  body: string;
}

function asset(name: string, extension: 'js' | 'css', body: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path: `/docs/assets/${name}.${hash}.${extension}`, type: extension === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8', body };
}

let assets: { redoc: Asset; start: Asset; style: Asset } | undefined;

/** Read once per process (a megabyte), when the first app registers the page. */
function docsAssets() {
  if (!assets) {
    const bundle = readFileSync(new URL(import.meta.resolve('redoc/bundles/redoc.standalone.js')), 'utf8');
    assets = {
      redoc: asset('redoc.standalone', 'js', bundle.replaceAll(OUTSIDE_LOGO, EMPTY_PICTURE)),
      start: asset('start', 'js', START),
      style: asset('reference', 'css', STYLE),
    };
  }
  return assets;
}

// Scripts only from the service; Redoc writes its styles into <style> elements as it renders
// (styled-components), so inline styles are allowed, and its search runs in a worker made from
// a blob. The page shows only the service's own document.
const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "worker-src blob:", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'",
].join('; ');

function page(): string {
  const { redoc, start, style } = docsAssets();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment Service API reference</title>
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="${style.path}">
</head>
<body>
<main id="reference"><noscript><p>The reference needs JavaScript. The OpenAPI document itself is at <a href="${API_PREFIX}/openapi.json">${API_PREFIX}/openapi.json</a>.</p></noscript></main>
<script src="${redoc.path}"></script>
<script src="${start.path}"></script>
</body>
</html>
`;
}

/** GET /docs and its scripts and stylesheet. */
export async function apiReference(app: FastifyInstance): Promise<void> {
  app.get('/docs', async (_request, reply) => reply
    .header('Content-Security-Policy', CSP)
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    .type('text/html; charset=utf-8')
    .send(page()));
  await app.register(async (scope) => {
    // Named by their content: cached for a year, a new version is a new address (overrides the app's no-store).
    scope.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 200) reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      return payload;
    });
    for (const file of Object.values(docsAssets())) {
      scope.get(file.path, async (_request, reply) => reply.type(file.type).send(file.body));
    }
  });
}
