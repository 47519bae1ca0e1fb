import { formatUnits, type Address } from 'viem';
import type { NetworkConfig } from '../core/networks-config.ts';
import type { Db } from '../db/database.ts';
import type { ChainClientOptions } from './chain-client.ts';
import { ForwardChain } from './forward-chain.ts';

// The gas wallet as the operator sees it: its address (kept in the database as forwarding starts,
// so the status command holds no key), its balance, and whether it runs low.

/** The gas wallet is low when it pays for fewer than this many forwards at the current gas price. */
export const LOW_GAS_FORWARDS = 20n;
/** A forward's gas, for the threshold: a batch of two authorizations, or a top-up and two transfers, takes less. */
export const FORWARD_GAS = 150_000n;

export async function lowGasThreshold(chain: ForwardChain): Promise<bigint> {
  return LOW_GAS_FORWARDS * FORWARD_GAS * await chain.gasPrice();
}

export interface GasWalletStatus {
  /** Undefined until the processor has started forwarding on the network once. */
  address: string | undefined;
  /** Wei, as a decimal string, and in the native coin. */
  balance: string;
  balanceCoin: string;
  /** Below LOW_GAS_FORWARDS × FORWARD_GAS at the current gas price. */
  low: boolean;
  threshold: string;
}

/** The gas wallet's address (from the database) and balance (from the chain), and whether it runs low. */
export async function gasWalletStatus(db: Db, network: NetworkConfig, rpc: ChainClientOptions = {}): Promise<GasWalletStatus> {
  const row = await db.selectFrom('processor.sender_nonces').select('address').where('network', '=', network.name).where('kind', '=', 'gas_wallet').executeTakeFirst();
  const chain = new ForwardChain(network, rpc);
  const threshold = await lowGasThreshold(chain);
  if (!row) return { address: undefined, balance: '0', balanceCoin: '0', low: true, threshold: threshold.toString() };
  const balance = await chain.balance(row.address as Address);
  return { address: row.address, balance: balance.toString(), balanceCoin: formatUnits(balance, 18), low: balance < threshold, threshold: threshold.toString() };
}

