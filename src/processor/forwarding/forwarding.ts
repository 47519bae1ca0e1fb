import type { Clock } from '../../core/clock.ts';
import { StartupError } from '../../core/errors.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import { publicText } from '../../core/public-text.ts';
import type { ChainClientOptions } from '../chain/chain-client.ts';
import { ForwardChain } from '../chain/forward-chain.ts';
import { Forwarder, StepInterrupted, type ForwarderOptions } from './forwarder.ts';
import type { ProcessorKeys } from '../chain/keys.ts';

import { rememberGasWallet } from './gas-wallet.ts';

export { gasWalletStatus, type GasWalletStatus } from './gas-wallet.ts';
export { forwardsSummary, type ForwardsSummary } from './forwarding-status.ts';

// Forwarding as the processor runs it: one Forwarder per configured network, each pass planning
// the new final deposits and moving every open forward on; the processor runs a pass on each
// network whose lock it holds, every poll (processor.ts). What the operator sees
// of it (forwardsSummary, gasWalletStatus) reads the database and the chain, never a key.

export interface Forwarding {
  forwarders: Forwarder[];
  /** One pass on every network now. */
  forwardAll(): Promise<void>;
  /** One pass on one network: the processor's step for each network whose lock it holds. */
  forwardNetwork(network: NetworkConfig): Promise<void>;
  stop(): Promise<void>;
}

export interface ForwardingDeps {
  db: Db;
  clock: Clock;
  networks: NetworkConfig[];
  keys: ProcessorKeys;
  /** PROCESSOR_FEE_WALLET; without it the processor does not forward. */
  feeWallet: `0x${string}` | undefined;
}

/**
 * Forwarding without the fee wallet would either give the fee to nobody or hand it to the
 * merchant; neither is what the operator agreed to, so the processor refuses to start.
 */
export function requireFeeWallet(feeWallet: `0x${string}` | undefined): `0x${string}` {
  if (!feeWallet) throw new StartupError('PROCESSOR_FEE_WALLET is not set: the processor forwards deposits only once it knows where the fee goes.');
  return feeWallet;
}

export async function startForwarding(deps: ForwardingDeps, options: ForwarderOptions & {
  rpc?: ChainClientOptions;
} = {}): Promise<Forwarding> {
  const feeWallet = requireFeeWallet(deps.feeWallet);
  const log = options.log ?? ((line: string) => console.error(line));
  const forwarders = deps.networks.map((network) => new Forwarder({
    db: deps.db, clock: deps.clock, network, chain: new ForwardChain(network, options.rpc), keys: deps.keys, feeWallet,
  }, { ...options, log }));
  // The gas wallet's address, kept for the status command (which holds no key).
  for (const network of deps.networks) await rememberGasWallet(deps.db, network.name, deps.keys.gasWallet.address);
  for (const network of deps.networks) log(`[processor] ${network.name}: forwarding through the gas wallet ${deps.keys.gasWallet.address}`);

  const pass = async (forwarder: Forwarder) => {
    try {
      await forwarder.pass();
    } catch (error) {
      if (error instanceof StepInterrupted) throw error;
      log(`[processor] ${forwarder.network.name}: forwarding pass failed: ${publicText(error)}`);
    }
  };
  const forwardAll = async () => {
    await Promise.all(forwarders.map(pass));
  };
  const forwardNetwork = async (network: NetworkConfig) => {
    const forwarder = forwarders.find((candidate) => candidate.network.name === network.name);
    if (forwarder) await pass(forwarder);
  };
  return {
    forwarders,
    forwardAll,
    forwardNetwork,
    async stop() {
      // Nothing runs between passes: the processor awaits each one it starts.
    },
  };
}

/** The operator's "try again now": failed forwards are retried at the next pass instead of after their back-off. */
export async function retryFailedForwards(db: Db, clock: Clock, network?: string): Promise<number> {
  let query = db.updateTable('processor.forwards').set({ retry_at: clock.now() }).where('state', '=', 'failed');
  if (network) query = query.where('network', '=', network);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
