import type { Clock } from '../../core/clock.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import type { ChainClient } from '../chain/chain-client.ts';
import { tokenTotals, type StatusSection } from '../operating/status.ts';
import type { WatchedAddresses } from './watched-addresses.ts';

// Deposits waiting for finality (issue 22, must have 6): what the blocks after the final one hold
// for watched addresses now, read each poll after the scan with one log query (the head and final
// block are the ones the scan recorded) and kept only for the status. A
// network's rows are replaced whole, so one a reorganisation took away leaves with the next poll.
// Nothing acts on them: a deposit counts once detection records it from a final block.

/** The newest blocks looked at beyond the final one (a chain whose `finalized` tag lags far). */
export const UNFINAL_MAX_BLOCKS = 2_000n;

/** Replaces the network's deposits waiting for finality with what the chain holds now; answers how many. */
export async function recordUnfinalDeposits(db: Db, clock: Clock, client: ChainClient, network: NetworkConfig, watched: WatchedAddresses): Promise<number> {
  // The head and final block the scan just saw (scan-state.ts), not read again.
  const observed = await db.selectFrom('processor.network_scans').select(['head_block', 'final_block'])
    .where('network', '=', network.name).executeTakeFirst();
  if (observed === undefined || observed.head_block === null || observed.final_block === null) return 0;
  const head = BigInt(observed.head_block);
  const newest = head - UNFINAL_MAX_BLOCKS + 1n;
  const from = BigInt(observed.final_block) + 1n > newest ? BigInt(observed.final_block) + 1n : newest;
  const logs = head < from ? [] : await client.transferLogs(network.tokens.map((token) => token.address), from, head);
  const seen = [...new Map(logs.filter((log) => log.value > 0n && watched.has(log.to))
    .map((log) => [`${log.txHash}:${log.logIndex}`, log])).values()];
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('processor.unfinal_deposits').where('network', '=', network.name).execute();
    if (seen.length === 0) return;
    await trx.insertInto('processor.unfinal_deposits').values(seen.map((log) => ({
      network: network.name, tx_hash: log.txHash, log_index: log.logIndex, block_number: log.blockNumber,
      token: log.token, to_address: log.to, value: log.value.toString(), seen_at: now,
    }))).execute();
  });
  return seen.length;
}

/** The status's "deposits waiting for finality", by token. */
export const depositsWaitingForFinality: StatusSection = {
  name: 'deposits_waiting_for_finality',
  async read(db, network, tokens) {
    const rows = await db.selectFrom('processor.unfinal_deposits').select((eb) => ['token', eb.fn.countAll<string>().as('count'), eb.fn.sum<string>('value').as('total')])
      .where('network', '=', network).groupBy('token').orderBy('token').execute();
    return tokenTotals('deposits waiting for finality', rows, tokens);
  },
};
