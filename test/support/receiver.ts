import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

// A real webhook receiver on loopback: records every request as received (raw body, headers,
// TLS server name) and answers as the test tells it, changeable mid-run.

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The TLS server name the client asked for (https receivers). */
  servername: string | null;
}

export type Responder = (request: Received, response: ServerResponse) => void;

export const answer = (status: number, body = ''): Responder => (_request, response) => {
  response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
};

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Sets how the next requests are answered (default 200). */
  respond(responder: Responder): void;
  close(): Promise<void>;
}

export async function startReceiver(options: { tls?: { key: string; cert: string }; host?: string } = {}): Promise<Receiver> {
  const received: Received[] = [];
  let responder: Responder = answer(200, 'ok');
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Received = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        servername: (request.socket as TLSSocket).servername || null,
      };
      received.push(entry);
      responder(entry, response);
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handle) : createHttpServer(handle);
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    received,
    respond(next) {
      responder = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An independent verifier, written from spec 6.4 alone: `t=<unix seconds>,v1=<64 lowercase hex>`
 * (one or more v1), HMAC-SHA-256 keyed with the secret over `<t>.<raw body>`, 300 seconds of
 * tolerance, constant-time comparison. True when any v1 matches.
 */
export function verifiesWith(header: string | undefined, secret: string, rawBody: string, nowSeconds: number): boolean {
  const match = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/.exec(header ?? '');
  if (!match) return false;
  const t = Number(match[1]);
  if (Math.abs(nowSeconds - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${rawBody}`).digest();
  return match[2]!.split(',v1=').slice(1).some((hex) => timingSafeEqual(Buffer.from(hex, 'hex'), expected));
}

/** The v1 signatures of a header, in order. */
export function signaturesOf(header: string | undefined): string[] {
  return (header ?? '').split(',').filter((part) => part.startsWith('v1=')).map((part) => part.slice(3));
}
