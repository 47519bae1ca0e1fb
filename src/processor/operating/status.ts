import { MINUTE } from '../../core/clock.ts';
import type { NetworkConfig, TokenConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import { sixDecimals } from '../notices/outbox.ts';

// Each network's state as operators read it (`processor status`, the metrics, /readyz), from the
// database alone: what the scans wrote (scan-state.ts), the cursor, the watch list and the
// reconciliation's findings. No RPC: it answers from any machine that reaches the database,
// whichever processor is scanning, and while the nodes are down.

/** A network is healthy while a scan reached its final block within this (60 polls of 2 s; a failing node is retried for up to about 45 s before a scan gives up). */
export const SCANNED_WITHIN_MS = 2 * MINUTE;

/** SCANNED_WITHIN_MS, or four polls when PROCESSOR_POLL_MS is so long that 2 minutes would be fewer. */
export function scannedWithinMs(pollMs: number): number {
  return Math.max(SCANNED_WITHIN_MS, 4 * pollMs);
}

export interface NetworkStatus {
  network: string;
  chainId: number | null;
  headBlock: number | null;
  finalBlock: number | null;
  /** The next block to scan: every block before it is scanned. */
  cursor: number | null;
  /** Final blocks not scanned yet (as of the last head read). */
  lagBlocks: number | null;
  watchedAddresses: number;
  lastScanAt: Date | null;
  lastError: { message: string; at: Date } | null;
  scanErrors: number;
  transfersRecorded: number;
  reconciledAt: Date | null;
  reconciledBlock: number | null;
  findings: { recovered: number; unexplained: number };
}

/** The networks to report: the configured ones, and any other the database has scans of, in that order. */
export async function reportedNetworks(db: Db, configured: readonly NetworkConfig[]): Promise<string[]> {
  const scanned = await db.selectFrom('processor.cursors').select('network')
    .union(db.selectFrom('processor.network_scans').select('network')).execute();
  const names = configured.map((network) => network.name as string);
  return [...names, ...scanned.map((row) => row.network).filter((name) => !names.includes(name)).sort()];
}

/** Watch windows still open at `now` (one list for every network: an address is the same on each). */
export async function watchedAddressCount(db: Db, now: Date): Promise<number> {
  const row = await db.selectFrom('processor.watched_addresses').select((eb) => eb.fn.countAll<string>().as('count'))
    .where('watch_until', '>', now).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function networkStatuses(db: Db, now: Date, networks: readonly string[]): Promise<NetworkStatus[]> {
  if (networks.length === 0) return [];
  const [cursors, scans, watched, findings] = await Promise.all([
    db.selectFrom('processor.cursors').select(['network', 'chain_id', 'next_block']).where('network', 'in', networks).execute(),
    db.selectFrom('processor.network_scans').selectAll().where('network', 'in', networks).execute(),
    watchedAddressCount(db, now),
    db.selectFrom('processor.balance_findings').select((eb) => ['network', 'outcome', eb.fn.countAll<string>().as('count')])
      .where('network', 'in', networks).groupBy(['network', 'outcome']).execute(),
  ]);
  return networks.map((network) => {
    const cursor = cursors.find((row) => row.network === network);
    const scan = scans.find((row) => row.network === network);
    const found = (outcome: string) => Number(findings.find((row) => row.network === network && row.outcome === outcome)?.count ?? 0);
    const finalBlock = scan?.final_block ?? null;
    return {
      network,
      chainId: cursor?.chain_id ?? null,
      headBlock: scan?.head_block ?? null,
      finalBlock,
      cursor: cursor?.next_block ?? null,
      lagBlocks: finalBlock === null || cursor === undefined ? null : Math.max(0, finalBlock - (cursor.next_block - 1)),
      watchedAddresses: watched,
      lastScanAt: scan?.scanned_at ?? null,
      lastError: scan?.last_error && scan.last_error_at ? { message: scan.last_error, at: scan.last_error_at } : null,
      scanErrors: Number(scan?.scan_errors ?? 0),
      transfersRecorded: Number(scan?.transfers_recorded ?? 0),
      reconciledAt: scan?.reconciled_at ?? null,
      reconciledBlock: scan?.reconciled_block ?? null,
      findings: { recovered: found('recovered'), unexplained: found('unexplained') },
    };
  });
}

/**
 * A cursor past the chain's head: the chain was restarted or replaced under the same chain id
 * (a local or test chain), so no block this processor would scan exists yet. Its scans succeed and
 * find nothing; it must not pass for healthy. Null when the cursor is where it may be.
 */
export function cursorAheadOfHead(cursor: bigint | number | null, head: bigint | number | null | undefined): string | null {
  if (cursor === null || head === null || head === undefined || BigInt(cursor) - 1n <= BigInt(head)) return null;
  const scanned = BigInt(cursor) - 1n;
  return `The chain's head (block ${head}) is behind the blocks already scanned (up to ${scanned}): was the chain restarted or replaced? Deposits are not seen until it passes block ${scanned}.`;
}

/** `ok` when a scan reached the final block within `withinMs` of `now`; `stale` when longer ago; `never` scanned. */
export function scanHealth(status: Pick<NetworkStatus, 'lastScanAt'>, now: Date, withinMs: number): 'ok' | 'stale' | 'never' {
  if (status.lastScanAt === null) return 'never';
  return now.getTime() - status.lastScanAt.getTime() <= withinMs ? 'ok' : 'stale';
}

/**
 * Whether the network's scans are failing now: its last error is a scan's (not a reconciliation
 * pass's) and no scan reached the final block since. The node down, or refusing: not healthy,
 * whatever the last success's age (`processor status`, processor_scan_failing).
 */
export function scanFailing(status: Pick<NetworkStatus, 'lastScanAt' | 'lastError'>): boolean {
  const error = status.lastError;
  // At the same instant (a clock tests hold still), the scan that reached the final block is taken as the later.
  return error !== null && error.message.startsWith('scan:') && (status.lastScanAt === null || error.at > status.lastScanAt);
}

/** /readyz's checks for a process running the processor: one per network it watches, `scan_<network>`. */
export function scanChecks(db: Db, now: () => Date, networks: readonly string[], pollMs: number): () => Promise<Record<string, string>> {
  const withinMs = scannedWithinMs(pollMs);
  return async () => {
    const rows = networks.length === 0 ? [] : await db.selectFrom('processor.network_scans').select(['network', 'scanned_at'])
      .where('network', 'in', networks).execute();
    return Object.fromEntries(networks.map((network) =>
      [`scan_${network}`, scanHealth({ lastScanAt: rows.find((row) => row.network === network)?.scanned_at ?? null }, now(), withinMs)]));
  };
}

/**
 * A part of each network's status that another part of the processor adds: forwarding adds
 * its forwards (pending, failed) and its gas wallet here. `name` is its key under the network
 * in `processor status --json`; `text` its lines in the human output. Reads the database only.
 */
export interface StatusSection {
  name: string;
  read(db: Db, network: string, tokens: readonly TokenConfig[], now: Date): Promise<{ json: unknown; text: string[] }>;
}

/**
 * A section's lines for deposits counted by token (the rows of a `GROUP BY token` with their
 * count and total): `label: 2 (30.000000 polygon_usdc, …)` and the same as JSON.
 */
export function tokenTotals(label: string, rows: ReadonlyArray<{ token: string; count: string; total: string }>, tokens: readonly TokenConfig[]): { json: unknown; text: string[] } {
  const byToken = rows.map((row) => ({
    token: row.token, coin: tokens.find((token) => token.address === row.token)?.coin ?? null, count: Number(row.count), amount: sixDecimals(BigInt(row.total)),
  }));
  const count = byToken.reduce((sum, row) => sum + row.count, 0);
  const amounts = byToken.map((row) => `${row.amount} ${row.coin ?? row.token}`).join(', ');
  return { json: { count, by_token: byToken }, text: [`${label}: ${count}${count > 0 ? ` (${amounts})` : ''}`] };
}
