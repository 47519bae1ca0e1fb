import {
  BaseError,
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  createPublicClient,
  fallback,
  http,
  parseAbi,
  parseAbiItem,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type Transaction,
  type TransactionReceipt,
} from 'viem';
import type { NetworkConfig } from '../../core/networks-config.ts';
import { ChainClient, type BlockHeader, type ChainClientOptions } from './chain-client.ts';

// What forwarding asks of a network: balances, nonces, fees, simulations, broadcasts, receipts,
// and finality by the same rule as detection (ChainClient.finalBlock). viem's own clients over
// every RPC URL with its fallback transport: forwarding needs no range refusals told apart.

export const tokenAbi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);
export const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
/** Blocks per eth_getLogs call where a search may be long (providers refuse wide ranges). */
const LOG_RANGE = 2_000n;
export const AUTHORIZATION_CANCELED = parseAbiItem('event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)');

export const multicallAbi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
]);

/** How a node answered a broadcast it did not take. */
export type BroadcastRefusal = 'known' | 'nonce_used' | 'no_funds' | 'underpriced';

/** Whether a call failed because the chain refused it (a revert), not because a node did not answer. */
export function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return error.walk((cause) => cause instanceof ContractFunctionRevertedError || cause instanceof ExecutionRevertedError
    || /revert/i.test(`${(cause as BaseError).details ?? ''} ${(cause as Error).message ?? ''}`)) !== null;
}

/** The words of a revert (the token's reason when it gave one), in one line. */
export function revertReason(error: unknown): string {
  if (error instanceof BaseError) {
    const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError && reverted.reason) return reverted.reason;
    const text = `${error.details ?? ''} ${error.shortMessage}`;
    const quoted = /reverted with reason string '([^']+)'|execution reverted: ([^\n]+)/.exec(text);
    if (quoted) return (quoted[1] ?? quoted[2] ?? '').trim();
    return error.shortMessage.split('\n')[0] ?? 'reverted';
  }
  return error instanceof Error ? error.message.split('\n')[0] ?? 'reverted' : String(error);
}

function refusal(error: unknown): BroadcastRefusal | undefined {
  const text = error instanceof BaseError ? `${error.details ?? ''} ${error.shortMessage} ${error.message}` : String(error);
  if (/already known|known transaction|already imported|already exists/i.test(text)) return 'known';
  if (/nonce too low|nonce has already been used|nonce is too low|invalid nonce/i.test(text)) return 'nonce_used';
  if (/insufficient funds|sender doesn't have enough funds|exceeds balance/i.test(text)) return 'no_funds';
  if (/underpriced|fee too low|max fee per gas less than block base fee|replacement/i.test(text)) return 'underpriced';
  return undefined;
}

export class ForwardChain {
  readonly network: NetworkConfig;
  readonly client: PublicClient;
  readonly #finality: ChainClient;
  readonly #eip3009 = new Map<string, boolean>();

  constructor(network: NetworkConfig, options: ChainClientOptions = {}) {
    this.network = network;
    this.client = createPublicClient({
      // viem's fallback asks each URL once per round (its transports' own retries are set to 0) and
      // retries the round itself, three times unless told: one retry, so a node that hangs costs
      // two time-outs per call, not four.
      transport: fallback(network.rpcUrls.map((url) => http(url, { timeout: options.timeoutMs ?? 10_000 })), { retryCount: 1, retryDelay: options.retryDelayMs ?? 500 }),
    });
    this.#finality = new ChainClient(network, options);
  }

  finalBlock(): Promise<BlockHeader> {
    return this.#finality.finalBlock();
  }

  block(number: bigint): Promise<BlockHeader> {
    return this.#finality.block(number);
  }

  balance(address: Address): Promise<bigint> {
    return this.client.getBalance({ address });
  }

  /** The token balance now, or as of block `blockNumber`. */
  tokenBalance(token: Address, account: Address, blockNumber?: bigint): Promise<bigint> {
    return this.client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [account], ...(blockNumber === undefined ? {} : { blockNumber }) });
  }

  /** Transactions the account has in mined blocks. */
  minedNonce(address: Address): Promise<number> {
    return this.client.getTransactionCount({ address, blockTag: 'latest' });
  }

  /** Type-2 fees: what the node suggests now. */
  async fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const { maxFeePerGas, maxPriorityFeePerGas } = await this.client.estimateFeesPerGas({ chain: null, type: 'eip1559' });
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  gasPrice(): Promise<bigint> {
    return this.client.getGasPrice();
  }

  estimateGas(request: { from: Address; to: Address; data: Hex; value?: bigint }): Promise<bigint> {
    return this.client.estimateGas({ account: request.from, to: request.to, data: request.data, value: request.value ?? 0n });
  }

  /** Whether the token takes EIP-3009 authorizations (it answers authorizationState). */
  async takesAuthorizations(token: Address): Promise<boolean> {
    const known = this.#eip3009.get(token);
    if (known !== undefined) return known;
    const answer = await this.client.readContract({ address: token, abi: tokenAbi, functionName: 'authorizationState', args: ['0x0000000000000000000000000000000000000000', `0x${'0'.repeat(64)}`] })
      .then(() => true, (error: unknown) => {
        // A revert says the function is not there; anything else (the node down) is not an answer.
        if (error instanceof BaseError && error.walk((cause) => cause instanceof ContractFunctionRevertedError || /revert|returned no data/i.test((cause as Error).message ?? ''))) return false;
        throw error;
      });
    this.#eip3009.set(token, answer);
    return answer;
  }

  /** Whether the authorization is used or canceled: now, or as of block `blockNumber`. */
  authorizationUsed(token: Address, authorizer: Address, nonce: Hex, blockNumber?: bigint): Promise<boolean> {
    return this.client.readContract({ address: token, abi: tokenAbi, functionName: 'authorizationState', args: [authorizer, nonce], ...(blockNumber === undefined ? {} : { blockNumber }) });
  }

  /** The transaction that used an authorization, searched from `fromBlock` on (the deposit's block). */
  async authorizationUse(token: Address, authorizer: Address, nonce: Hex, fromBlock: bigint): Promise<Hash | undefined> {
    const logs = await this.client.getLogs({ address: token, event: AUTHORIZATION_USED, args: { authorizer, nonce }, fromBlock, toBlock: 'latest' });
    return logs[0]?.transactionHash ?? undefined;
  }

  /**
   * How an authorization ended in blocks `from`..`to`: used (by which transaction) or canceled
   * (cancelAuthorization), read from the token's logs in ranges a provider answers; undefined
   * when neither is there.
   */
  async authorizationEnd(token: Address, authorizer: Address, nonce: Hex, from: bigint, to: bigint): Promise<{ kind: 'used' | 'canceled'; hash: Hash } | undefined> {
    for (let start = from; start <= to; start += LOG_RANGE) {
      const end = start + LOG_RANGE - 1n < to ? start + LOG_RANGE - 1n : to;
      const range = { address: token, args: { authorizer, nonce }, fromBlock: start, toBlock: end } as const;
      const [used, canceled] = await Promise.all([
        this.client.getLogs({ ...range, event: AUTHORIZATION_USED }),
        this.client.getLogs({ ...range, event: AUTHORIZATION_CANCELED }),
      ]);
      if (used[0]) return { kind: 'used', hash: used[0].transactionHash };
      if (canceled[0]) return { kind: 'canceled', hash: canceled[0].transactionHash };
    }
    return undefined;
  }

  /** Runs a call as `from` would send it; throws the revert's words if it would fail. */
  async simulate(request: { from: Address; to: Address; data: Hex; value?: bigint; blockNumber?: bigint }): Promise<void> {
    const at = request.blockNumber === undefined ? {} : { blockNumber: request.blockNumber };
    await this.client.call({ account: request.from, to: request.to, data: request.data, value: request.value ?? 0n, ...at });
  }

  /** Broadcasts a signed transaction; a refusal the forwarder acts on is answered, not thrown. */
  async broadcast(raw: Hex): Promise<{ ok: true } | { ok: false; refusal: BroadcastRefusal; message: string }> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: raw });
      return { ok: true };
    } catch (error) {
      const kind = refusal(error);
      if (!kind) throw error;
      return { ok: false, refusal: kind, message: error instanceof BaseError ? error.shortMessage : String(error) };
    }
  }

  /** The mined transaction itself (its `to` and `value`, which the receipt does not carry). */
  transaction(hash: Hash): Promise<Transaction> {
    return this.client.getTransaction({ hash });
  }

  async receipt(hash: Hash): Promise<TransactionReceipt | undefined> {
    try {
      return await this.client.getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof BaseError && error.name === 'TransactionReceiptNotFoundError') return undefined;
      throw error;
    }
  }
}
