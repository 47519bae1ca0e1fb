import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// The stylesheet and the icon as static assets under their content hash, so they can be cached for
// a year and a new version is a new URL; pages link them and carry no inline style (no CSP 'unsafe-inline').

// One stylesheet made of the parts in css/: base.css first (the theme's variables and the plain
// elements), then the others by name (one per part of the product: payer pages, the dashboard's
// frame, …), so a part's rules can rely on the base and never on another part.
const PARTS = new URL('./css/', import.meta.url);
const STYLESHEET = ['base.css', ...readdirSync(PARTS).filter((name) => name.endsWith('.css') && name !== 'base.css').sort()]
  .map((name) => `/* ${name} */\n${readFileSync(new URL(name, PARTS), 'utf8')}`)
  .join('\n');

const hashOf = (content: string | Buffer) => createHash('sha256').update(content).digest('hex').slice(0, 16);

/** The stylesheet's text, for a document that must carry it inline (the agents' payment card: mcp/apps). */
export const stylesheetText = (): string => STYLESHEET;

/** Where pages link the stylesheet: `/assets/ui.<hash>.css`. */
export const STYLESHEET_PATH = `/assets/ui.${hashOf(STYLESHEET)}.css`;

// The service's icon: an svg that pages link, and the same drawn as an .ico (16, 32 and 48 px,
// made from the svg) at the address browsers and feed readers ask for without a link.
const ICON = readFileSync(new URL('./icon/favicon.svg', import.meta.url));
const ICON_ICO = readFileSync(new URL('./icon/favicon.ico', import.meta.url));

/** Where pages link the icon: `/assets/icon.<hash>.svg`. */
export const ICON_PATH = `/assets/icon.${hashOf(ICON)}.svg`;
/** The icon's address that never changes: cached for a day, not for good. */
export const FAVICON_PATH = '/favicon.ico';

/** Serves the stylesheet and the icon. Encapsulated on purpose: their long cache overrides the app's `no-store`. */
export async function uiAssets(scope: FastifyInstance): Promise<void> {
  scope.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 200) reply.header('Cache-Control', request.url === FAVICON_PATH ? 'public, max-age=86400' : 'public, max-age=31536000, immutable');
    return payload;
  });
  scope.get(STYLESHEET_PATH, async (_request, reply) => reply.type('text/css; charset=utf-8').send(STYLESHEET));
  scope.get(ICON_PATH, async (_request, reply) => reply.type('image/svg+xml').send(ICON));
  scope.get(FAVICON_PATH, async (_request, reply) => reply.type('image/x-icon').send(ICON_ICO));
}
