import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { publicText } from '../../core/public-text.ts';

// Each network's scans, written down as they happen (processor.network_scans, migrations/0029):
// the head and final block read, when a scan last reached the final block, its last error and
// running counts. `processor status`, the metrics and /readyz read this row, so they need the
// database only, from any machine, whichever processor is scanning.

/** The head and final block a scan read at its start. */
export async function recordObserved(db: Db, network: string, head: bigint, final: bigint, now: Date): Promise<void> {
  await db.insertInto('processor.network_scans').values({ network, head_block: head, final_block: final, observed_at: now })
    .onConflict((oc) => oc.column('network').doUpdateSet({ head_block: head, final_block: final, observed_at: now })).execute();
}

/** A scan reached the final block it read. */
export async function recordScanned(db: Db, network: string, now: Date): Promise<void> {
  await db.updateTable('processor.network_scans').set({ scanned_at: now }).where('network', '=', network).execute();
}

/** A scan (or its reconciliation) failed: the next poll tries again, and the status shows why. */
export async function recordFailure(db: Db, network: string, error: unknown, now: Date, what = 'scan'): Promise<void> {
  // The first line, URLs cut to their origin (an RPC URL's path often holds its API key).
  const message = publicText(`${what}: ${publicText(error)}`);
  await db.insertInto('processor.network_scans').values({ network, last_error: message, last_error_at: now, scan_errors: 1 })
    .onConflict((oc) => oc.column('network').doUpdateSet({ last_error: message, last_error_at: now, scan_errors: sql`processor.network_scans.scan_errors + 1` }))
    .execute();
}

/** A reconciliation pass read balances at `block`. */
export async function recordReconciled(db: Db, network: string, block: bigint, now: Date): Promise<void> {
  await db.updateTable('processor.network_scans').set({ reconciled_at: now, reconciled_block: block }).where('network', '=', network).execute();
}
