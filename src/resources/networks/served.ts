import { SECOND } from '../../core/clock.ts';
import { ACCEPTED_COINS, isAcceptedCoin, type AcceptedCoinId } from '../../core/payment-request.ts';
import { NETWORK_NAMES, type NetworkName } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import { publicText } from '../../core/public-text.ts';
import type { Selectable } from 'kysely';
import type { ProcessorNetworksTable } from '../../db/schema.ts';

// Which Live coins something serves now (issue 22, must-have 7): a network is served while the
// processor's latest processor.status report of it says healthy and is recent (within
// PROCESSOR_STATUS_FRESH_SECONDS). Live starts, payer pages and the go-live checklist ask here;
// Test mode never does (its networks are simulated).

export type NetworkReport = Selectable<ProcessorNetworksTable>;

/** A network's latest report, as the processor sent it (one per network). */
export interface NetworkStatus {
  network: NetworkName;
  chainId: number;
  coins: readonly string[];
  healthy: boolean;
  /** Null while the processor has not scanned the network yet. */
  headBlock: number | null;
  finalBlock: number | null;
  cursorBlock: number | null;
  problem: string | null;
  /** How its forwarding goes; absent when the processor said nothing of it. */
  forwarding?: ForwardingReport | undefined;
}

/** What a status says of a network's forwarding: the forwards failed or late, each named (at most 200). */
export interface ForwardingReport {
  healthy: boolean;
  /** The one cause that explains the rest (gas_wallet, forwards_failed, forwards_late); null when healthy. */
  trouble: string | null;
  problem: string | null;
  delayed: Array<{ paymentId: string; depositAddress: string; state: 'failed' | 'pending'; since: Date; reason: string | null }>;
}

/** Whether a report makes its network served at `now`. */
export function isServed(report: Pick<NetworkReport, 'healthy' | 'reported_at'>, now: Date, freshSeconds: number): boolean {
  return report.healthy && now.getTime() - report.reported_at.getTime() <= freshSeconds * SECOND;
}

/** Every network's latest report, in the networks' fixed order; a network never reported is absent. */
export async function networkReports(db: Db): Promise<NetworkReport[]> {
  const rows = await db.selectFrom('processor_networks').selectAll().execute();
  return NETWORK_NAMES.flatMap((name) => rows.filter((row) => row.network === name));
}

/**
 * The coins a Live buyer may be offered at `now`: those the service accepts (ACCEPTED_COINS, in
 * its order) that a served network's processor watches. Empty when nothing is served.
 */
export async function servedCoins(db: Db, now: Date, freshSeconds: number): Promise<AcceptedCoinId[]> {
  return (await coinsByHealth(db, now, freshSeconds)).served;
}

/**
 * Every accepted coin a processor reported watching, split: `served` (its network healthy and
 * recent) and `delayed` (reported, but not served now: the node is down or the report stale).
 * A deposit address already shown keeps both: its money is found once the network is back.
 */
export async function coinsByHealth(db: Db, now: Date, freshSeconds: number): Promise<{ served: AcceptedCoinId[]; delayed: AcceptedCoinId[] }> {
  const served = new Set<string>();
  const reported = new Set<string>();
  for (const report of await networkReports(db)) {
    for (const coin of report.coins) (isServed(report, now, freshSeconds) ? served : reported).add(coin);
  }
  const accepted = (Object.keys(ACCEPTED_COINS) as AcceptedCoinId[]).filter((coin) => isAcceptedCoin(coin));
  return { served: accepted.filter((coin) => served.has(coin)), delayed: accepted.filter((coin) => reported.has(coin) && !served.has(coin)) };
}

/**
 * Stores each network's report unless a newer one is already stored (reports may arrive out of
 * order on retries), and with it the forwards it names as failed or late, replacing the ones the
 * network's previous report named. Returns the networks it changed.
 */
export async function recordNetworkStatus(db: Db, report: { id: string; sentAt: Date; receivedAt: Date; networks: NetworkStatus[] }): Promise<NetworkName[]> {
  const rows = report.networks.map((status) => ({
    network: status.network, chain_id: status.chainId, coins: [...status.coins],
    healthy: status.healthy, head_block: status.headBlock, final_block: status.finalBlock, cursor_block: status.cursorBlock,
    problem: status.problem === null ? null : publicText(status.problem), reported_at: report.sentAt, received_at: report.receivedAt, notice_id: report.id,
    forwarding_healthy: status.forwarding?.healthy ?? null, forwarding_problem: status.forwarding?.problem === undefined || status.forwarding.problem === null ? null : publicText(status.forwarding.problem),
  }));
  return db.transaction().execute(async (trx) => {
    const written = await trx.insertInto('processor_networks').values(rows)
      .onConflict((oc) => oc.column('network').doUpdateSet((eb) => ({
        chain_id: eb.ref('excluded.chain_id'), coins: eb.ref('excluded.coins'), healthy: eb.ref('excluded.healthy'),
        head_block: eb.ref('excluded.head_block'), final_block: eb.ref('excluded.final_block'), cursor_block: eb.ref('excluded.cursor_block'),
        problem: eb.ref('excluded.problem'), reported_at: eb.ref('excluded.reported_at'), received_at: eb.ref('excluded.received_at'),
        notice_id: eb.ref('excluded.notice_id'),
        forwarding_healthy: eb.ref('excluded.forwarding_healthy'), forwarding_problem: eb.ref('excluded.forwarding_problem'),
      })).where('processor_networks.reported_at', '<=', (eb) => eb.ref('excluded.reported_at')))
      .returning('network').execute();
    const changed = written.map((row) => row.network);
    if (changed.length === 0) return changed;
    await trx.deleteFrom('processor_forward_delays').where('network', 'in', changed).execute();
    const delays = report.networks.filter((status) => changed.includes(status.network)).flatMap((status) => (status.forwarding?.delayed ?? []).map((each) => ({
      network: status.network, payment_id: each.paymentId, deposit_address: each.depositAddress, state: each.state, since: each.since, reason: each.reason,
    })));
    if (delays.length > 0) await trx.insertInto('processor_forward_delays').values(delays).execute();
    return changed;
  });
}
