import type { FastifyReply } from 'fastify';
import { HtmlPage } from './render.ts';

/** Sends a rendered page; a string is refused, at compile time and at run time. */
export function sendPage(reply: FastifyReply, status: number, page: HtmlPage): FastifyReply {
  if (!(page instanceof HtmlPage)) throw new TypeError('sendPage sends only what renderPage made.');
  return reply.code(status).type('text/html; charset=utf-8').send(page.toString());
}
