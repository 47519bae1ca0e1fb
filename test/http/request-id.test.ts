import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { captureLog, type LogCapture } from '../support/log-capture.ts';

// A request id on every request: the caller's X-Request-Id when it is short visible ASCII, else
// one of ours; returned in X-Request-Id on every answer (errors, 404, 405, HTTP Node refused) and
// on every log line of the request.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let log: LogCapture;
beforeAll(async () => {
  log = captureLog();
  t = await startTestApp({ LOG_LEVEL: 'debug' }, { logStream: log.stream });
});
afterAll(async () => t?.close());

const idOf = async (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  (await fetch(`${t.url}${path}`, { method, headers })).headers.get('x-request-id');

/** Sends `bytes` as they are (what fetch would refuse to send) and returns the answer's head. */
function rawHead(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.end(Buffer.from(bytes, 'latin1')));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => { text += chunk; });
    socket.on('error', reject);
    socket.on('close', () => resolve(text.split('\r\n\r\n')[0]!));
  });
}

const returnedId = (head: string) => /\r\nX-Request-Id: ([^\r]*)/i.exec(head)?.[1];

describe('X-Request-Id', () => {
  it('returns the caller\'s id, on answers and errors alike', async () => {
    const id = 'req-01HZX3:client/42_a.b~c';
    const key = (await (await t.business()).key()).secret;
    expect(await idOf('/v1/payment_links', { 'x-request-id': id, authorization: `Bearer ${key}` })).toBe(id);
    expect(await idOf('/v1/payment_links', { 'x-request-id': id })).toBe(id);
    expect(await idOf('/no/such/thing', { 'x-request-id': id })).toBe(id);
    expect(await idOf('/v1/payment_links', { 'x-request-id': id }, 'PUT')).toBe(id);
    expect(await idOf('/v1/payment_links/%zz', { 'x-request-id': id })).toBe(id);
    expect(await idOf('/healthz', { 'x-request-id': id })).toBe(id);
    expect(await idOf('/dashboard/sign-in', { 'x-request-id': id })).toBe(id);
  });

  it('makes its own when the caller sends none, or one that is too long or not visible ASCII', async () => {
    const made = await idOf('/healthz');
    expect(made).toMatch(UUID);
    expect(await idOf('/healthz')).not.toBe(made);
    for (const bad of ['a'.repeat(129), 'has space', 'tab\there', Buffer.from('caf\u00e9').toString('latin1'), '\u00ff\u00fe']) {
      const head = await rawHead(`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: ${bad}\r\n\r\n`);
      expect(head, bad).toMatch(/^HTTP\/1\.1 200 /);
      expect(returnedId(head), bad).toMatch(UUID);
    }
    expect(await idOf('/healthz', { 'x-request-id': 'a'.repeat(128) })).toBe('a'.repeat(128));
  });

  it('gives HTTP that Node refuses an id of its own', async () => {
    const head = await rawHead('GET / HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\nX-A: a\u0000b\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(returnedId(head)).toMatch(UUID);
  });

  it('is on every log line of its request', async () => {
    const id = 'trace-me-7f3a';
    const key = (await (await t.business()).key()).secret;
    await fetch(`${t.url}/v1/payment_links`, { method: 'POST', headers: { 'x-request-id': id, authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ amount: '1.00', currency: 'USD', description: 'Tea' }) });
    await fetch(`${t.url}/nowhere`, { headers: { 'x-request-id': `${id}-404` } });
    await vi.waitFor(() => expect(log.entries().filter((entry) => entry.requestId === `${id}-404`)).toHaveLength(2));
    const mine = log.entries().filter((entry) => entry.requestId === id);
    expect(mine.map((entry) => entry.msg)).toEqual(['incoming request', 'request completed']);
    // Every line about a request names it.
    for (const entry of log.entries().filter((line) => 'req' in line || 'res' in line)) expect(entry.requestId).toEqual(expect.any(String));
  });
});
