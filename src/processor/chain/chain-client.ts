import { createPublicClient, http, parseAbiItem, type Address, type PublicClient } from 'viem';
import type { NetworkConfig } from '../../core/networks-config.ts';
import { rpcFailure, rpcOrigin } from './rpc-failure.ts';

// One network's JSON-RPC, over every configured URL. Our own failover and retry rather than
// viem's: viem retries -32005, which providers also answer to a log range too wide, and the
// scan must hear that refusal at once to shrink its range instead of waiting out backoffs.

export const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const BALANCE_OF = [parseAbiItem('function balanceOf(address account) view returns (uint256)')] as const;
/** eth_calls sent in one JSON-RPC batch (one HTTP request); providers accept 100 and more. */
export const BALANCE_BATCH = 100;

export interface BlockHeader {
  number: bigint;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  /** Seconds since the epoch. */
  timestamp: bigint;
}

export interface TransferLog {
  token: `0x${string}`;
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  txHash: `0x${string}`;
  logIndex: number;
  blockNumber: bigint;
  blockHash: `0x${string}`;
}

/** The provider will not answer a log query this wide, or with this many results: ask for less. */
export class RangeRefused extends Error {}

/** Every URL failed, however often tried: the message names each URL's origin (never its path) and why. */
export class RpcUnavailable extends Error {}

// Messages providers send for a log query too wide or too large (Infura, Alchemy, QuickNode,
// Ankr, public Polygon and Base nodes), as opposed to a rate limit.
const RANGE_REFUSAL = /block range|range (is )?too (large|wide|big)|more than \d+ results|response size|results? (limit|too large)|too many (results|logs|blocks)|maximum block range|limited to (a )?\d+|range limit/i;
const RATE_LIMIT = /rate|too many requests|capacity|throughput|per second/i;

function refusesRange(error: unknown): boolean {
  for (let cause = error as { message?: string; details?: string; code?: number; cause?: unknown } | undefined; cause; cause = cause.cause as typeof cause) {
    const text = `${cause.details ?? ''} ${cause.message ?? ''}`;
    if (RATE_LIMIT.test(text)) return false;
    if (RANGE_REFUSAL.test(text)) return true;
  }
  return false;
}

export interface ChainClientOptions {
  /** One request's time limit (default 10 s). */
  timeoutMs?: number;
  /** Rounds over every URL before giving up (default 4). */
  rounds?: number;
  /** The wait after the first failed round, doubling each round (default 500 ms). */
  retryDelayMs?: number;
}

export class ChainClient {
  readonly #network: NetworkConfig;
  readonly #clients: PublicClient[];
  readonly #rounds: number;
  readonly #retryDelayMs: number;
  readonly #timeoutMs: number;
  /** The same URLs, sending calls made together as JSON-RPC batches (balance reads); made when first needed. */
  #batching: PublicClient[] | undefined;
  /** The URL that answered last: tried first next time. */
  #preferred = 0;

  constructor(network: NetworkConfig, options: ChainClientOptions = {}) {
    this.#network = network;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#clients = network.rpcUrls.map((url) => createPublicClient({
      transport: http(url, { retryCount: 0, timeout: this.#timeoutMs }),
    }));
    this.#rounds = options.rounds ?? 4;
    this.#retryDelayMs = options.retryDelayMs ?? 500;
  }

  /**
   * Runs `request` on the preferred URL, then each other in turn; after a round of failures,
   * waits and goes round again. A log range refusal is thrown at once, as RangeRefused.
   */
  async #call<T>(what: string, request: (client: PublicClient) => Promise<T>, { ranged = false, batched = false, rounds = this.#rounds } = {}): Promise<T> {
    const clients = batched ? this.#batchingClients() : this.#clients;
    // Each URL's latest failure, by index: the refusal names them all.
    const failures = new Map<number, unknown>();
    for (let round = 0; round < rounds; round += 1) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, this.#retryDelayMs * 2 ** (round - 1)));
      for (let turn = 0; turn < clients.length; turn += 1) {
        const index = (this.#preferred + turn) % clients.length;
        try {
          const answer = await request(clients[index]!);
          this.#preferred = index;
          return answer;
        } catch (error) {
          if (ranged && refusesRange(error)) throw new RangeRefused(error instanceof Error ? error.message : String(error));
          failures.set(index, error);
        }
      }
    }
    const reasons = [...failures].sort(([a], [b]) => a - b).map(([index, error]) => `${rpcOrigin(this.#network.rpcUrls[index]!)}: ${rpcFailure(error)}`);
    throw new RpcUnavailable(`${this.#network.name}: ${what} failed on every RPC URL (${reasons.join('; ')})`);
  }

  /** The node's chain id; `rounds` (default the client's) bounds the tries, as a start's quick check wants. */
  chainId({ rounds }: { rounds?: number } = {}): Promise<number> {
    return this.#call('eth_chainId', (client) => client.getChainId(), { rounds });
  }

  async block(number: bigint): Promise<BlockHeader> {
    return this.#call('eth_getBlockByNumber', async (client) => header(await client.getBlock({ blockNumber: number })));
  }

  /** The newest final block: the chain's `finalized` block, or the head less the confirmation depth. */
  async finalBlock(): Promise<BlockHeader> {
    const depth = this.#network.confirmations;
    if (depth === undefined) return this.#call('eth_getBlockByNumber', async (client) => header(await client.getBlock({ blockTag: 'finalized' })));
    const head = await this.#call('eth_blockNumber', (client) => client.getBlockNumber({ cacheTime: 0 }));
    return this.block(head > BigInt(depth) ? head - BigInt(depth) : 0n);
  }

  /** Transfer logs of `tokens` in blocks from..to, both included. */
  async transferLogs(tokens: Address[], from: bigint, to: bigint): Promise<TransferLog[]> {
    const logs = await this.#call('eth_getLogs', (client) => client.getLogs({ address: tokens, event: TRANSFER_EVENT, fromBlock: from, toBlock: to, strict: true }), { ranged: true });
    return asTransferLogs(logs);
  }

  /** The head and the newest final block (the status shows both); one call more than finalBlock on a `finalized` chain. */
  async heads(): Promise<{ head: bigint; final: BlockHeader }> {
    const head = await this.#call('eth_blockNumber', (client) => client.getBlockNumber({ cacheTime: 0 }));
    const depth = this.#network.confirmations;
    if (depth === undefined) return { head, final: await this.finalBlock() };
    return { head, final: await this.block(head > BigInt(depth) ? head - BigInt(depth) : 0n) };
  }

  /** Transfer logs of `tokens` to (or from) one address in blocks from..to: a topic filter, so the node returns only that address's. */
  async transferLogsOf(tokens: Address[], party: { to: Address } | { from: Address }, from: bigint, to: bigint): Promise<TransferLog[]> {
    const logs = await this.#call('eth_getLogs', (client) => client.getLogs({ address: tokens, event: TRANSFER_EVENT, args: party, fromBlock: from, toBlock: to, strict: true }), { ranged: true });
    return asTransferLogs(logs);
  }

  /**
   * `balanceOf` of each holder in its token at `block`: JSON-RPC batches of BALANCE_BATCH calls,
   * one after another, each retried alone. The caller bounds how many.
   */
  async balancesAt(holdings: Array<{ token: Address; holder: Address }>, block: bigint): Promise<bigint[]> {
    const balances: bigint[] = [];
    for (let first = 0; first < holdings.length; first += BALANCE_BATCH) {
      const batch = holdings.slice(first, first + BALANCE_BATCH);
      balances.push(...await this.#call('eth_call balanceOf', (client) => Promise.all(batch.map(({ token, holder }) =>
        client.readContract({ address: token, abi: BALANCE_OF, functionName: 'balanceOf', args: [holder], blockNumber: block }))), { batched: true }));
    }
    return balances;
  }

  #batchingClients(): PublicClient[] {
    this.#batching ??= this.#network.rpcUrls.map((url) => createPublicClient({
      transport: http(url, { retryCount: 0, timeout: this.#timeoutMs, batch: { batchSize: BALANCE_BATCH } }),
    }));
    return this.#batching;
  }
}

type StrictTransferLog = { address: Address; args: { from: Address; to: Address; value: bigint }; blockNumber: bigint | null; blockHash: `0x${string}` | null; transactionHash: `0x${string}` | null; logIndex: number | null };

function asTransferLogs(logs: StrictTransferLog[]): TransferLog[] {
  return logs.flatMap((log) => {
    // A pending log has no block yet; it cannot occur in a range of final blocks.
    if (log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) return [];
    return [{
      token: log.address.toLowerCase() as `0x${string}`,
      from: log.args.from.toLowerCase() as `0x${string}`,
      to: log.args.to.toLowerCase() as `0x${string}`,
      value: log.args.value,
      txHash: log.transactionHash.toLowerCase() as `0x${string}`,
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash.toLowerCase() as `0x${string}`,
    }];
  });
}

function header(block: { number: bigint | null; hash: `0x${string}` | null; parentHash: `0x${string}`; timestamp: bigint }): BlockHeader {
  if (block.number === null || block.hash === null) throw new Error('the node answered a pending block');
  return { number: block.number, hash: block.hash.toLowerCase() as `0x${string}`, parentHash: block.parentHash.toLowerCase() as `0x${string}`, timestamp: block.timestamp };
}
