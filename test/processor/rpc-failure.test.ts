import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { publicText } from '../../src/core/public-text.ts';
import { ChainClient, RpcUnavailable } from '../../src/processor/chain/chain-client.ts';
import { freePort } from '../support/harness.ts';

// What the processor says when an RPC URL does not answer, against real peers on loopback: each
// URL by its origin alone (never the path, query or credentials where providers put the API key)
// and the cause in words, as the status, the log and the merchant's checklist show it.

const KEY = 'SECRETKEY123';
let server: Server;
let origin: string;

beforeAll(async () => {
  // Answers 401 to every request, except under /hang where it never answers.
  server = createServer((request, response) => {
    if (request.url?.startsWith('/hang')) return;
    response.writeHead(401, { 'content-type': 'text/plain' }).end('invalid API key');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const polygon = (rpcUrls: string[]): NetworkConfig => ({ name: 'polygon', rpcUrls, chainId: 137, confirmations: 2, tokens: [] });

/** `timeoutMs`: long enough for a refusal on a loaded machine, unless the test waits for a time-out. */
async function refusal(rpcUrls: string[], timeoutMs = 5_000): Promise<string> {
  const failed = await new ChainClient(polygon(rpcUrls), { timeoutMs, retryDelayMs: 10, rounds: 1 }).chainId().catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(RpcUnavailable);
  return (failed as Error).message;
}

// (A name that does not resolve reads "DNS lookup failed" from ENOTFOUND; not tested here: this
// machine's resolver answers for .invalid names after seconds, or not at all.)
it('names each URL by its origin and says why: refused, HTTP status, timed out', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const message = await refusal([`${closed}/v2/${KEY}`, `${origin}/v3/${KEY}?apikey=${KEY}`]);
  expect(message).toBe(`polygon: eth_chainId failed on every RPC URL (${closed}: connection refused; ${origin}: HTTP status 401)`);
  const slow = await refusal([`http://user:${KEY}@${origin.slice(7)}/hang/${KEY}`], 300);
  expect(slow).toBe(`polygon: eth_chainId failed on every RPC URL (${origin}: timed out)`);
  expect(message + slow).not.toContain(KEY);
});

it('cuts every URL in any text to its origin, wherever it stands', () => {
  expect(publicText(`HTTP request failed.\nURL: ${origin}/v2/${KEY}\nRequest body: {}`)).toBe('HTTP request failed.');
  expect(publicText(`request to ${origin}/v2/${KEY}: refused`)).toBe(`request to ${origin}: refused`);
  expect(publicText(`{"url":"https:\\/\\/user:${KEY}@rpc.example:8545\\/v2\\/${KEY}?k=${KEY}"}`)).toBe('{"url":"https://rpc.example:8545"}');
  expect(publicText(`wss://rpc.example/ws/${KEY}, then (https://rpc.example/${KEY}).`)).toBe('wss://rpc.example, then (https://rpc.example).');
  expect(publicText('x'.repeat(400))).toHaveLength(300);
});
