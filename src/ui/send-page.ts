import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import { HtmlPage } from './render.ts';

/** Sends a rendered page; a string is refused, at compile time and at run time. */
export function sendPage(reply: FastifyReply, status: number, page: HtmlPage): FastifyReply {
  if (!(page instanceof HtmlPage)) throw new TypeError('sendPage sends only what renderPage made.');
  return reply.code(status).type('text/html; charset=utf-8').send(page.toString());
}

/** A page that never changes while the process runs (the served documentation), encoded once each way a browser may ask. */
export interface StaticPage {
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

export function staticPage(page: HtmlPage): StaticPage {
  if (!(page instanceof HtmlPage)) throw new TypeError('staticPage takes only what renderPage made.');
  const identity = Buffer.from(page.toString(), 'utf8');
  return {
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
  };
}

/** The codings `Accept-Encoding` allows (a `;q=0` refuses one). */
function accepted(header: string | undefined): Set<string> {
  const codings = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param))) continue;
    if (name !== '') codings.add(name);
  }
  return codings;
}

/** Sends a static page in the best coding the request accepts (brotli, gzip, or as it is), saying so (`Vary`). */
export function sendStaticPage(reply: FastifyReply, page: StaticPage, acceptEncoding: string | undefined): FastifyReply {
  const codings = accepted(acceptEncoding);
  const coding = codings.has('br') ? 'br' : codings.has('gzip') ? 'gzip' : 'identity';
  reply.code(200).type('text/html; charset=utf-8').header('Vary', 'Accept-Encoding');
  if (coding !== 'identity') reply.header('Content-Encoding', coding);
  return reply.send(page[coding]);
}
