import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { TransferLog } from './chain-client.ts';

// Writing transfers down, for the scan and for the reconciliation's re-scan alike: each once by
// (network, transaction, log index); one a reorganisation removed and then put back is `final`
// again with its new block. Deposits (to a watched address) go to processor.transfers, what left
// a watched address to processor.outgoing_transfers, which nothing forwards.

export async function recordTransfers(trx: Transaction<Database>, network: string, now: Date, found: {
  inbound: TransferLog[];
  outgoing: TransferLog[];
}): Promise<{ inbound: TransferLog[]; outgoing: TransferLog[] }> {
  const rows = (logs: TransferLog[]) => logs.map((log) => ({
    network, tx_hash: log.txHash, log_index: log.logIndex, block_number: log.blockNumber, block_hash: log.blockHash,
    token: log.token, from_address: log.from, to_address: log.to, value: log.value.toString(), status: 'final' as const,
    recorded_at: now, updated_at: now,
  }));
  const written = (logs: TransferLog[], keys: Array<{ tx_hash: string; log_index: number }>) => {
    const taken = new Set(keys.map((key) => `${key.tx_hash}:${key.log_index}`));
    return logs.filter((log) => taken.has(`${log.txHash}:${log.logIndex}`));
  };
  let inbound: TransferLog[] = [];
  let outgoing: TransferLog[] = [];
  if (found.inbound.length > 0) {
    const keys = await trx.insertInto('processor.transfers').values(rows(found.inbound))
      .onConflict((oc) => oc.columns(['network', 'tx_hash', 'log_index']).doUpdateSet((eb) => ({
        block_number: eb.ref('excluded.block_number'), block_hash: eb.ref('excluded.block_hash'), status: 'final', updated_at: now,
      })).where('processor.transfers.status', '=', 'removed')).returning(['tx_hash', 'log_index']).execute();
    inbound = written(found.inbound, keys);
  }
  if (found.outgoing.length > 0) {
    const keys = await trx.insertInto('processor.outgoing_transfers').values(rows(found.outgoing))
      .onConflict((oc) => oc.columns(['network', 'tx_hash', 'log_index']).doUpdateSet((eb) => ({
        block_number: eb.ref('excluded.block_number'), block_hash: eb.ref('excluded.block_hash'), status: 'final', updated_at: now,
      })).where('processor.outgoing_transfers.status', '=', 'removed')).returning(['tx_hash', 'log_index']).execute();
    outgoing = written(found.outgoing, keys);
  }
  if (inbound.length > 0) {
    await trx.updateTable('processor.network_scans').set({ transfers_recorded: sql`transfers_recorded + ${inbound.length}` })
      .where('network', '=', network).execute();
  }
  return { inbound, outgoing };
}

/** Once per transaction and log index, should a node repeat a log. */
export function distinctLogs(logs: TransferLog[]): TransferLog[] {
  return [...new Map(logs.map((log) => [`${log.txHash}:${log.logIndex}`, log])).values()];
}
