import type { Selectable } from 'kysely';
import type { Address } from 'viem';
import type { Clock } from '../../core/clock.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import type { ProcessorForwardsTable } from '../../db/schema.ts';
import type { ForwardChain } from '../chain/forward-chain.ts';
import type { ProcessorKeys } from '../chain/keys.ts';

// A forward is written down for each final transfer to a watched address that has a payout wallet,
// before anything about it is signed: what it moves (net = value − ⌊value × fee_bps ÷ 10,000⌋,
// the rest the fee), from which deposit key, to which wallets. One per transfer, whoever plans it.

/** Forwards planned in one pass at most; the rest in the next. */
const PLAN_AT_ONCE = 500;

export type ForwardRow = Selectable<ProcessorForwardsTable>;

export function splitFee(value: bigint, feeBps: number): { net: bigint; fee: bigint } {
  const fee = value * BigInt(feeBps) / 10_000n;
  return { net: value - fee, fee };
}

/** What a network's forwarding works with. */
export interface ForwarderDeps {
  db: Db;
  clock: Clock;
  network: NetworkConfig;
  chain: ForwardChain;
  keys: ProcessorKeys;
  feeWallet: `0x${string}`;
}

type PlanDeps = ForwarderDeps & { log: (line: string) => void };

/** Plans a forward for every final transfer that has none; answers how many it planned. */
export async function planForwards(deps: PlanDeps, planned: (row: ForwardRow) => Promise<void>): Promise<number> {
  const { db, clock, network, keys } = deps;
  const now = clock.now();
  // A deposit a reorganisation removed and then put back is forwarded after all.
  await db.updateTable('processor.forwards').set({ state: 'planned', failure: null, updated_at: now })
    .where('network', '=', network.name).where('state', '=', 'canceled')
    .where((eb) => eb.exists(eb.selectFrom('processor.transfers as t').select('t.tx_hash')
      .whereRef('t.network', '=', 'processor.forwards.network').whereRef('t.tx_hash', '=', 'processor.forwards.transfer_tx_hash')
      .whereRef('t.log_index', '=', 'processor.forwards.transfer_log_index').where('t.status', '=', 'final')))
    .execute();
  const waiting = await db.selectFrom('processor.transfers as t')
    .innerJoin('processor.watched_addresses as w', 'w.address', 't.to_address')
    .leftJoin('processor.forwards as f', (join) => join.onRef('f.network', '=', 't.network').onRef('f.transfer_tx_hash', '=', 't.tx_hash').onRef('f.transfer_log_index', '=', 't.log_index'))
    .select(['t.tx_hash', 't.log_index', 't.token', 't.to_address', 't.value', 'w.payment_id', 'w.deposit_index', 'w.payout_wallet', 'w.fee_bps'])
    .where('t.network', '=', network.name).where('t.status', '=', 'final').where('f.id', 'is', null)
    // Without a payout wallet fixed at the start there is nowhere to forward to: it stays at the
    // deposit address for the operator (the stray-token command) and the service's checks.
    .where('w.payout_wallet', 'is not', null)
    .orderBy('t.block_number').orderBy('t.log_index').limit(PLAN_AT_ONCE).execute();
  let count = 0;
  for (const transfer of waiting) {
    if (transfer.payout_wallet === null) continue;
    if (transfer.fee_bps === null) {
      deps.log(`[processor] ${network.name}: the deposit ${transfer.tx_hash} to ${transfer.to_address} waits: its payment's fee is not known to the processor`);
      continue;
    }
    // The index is kept at the start (older payments': found once as the processor starts).
    const index = transfer.deposit_index;
    if (index === null || keys.deposit(index).address.toLowerCase() !== transfer.to_address) {
      deps.log(`[processor] ${network.name}: the deposit ${transfer.tx_hash} waits: ${transfer.to_address} is not derived from the processor's seed`);
      continue;
    }
    const method = await deps.chain.takesAuthorizations(transfer.token as Address) ? 'authorization' : 'top_up';
    const { net, fee } = splitFee(BigInt(transfer.value), transfer.fee_bps);
    const row = await db.insertInto('processor.forwards').values({
      network: network.name, transfer_tx_hash: transfer.tx_hash, transfer_log_index: transfer.log_index, payment_id: transfer.payment_id,
      deposit_address: transfer.to_address, deposit_index: index, token: transfer.token, method, value: transfer.value, fee_bps: transfer.fee_bps,
      net, fee, payout_wallet: transfer.payout_wallet, fee_wallet: deps.feeWallet, state: 'planned', created_at: now, updated_at: now,
    }).onConflict((oc) => oc.columns(['network', 'transfer_tx_hash', 'transfer_log_index']).doNothing()).returningAll().executeTakeFirst();
    if (row) {
      count += 1;
      await planned(row);
    }
  }
  return count;
}

