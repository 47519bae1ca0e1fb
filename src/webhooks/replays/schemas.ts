import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import type { ReplayStatus, WebhookReplaysTable } from '../../db/schema.ts';
import type { Selectable } from 'kysely';

// A replay of an endpoint's failed deliveries as people read it: what was asked and how far it got.

export interface ReplayOut {
  id: number;
  endpoint_id: string;
  /** Deliveries that had failed since this time (Unix seconds) are sent again. */
  since: number;
  requested_by: string;
  status: ReplayStatus;
  total: number;
  /** Sent, or skipped, so far. */
  done: number;
  succeeded: number;
  /** No longer failed when their turn came (resent meanwhile), or the endpoint was removed. */
  skipped: number;
  /** Sent and refused again. */
  failed: number;
  created: number;
  finished: number | null;
}

export function toReplayOut(row: Selectable<WebhookReplaysTable>): ReplayOut {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    since: unixSeconds(row.since),
    requested_by: row.requested_by,
    status: row.status,
    total: row.total,
    done: row.done,
    succeeded: row.succeeded,
    skipped: row.skipped,
    failed: row.done - row.succeeded - row.skipped,
    created: unixSeconds(row.created_at),
    finished: unixSecondsOrNull(row.finished_at),
  };
}
