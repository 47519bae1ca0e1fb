import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { TransferLog } from '../chain/chain-client.ts';

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
  /** Inserts the logs not recorded yet (or `removed`), answering those it wrote. */
  const write = async (table: 'processor.transfers' | 'processor.outgoing_transfers', logs: TransferLog[]) => {
    if (logs.length === 0) return [];
    const keys = await trx.insertInto(table).values(rows(logs))
      .onConflict((oc) => oc.columns(['network', 'tx_hash', 'log_index']).doUpdateSet((eb) => ({
        block_number: eb.ref('excluded.block_number'), block_hash: eb.ref('excluded.block_hash'), status: 'final', updated_at: now,
      })).where(sql.ref(`${table}.status`), '=', 'removed')).returning(['tx_hash', 'log_index']).execute();
    const taken = new Set(keys.map((key) => `${key.tx_hash}:${key.log_index}`));
    return logs.filter((log) => taken.has(`${log.txHash}:${log.logIndex}`));
  };
  const inbound = await write('processor.transfers', found.inbound);
  const outgoing = await write('processor.outgoing_transfers', found.outgoing);
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
