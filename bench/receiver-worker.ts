import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';

// A webhook receiver in its own thread (so it does not share the service's event loop): answers
// 200 at once and reports each arrival (payment id, event type, time) to the parent in batches.

export interface Arrival {
  eventId: string;
  paymentId: string;
  type: string;
  /** performance.timeOrigin + performance.now() when the body was complete, in ms. */
  at: number;
}

let pending: Arrival[] = [];
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    response.writeHead(200).end();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      pending.push({ eventId: event.id ?? '', paymentId: event.data?.payment?.id ?? '', type: event.type, at });
    } catch {
      pending.push({ eventId: '', paymentId: '', type: 'unparsable', at });
    }
  });
});
server.keepAliveTimeout = 30_000;
setInterval(() => {
  if (pending.length === 0) return;
  parentPort?.postMessage({ arrivals: pending });
  pending = [];
}, 20).unref();
server.listen(0, '127.0.0.1', () => parentPort?.postMessage({ port: (server.address() as AddressInfo).port }));
parentPort?.on('message', (message: { close?: boolean }) => {
  if (message.close) server.close(() => process.exit(0));
});
