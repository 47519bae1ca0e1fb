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

/** How far a replay got, as the dashboard and the CLI say it: "3 of 5 sent: 2 delivered, 1 failed again". */
export function replayProgress(replay: ReplayOut): string {
  const parts = [`${replay.succeeded} delivered`, ...(replay.failed > 0 ? [`${replay.failed} failed again`] : []), ...(replay.skipped > 0 ? [`${replay.skipped} no longer failed`] : [])];
  return `${replay.done} of ${replay.total} sent: ${parts.join(', ')}`;
}

/** A replay's status in words. */
export const REPLAY_STATUS = { queued: 'waiting to start', running: 'sending', done: 'finished' } as const;
