import type { FastifyReply } from 'fastify';

/** Sends a page (the plugin's one way to answer with HTML). */
export type SendPage = (reply: FastifyReply, status: number, html: string) => FastifyReply;

export const sendPage: SendPage = (reply, status, html) => reply.code(status).type('text/html; charset=utf-8').send(html);
