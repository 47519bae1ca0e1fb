import { createHardhatRuntimeEnvironment } from 'hardhat/hre';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Agent, fetch as undiciFetch } from 'undici';

// A real EVM for one test file: Hardhat's EDR node in this process, serving HTTP JSON-RPC on loopback,
// driven with viem as the processor will be. EDR's `finalized` and `safe` blocks are its latest, so
// tests give the processor a confirmation depth and mine blocks instead of waiting for finality.

// Hardhat reports usage and errors unless told not to when it sees a terminal; tests send nothing.
process.env.HARDHAT_DISABLE_TELEMETRY = 'true';

export type ChainOptions = {
  /** 31337 by default; 137 when a test poses as Polygon. */
  chainId?: number;
  /** Off by default: a transaction waits in the mempool until the test mines a block. */
  automine?: boolean;
  /** 0 (the default): the system picks a free loopback port. `npm run chain` asks for 8545. */
  port?: number;
  /** Fixed keys for the three accounts (fresh ones by default), so contract addresses repeat across runs. */
  keys?: { deployer: Hex; buyer: Hex; gasWallet: Hex };
  /** A block every this many ms as well as those mined on demand (off by default). */
  blockIntervalMs?: number;
  /**
   * Blocks mined within one second may share its timestamp, so the chain's clock keeps to the
   * wall clock however fast a test mines (off by default: each block a second after its parent at
   * least, and a test mining several blocks a second runs the chain's clock ahead, past the
   * windows of authorizations signed by the wall clock).
   */
  sameTimestamps?: boolean;
};

/** The chain's state at a height, to reorganise back to (the node's snapshot, used once). */
export type ForkPoint = { snapshot: Hex; height: bigint };

export type TestChain = {
  url: string;
  chain: Chain;
  client: PublicClient;
  /** viem's test actions (mine, snapshot, revert, setBalance, setAutomine, increaseTime…). */
  node: TestClient<'hardhat'>;
  /** Funded with 1,000 of the native coin each at genesis. */
  accounts: { deployer: PrivateKeyAccount; buyer: PrivateKeyAccount; gasWallet: PrivateKeyAccount };
  wallet(account: PrivateKeyAccount): WalletClient<ReturnType<typeof http>, Chain, PrivateKeyAccount>;
  /** A fresh key, funded with `wei` (none by default, as a deposit address holds no gas). */
  newAccount(wei?: bigint): Promise<PrivateKeyAccount>;
  fund(address: Address, wei: bigint): Promise<void>;
  head(): Promise<bigint>;
  /** Mines `blocks` blocks (at once, however many) and answers the new head. */
  mine(blocks?: number): Promise<bigint>;
  /** Mines a block if automine is off, then answers the transaction's receipt; throws if it reverted. */
  confirm(hash: Hash): Promise<TransactionReceipt>;
  /** As `confirm`, for transactions sent together: one block mines them all. */
  confirmAll(hashes: Hash[]): Promise<TransactionReceipt[]>;
  setAutomine(on: boolean): Promise<void>;
  forkPoint(): Promise<ForkPoint>;
  reorganise(point: ForkPoint, options?: ReorganiseOptions): Promise<void>;
  stop(): Promise<void>;
};

export type ReorganiseOptions = {
  /** Sends the new branch's transactions (e.g. a removed transaction again, to move it to another block). */
  replace?: () => Promise<void>;
  /** Blocks in the new branch; at least as many as the branch it replaces, so it wins as a longer chain would. */
  blocks?: number;
};

const GENESIS_BALANCE = 10n ** 21n;

/** A connection the node closed before answering (ECONNRESET, or undici's closed socket). */
function resetBeforeAnswer(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNRESET' || cause?.code === 'UND_ERR_SOCKET';
}

export async function startChain(options: ChainOptions = {}): Promise<TestChain> {
  const chainId = options.chainId ?? 31337;
  let automine = options.automine ?? false;
  const keys = options.keys ?? { deployer: generatePrivateKey(), buyer: generatePrivateKey(), gasWallet: generatePrivateKey() };
  const accounts = {
    deployer: privateKeyToAccount(keys.deployer),
    buyer: privateKeyToAccount(keys.buyer),
    gasWallet: privateKeyToAccount(keys.gasWallet),
  };
  const hre = await createHardhatRuntimeEnvironment({
    networks: {
      test: {
        type: 'edr-simulated',
        chainId,
        // First in, first mined: a test reads the block order from the order it sent transactions in.
        mining: { auto: automine, interval: options.blockIntervalMs ?? 0, mempool: { order: 'fifo' } },
        allowBlocksWithSameTimestamp: options.sameTimestamps ?? false,
        accounts: Object.values(keys).map((privateKey) => ({ privateKey, balance: GENESIS_BALANCE })),
      },
    },
  });
  // Port 0: the system picks a free one, so files running at once never collide.
  const server = await hre.network.createServer('test', '127.0.0.1', options.port ?? 0);
  const { address, port } = await server.listen();
  const url = `http://${address}:${port}`;
  const chain = defineChain({
    id: chainId,
    name: `test chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  // The node's server closes a connection idle for 5 s; reusing one at that moment reads
  // ECONNRESET (seen under load). Connections idle for a second are not reused.
  // Under load a reset still happens now and then (two chain files failed in one full run, each at
  // its first request after the node started): a request that did not send money is asked once more.
  const agent = new Agent({ keepAliveTimeout: 1_000 });
  const send = (input: unknown, init: unknown) => undiciFetch(input as string, { ...init as object, dispatcher: agent }) as unknown as Promise<Response>;
  const transport = http(url, {
    retryCount: 0,
    fetchFn: async (input, init) => {
      try {
        return await send(input, init);
      } catch (error) {
        const body = typeof init?.body === 'string' ? init.body : '';
        if (!resetBeforeAnswer(error) || /eth_send(Raw)?Transaction/.test(body)) throw error;
        return send(input, init);
      }
    },
  });
  const client = createPublicClient({ chain, transport, pollingInterval: 50 });
  const node = createTestClient({ chain, transport, mode: 'hardhat' });

  const head = () => client.getBlockNumber({ cacheTime: 0 });
  // One block per call: the node makes the blocks of one hardhat_mine after the first lazily,
  // answering a zero parent hash for them, which a processor walking parent hashes takes for a reorganisation.
  const mine = async (blocks = 1) => {
    for (let i = 0; i < blocks; i += 1) await node.mine({ blocks: 1 });
    return head();
  };
  const confirmAll = async (hashes: Hash[]) => {
    if (!automine) await mine(1);
    const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash })));
    const reverted = receipts.filter((receipt) => receipt.status !== 'success');
    if (reverted.length > 0) throw new Error(`reverted: ${reverted.map((receipt) => receipt.transactionHash).join(', ')}`);
    return receipts;
  };

  return {
    url,
    chain,
    client,
    node,
    accounts,
    wallet: (account) => createWalletClient({ account, chain, transport }),
    newAccount: async (wei = 0n) => {
      const account = privateKeyToAccount(generatePrivateKey());
      if (wei > 0n) await node.setBalance({ address: account.address, value: wei });
      return account;
    },
    fund: (address, wei) => node.setBalance({ address, value: wei }),
    head,
    mine,
    confirm: async (hash) => (await confirmAll([hash]))[0]!,
    confirmAll,
    setAutomine: async (on) => {
      await node.setAutomine(on);
      automine = on;
    },
    forkPoint: async () => ({ snapshot: await node.snapshot(), height: await head() }),
    // A reorganisation as a node sees one: the blocks after the point are replaced by other blocks
    // at the same heights, the first a second later than the one it replaces so its hash differs
    // even when both are empty. The mempool goes back to the point's too: unlike a real node, this one
    // does not take back the removed transactions, so a transaction is gone unless `replace` sends it.
    reorganise: async (point, { replace, blocks = 1 } = {}) => {
      const replaced = await head();
      if (replaced === point.height) throw new Error('nothing was mined after the fork point to replace');
      const firstReplaced = await client.getBlock({ blockNumber: point.height + 1n });
      // After `mine(n)` the node may have given the next block an earlier time than the last one's,
      // so the new branch starts after both the replaced block and the fork point.
      const pointTime = (await client.getBlock({ blockNumber: point.height })).timestamp;
      const nextTime = (firstReplaced.timestamp > pointTime ? firstReplaced.timestamp : pointTime) + 1n;
      // viem types evm_revert's answer as void; the node answers false for a snapshot it does not have.
      const reverted: unknown = await node.request({ method: 'evm_revert', params: [point.snapshot] });
      if (reverted !== true) throw new Error(`no snapshot ${point.snapshot}: each is used once`);
      await node.setNextBlockTimestamp({ timestamp: nextTime });
      await replace?.();
      const length = Math.max(blocks, Number(replaced - point.height));
      const minedByReplace = Number((await head()) - point.height);
      if (length > minedByReplace) await mine(length - minedByReplace);
    },
    // Closes the HTTP server; the EDR instance behind it goes with the test file's process.
    stop: async () => {
      await agent.close();
      await server.close();
    },
  };
}
