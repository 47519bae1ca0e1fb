import { sql, type Expression, type SqlBool } from 'kysely';
import type { PaymentStatus } from '../../db/schema.ts';

// How a stored payment reads at a given moment: an unpaid payment past expires_at is expired
// even before the expiry job has written it (spec 3 rule 1).
export const PAYMENT_STATUSES = ['open', 'pending', 'paid', 'held', 'failed', 'expired'] as const;
const UNPAID = ['open', 'pending'] as const;

export function readStatus(row: { status: PaymentStatus; expires_at: Date }, now: Date): PaymentStatus {
  return (UNPAID as readonly string[]).includes(row.status) && row.expires_at <= now ? 'expired' : row.status;
}

/** SQL filter equal to readStatus(row, now) = status. */
export function statusIs(status: PaymentStatus, now: Date): Expression<SqlBool> {
  if (status === 'expired') {
    return sql<SqlBool>`(status = 'expired' OR (status IN ('open', 'pending') AND expires_at <= ${now}))`;
  }
  if ((UNPAID as readonly string[]).includes(status)) {
    return sql<SqlBool>`(status = ${status} AND expires_at > ${now})`;
  }
  return sql<SqlBool>`status = ${status}`;
}
