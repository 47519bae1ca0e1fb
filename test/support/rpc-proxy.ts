import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// An HTTP JSON-RPC proxy on loopback in front of a test chain, misbehaving as public providers do
// when a test switches a fault on: it lies by omission about recent logs, refuses wide log ranges,
// rate-limits, and hangs. Faults can change at any time; a count of 0 (or none) is off.

export type RpcFaults = {
  /** eth_getLogs answers leave out logs of the newest `n` blocks (the head and the n − 1 before it). */
  dropLogsNearHead?: number;
  /**
   * eth_getLogs answers leave out the logs of these transactions unless the query filters on an
   * indexed argument (a `from` or `to` topic): a node whose range index lost them.
   */
  dropLogsOf?: string[];
  /** eth_getLogs over more than this many blocks is answered with `rangeError`. */
  maxLogRange?: number;
  rangeError?: { code: number; message: string };
  /** The next `n` requests are answered HTTP 429 (Infinity: every request). */
  tooManyRequests?: number;
  /** The next `n` requests are never answered: held until the client gives up or `hangLimitMs`. */
  hang?: number;
  /** Every connection is closed unanswered, as a node that went away (an outage): the client reads "connection closed". */
  down?: boolean;
  /** Limits tooManyRequests and hang to these JSON-RPC methods (a batch matches if any call does). */
  only?: string[];
};

export type RpcProxy = {
  url: string;
  /** Replaces every fault at once: `set({})` makes the proxy honest again. */
  set(faults: RpcFaults): void;
  /** JSON-RPC calls received (including refused ones), of one method or all. */
  calls(method?: string): number;
  /** HTTP requests received: a JSON-RPC batch is one. */
  requests(): number;
  stop(): Promise<void>;
};

/** Infura's answer to a log query it will not run (viem reads -32005 as LimitExceededRpcError). */
export const TOO_MANY_RESULTS = { code: -32005, message: 'query returned more than 10000 results' };

type Call = { jsonrpc: '2.0'; id: number | string | null; method: string; params?: unknown[] };
type Answer = { jsonrpc: '2.0'; id: Call['id']; result?: unknown; error?: { code: number; message: string } };
type LogFilter = { fromBlock?: string; toBlock?: string; blockHash?: string; topics?: Array<string | string[] | null> };

const MAX_BODY_BYTES = 1 << 20;

export async function startRpcProxy(upstream: string, { hangLimitMs = 30_000 } = {}): Promise<RpcProxy> {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(upstream).hostname)) {
    throw new Error(`the proxy fronts only a node on loopback, not ${upstream}`);
  }
  let faults: RpcFaults = {};
  const counts = new Map<string, number>();
  let requests = 0;
  const held = new Set<ServerResponse>();

  const forward = async (call: Call): Promise<Answer> => {
    const response = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    return (await response.json()) as Answer;
  };
  const head = async () => BigInt((await forward({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber' })).result as string);
  const height = (tag: string | undefined, latest: bigint) =>
    tag === undefined || !tag.startsWith('0x') ? (tag === 'earliest' ? 0n : latest) : BigInt(tag);

  const answer = async (call: Call): Promise<Answer> => {
    if (call.method !== 'eth_getLogs' || (!faults.maxLogRange && !faults.dropLogsNearHead && !faults.dropLogsOf?.length)) return forward(call);
    const filter = (call.params?.[0] ?? {}) as LogFilter;
    const latest = await head();
    if (faults.maxLogRange && filter.blockHash === undefined) {
      const blocks = height(filter.toBlock, latest) - height(filter.fromBlock, latest) + 1n;
      if (blocks > BigInt(faults.maxLogRange)) {
        return { jsonrpc: '2.0', id: call.id, error: faults.rangeError ?? TOO_MANY_RESULTS };
      }
    }
    const answered = await forward(call);
    if (!Array.isArray(answered.result)) return answered;
    const drop = faults.dropLogsNearHead;
    const byArgument = (filter.topics ?? []).slice(1).some((topic) => topic !== null);
    const hidden = new Set(byArgument ? [] : (faults.dropLogsOf ?? []).map((hash) => hash.toLowerCase()));
    const logs = answered.result as { blockNumber: string; transactionHash: string }[];
    return { ...answered, result: logs.filter((log) =>
      (!drop || BigInt(log.blockNumber) <= latest - BigInt(drop)) && !hidden.has(log.transactionHash.toLowerCase())) };
  };

  // Counted down as spent; Infinity stays Infinity.
  const spend = (fault: 'tooManyRequests' | 'hang', methods: string[]) => {
    const left = faults[fault] ?? 0;
    if (left <= 0 || (faults.only && !methods.some((method) => faults.only?.includes(method)))) return false;
    faults = { ...faults, [fault]: left - 1 };
    return true;
  };

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    if (faults.down) {
      requests += 1;
      return void request.socket.destroy();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void response.writeHead(413).end();
      chunks.push(chunk);
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
    const calls = Array.isArray(body) ? body : [body];
    requests += 1;
    const methods = calls.map((call) => call.method);
    for (const method of methods) counts.set(method, (counts.get(method) ?? 0) + 1);
    if (spend('hang', methods)) {
      held.add(response);
      const release = setTimeout(() => response.destroy(), hangLimitMs);
      response.on('close', () => {
        clearTimeout(release);
        held.delete(response);
      });
      return;
    }
    if (spend('tooManyRequests', methods)) {
      // As a rate limiter in front of a node answers (viem: HttpRequestError, status 429, retried). No
      // Retry-After: viem would wait the whole second it names.
      return void response.writeHead(429, { 'content-type': 'text/plain' }).end('Too Many Requests');
    }
    const answers = await Promise.all(calls.map(answer));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
  };

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else response.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (next) => {
      faults = { ...next };
    },
    calls: (method) =>
      method === undefined ? [...counts.values()].reduce((sum, count) => sum + count, 0) : (counts.get(method) ?? 0),
    requests: () => requests,
    stop: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
