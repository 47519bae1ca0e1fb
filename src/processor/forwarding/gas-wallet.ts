import type { Address } from 'viem';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import type { ForwardChain } from '../chain/forward-chain.ts';

// The gas wallet as the operator sees it: each forwarding pass reads its balance and writes it
// down with the low-gas threshold of the moment, so the status command and the metrics answer
// from the database alone (and hold no key). Only types of viem here: the CLI imports this file.

/** The gas wallet is low when it pays for fewer than this many forwards at the current gas price. */
export const LOW_GAS_FORWARDS = 20n;
/** A forward's gas, for the threshold: a batch of two authorizations, or a top-up and two transfers, takes less. */
export const FORWARD_GAS = 150_000n;

export interface GasWalletStatus {
  /** Undefined until forwarding started on the network. */
  address: string | undefined;
  /** Wei as a decimal string, and in the native coin; null until a pass read it. */
  balance: string | null;
  balanceCoin: string | null;
  /** Below LOW_GAS_FORWARDS × FORWARD_GAS at the gas price of the last pass. */
  low: boolean;
  threshold: string | null;
  checkedAt: Date | null;
}

/** Writes down the gas wallet's address as forwarding starts on a network. */
export async function rememberGasWallet(db: Db, network: string, address: string): Promise<void> {
  await db.insertInto('processor.gas_wallets').values({ network, address: address.toLowerCase() })
    .onConflict((oc) => oc.column('network').doUpdateSet({ address: address.toLowerCase() })).execute();
}

/** Reads the gas wallet's balance and the threshold now, and writes them down. */
export async function checkGasWallet(db: Db, clock: Clock, chain: ForwardChain, address: Address): Promise<GasWalletStatus> {
  const [balance, gasPrice] = await Promise.all([chain.balance(address), chain.gasPrice()]);
  const threshold = LOW_GAS_FORWARDS * FORWARD_GAS * gasPrice;
  await db.insertInto('processor.gas_wallets')
    .values({ network: chain.network.name, address: address.toLowerCase(), balance, low_below: threshold, checked_at: clock.now() })
    .onConflict((oc) => oc.column('network').doUpdateSet({ address: address.toLowerCase(), balance, low_below: threshold, checked_at: clock.now() })).execute();
  return statusOf({ address: address.toLowerCase(), balance: balance.toString(), low_below: threshold.toString(), checked_at: clock.now() });
}

/** The gas wallet of a network as the last forwarding pass saw it (`processor status`, metrics). */
export async function gasWalletStatus(db: Db, network: string): Promise<GasWalletStatus> {
  const row = await db.selectFrom('processor.gas_wallets').selectAll().where('network', '=', network).executeTakeFirst();
  return statusOf(row);
}

function statusOf(row: { address: string; balance: string | null; low_below: string | null; checked_at: Date | null } | undefined): GasWalletStatus {
  if (!row) return { address: undefined, balance: null, balanceCoin: null, low: false, threshold: null, checkedAt: null };
  const balance = row.balance === null ? null : BigInt(row.balance);
  return {
    address: row.address,
    balance: balance?.toString() ?? null,
    balanceCoin: balance === null ? null : nativeCoin(balance),
    low: balance !== null && row.low_below !== null && balance < BigInt(row.low_below),
    threshold: row.low_below,
    checkedAt: row.checked_at,
  };
}

/** Wei in the native coin (18 decimals), as viem's formatUnits writes it, without loading viem. */
function nativeCoin(wei: bigint): string {
  const fraction = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return `${wei / 10n ** 18n}${fraction === '' ? '' : `.${fraction}`}`;
}
