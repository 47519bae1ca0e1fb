import { sql, type Expression, type SqlBool } from 'kysely';
import type { PaymentStatus } from '../../db/schema.ts';

// How a stored payment reads at a given moment: an unpaid payment past expires_at is expired
// even before the expiry job has written it (spec 3 rule 1).
export const PAYMENT_STATUSES = ['open', 'pending', 'paid', 'held', 'failed', 'expired'] as const;
const UNPAID = ['open', 'pending'] as const;

export function readStatus(row: { status: PaymentStatus; expires_at: Date }, now: Date): PaymentStatus {
  return (UNPAID as readonly string[]).includes(row.status) && row.expires_at <= now ? 'expired' : row.status;
}

/** SQL filter equal to readStatus(row, now) = status; alias names the payments table. */
export function statusIs(status: PaymentStatus, now: Date, alias?: string): Expression<SqlBool> {
  const column = (name: string) => sql.ref(alias ? `${alias}.${name}` : name);
  const [state, expires] = [column('status'), column('expires_at')];
  if (status === 'expired') {
    return sql<SqlBool>`(${state} = 'expired' OR (${state} IN ('open', 'pending') AND ${expires} <= ${now}))`;
  }
  if ((UNPAID as readonly string[]).includes(status)) {
    return sql<SqlBool>`(${state} = ${status} AND ${expires} > ${now})`;
  }
  return sql<SqlBool>`${state} = ${status}`;
}
