import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// HTTP that Node's parser refuses never reaches a route; it used to be answered with Fastify's
// own shape ({"error":"Bad Request","message":"Client Error","statusCode":400}). Each case is
// sent byte for byte over a socket, as a broken or hostile client would.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => t?.close());

/** Sends `bytes` and reads the whole answer until the server closes the connection. */
function send(bytes: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.end(bytes));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => { text += chunk; });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase(), body });
    });
  });
}

describe('malformed HTTP', () => {
  it.each([
    ['a NUL in a header value', 'GET /v1/payment_links HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 400],
    ['a DEL in a header value', 'GET /v1/payment_links HTTP/1.1\r\nHost: x\r\nX-A: a\u007fb\r\n\r\n', 400],
    ['Content-Length with chunked', 'POST /v1/payment_links HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['a bad chunk size', 'POST /v1/payment_links HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', 400],
    ['a 40 KiB header', `GET /v1/payment_links HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40 * 1024)}\r\n\r\n`, 431],
    ['an unknown method', 'FOO /v1/payment_links HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ])('answers %s in the API\'s error shape', async (_name, bytes, status) => {
    const answer = await send(bytes);
    expect(answer.status).toBe(status);
    expect(answer.headers).toContain('content-type: application/json');
    expect(answer.headers).toContain('cache-control: no-store');
    expect(answer.headers).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
  });

  it('refuses a compressed body as such (415), not as bad JSON', async () => {
    const gz = gzipSync(JSON.stringify({ amount: '10.00', currency: 'USD', description: 'Tea' }));
    const answer = await send(Buffer.concat([Buffer.from(
      `POST /v1/payment_links HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${gz.length}\r\nConnection: close\r\n\r\n`,
    ), gz]));
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body).error.code).toBe('unsupported_media_type');
    // identity is no encoding at all.
    const plain = await fetch(`${t.url}/v1/payment_links`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' }, body: '{}' });
    expect((await plain.json()).error.code).not.toBe('unsupported_media_type');
  });
});
