import type { FastifyInstance, FastifyReply } from 'fastify';
import { BRAND_TEXT } from '../resources/brand/color.ts';
import { findBrandColor, findLogo } from '../resources/brand/queries.ts';
import type { AppContext } from '../verbs/context.ts';

// A business's logo and brand stylesheet, from our own origin at addresses that name their
// content's hash (resources/brand/queries.ts): cached for a year, an old hash not found. The
// logo is sent as the type its bytes were found to be, never sniffed by the browser, and under
// a CSP that lets nothing run should it be opened on its own.

const YEAR = 'public, max-age=31536000, immutable';

/** The stylesheet of a brand colour: what the payer pages' pay button is drawn with (css/brand.css). */
export function brandStylesheet(color: string): string {
  return `:root { --brand: ${color}; --brand-text: ${BRAND_TEXT}; }\n`;
}

/** What a business id can look like (core/ids.ts): anything else is not looked up. */
const BUSINESS_ID = /^[A-Za-z0-9_]{1,64}$/;

const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain; charset=utf-8').send('Not found');

/** Encapsulated on purpose: its cache and CSP headers, set last, override the app's `no-store`. */
export async function brandAssets(scope: FastifyInstance, options: { context: AppContext }): Promise<void> {
  const { db } = options.context;
  scope.addHook('onSend', async (_request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
    reply.header('Cross-Origin-Resource-Policy', 'same-origin');
    if (reply.statusCode === 200) reply.header('Cache-Control', YEAR);
    return payload;
  });

  scope.get('/assets/logos/:business/:hash', async (request, reply) => {
    const { business, hash } = request.params as { business: string; hash: string };
    const logo = BUSINESS_ID.test(business) ? await findLogo(db, business, hash) : undefined;
    if (!logo) return notFound(reply);
    return reply.type(logo.content_type).send(logo.content);
  });

  scope.get('/assets/brand/:file', async (request, reply) => {
    const named = /^(?<business>[A-Za-z0-9_]{1,64})\.(?<hash>[0-9a-f]{16})\.css$/.exec((request.params as { file: string }).file);
    const color = named?.groups ? await findBrandColor(db, named.groups.business!, named.groups.hash!) : undefined;
    if (!color) return notFound(reply);
    return reply.type('text/css; charset=utf-8').send(brandStylesheet(color));
  });
}
