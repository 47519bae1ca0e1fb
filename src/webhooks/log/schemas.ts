import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import type { AttemptTrigger, DeliveryStatus } from '../../db/schema.ts';
import type { SendOutcome } from '../../net/outbound-client.ts';

// The delivery log as people read it (spec 6.3 rule 4): deliveries, their attempts, and the
// result of a manual send.

/** The latest deliveries shown per endpoint (spec 6.3). */
export const DELIVERY_LOG_SIZE = 50;

export interface DeliveryLogEntry {
  id: string;
  kind: 'event' | 'test';
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  created: number;
  /** When it was last sent (Unix seconds), or null before the first attempt. */
  sent: number | null;
  /** Automatic attempts made, 0 to 7. */
  attempts: number;
  /** Retry now, resend and test sends made. */
  manual_attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_retry: number | null;
  /** The exact body every attempt sends. */
  body: string;
}

export function toDeliveryLogEntry(row: {
  id: string; kind: 'event' | 'test'; event_id: string; event_type: string | null; status: DeliveryStatus; created_at: Date;
  last_attempt_at: Date | null; attempts: number; manual_attempts: number; last_status: number | null; last_error: string | null;
  next_attempt_at: Date | null; body: string | null;
}): DeliveryLogEntry {
  return {
    id: row.id,
    kind: row.kind,
    event_id: row.event_id,
    event_type: row.event_type ?? '',
    status: row.status,
    created: unixSeconds(row.created_at),
    sent: unixSecondsOrNull(row.last_attempt_at),
    attempts: row.attempts,
    manual_attempts: row.manual_attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    next_retry: unixSecondsOrNull(row.next_attempt_at),
    body: row.body ?? '',
  };
}

export interface AttemptEntry {
  trigger: AttemptTrigger;
  number: number | null;
  url: string;
  sent: number;
  duration_ms: number;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface ManualSendResult {
  delivery_id: string;
  event_id: string;
  outcome: SendOutcome;
}
