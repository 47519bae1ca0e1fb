import { sql } from 'kysely';
import { z } from 'zod';
import { dayAndWeekStart, knownZone } from '../../core/local-day.ts';
import { formatAmount } from '../../core/money.ts';
import { defineAction } from '../../verbs/action.ts';

// What the dashboard's home page says about a business in one mode: what was paid today and this
// week (per currency, by the time it was paid), the held payments to review, and the webhook
// endpoints whose latest attempted delivery failed. One statement, one round trip; each part
// reads a partial index (migration 0038) or one endpoint's newest deliveries.

export interface PaidTotals {
  currency: string;
  todayCount: number;
  today: string;
  weekCount: number;
  week: string;
}

export interface HeldPayment {
  id: string;
  description: string;
  amount: string;
  currency: string;
  created: Date;
}

export interface FailingEndpoint {
  id: string;
  url: string;
  /** The HTTP status of the latest failed attempt, or null when none came (a timeout, a refused connection). */
  lastStatus: number | null;
  lastError: string | null;
  lastAttempt: Date | null;
  /** Given up after its last attempt, or still being retried. */
  gaveUp: boolean;
}

export interface BusinessHome {
  /** The time zone today and this week are counted in: the viewer's, or UTC. */
  zone: string;
  /** When the viewer's today and this week (from Monday) began. */
  since: { today: Date; week: Date };
  paid: PaidTotals[];
  heldCount: number;
  /** The newest held payments, a few. */
  held: HeldPayment[];
  failing: FailingEndpoint[];
}

export const HELD_SHOWN = 5;

interface Row {
  paid: Array<{ currency: string; today_count: number; today_minor: number; week_count: number; week_minor: number }>;
  held_count: number;
  held: Array<{ id: string; description: string; amount_minor: number; currency: string; created_at: string }>;
  failing: Array<{ id: string; url: string; status: string; last_status: number | null; last_error: string | null; last_attempt_at: string | null }>;
}

/** The home's one statement (exported for EXPLAIN in the bench's checks). */
export function homeQuery(businessId: string, livemode: boolean, since: { today: Date; week: Date }, now: Date) {
  const scoped = sql`business_id = ${businessId} AND livemode = ${livemode}`;
  return sql<Row>`SELECT
      (SELECT coalesce(json_agg(p ORDER BY p.currency), '[]') FROM (
        SELECT currency,
          count(*) FILTER (WHERE paid_at >= ${since.today})::int AS today_count,
          coalesce(sum(amount_minor) FILTER (WHERE paid_at >= ${since.today}), 0)::bigint AS today_minor,
          count(*)::int AS week_count, sum(amount_minor)::bigint AS week_minor
        FROM payments WHERE ${scoped} AND status = 'paid' AND paid_at >= ${since.week} AND paid_at <= ${now}
        GROUP BY currency) p) AS paid,
      (SELECT count(*)::int FROM payments WHERE ${scoped} AND status = 'held') AS held_count,
      (SELECT coalesce(json_agg(h), '[]') FROM (
        SELECT id, description, amount_minor, currency, created_at FROM payments WHERE ${scoped} AND status = 'held'
        ORDER BY created_at DESC, id DESC LIMIT ${HELD_SHOWN}) h) AS held,
      (SELECT coalesce(json_agg(f ORDER BY f.last_attempt_at DESC NULLS LAST), '[]') FROM (
        SELECT e.id, e.url, d.status, d.last_status, d.last_error, d.last_attempt_at
        FROM webhook_endpoints e CROSS JOIN LATERAL (
          SELECT status, last_status, last_error, last_attempt_at FROM webhook_deliveries
          WHERE endpoint_id = e.id AND attempts > 0 AND status <> 'canceled'
          ORDER BY created_at DESC, seq DESC NULLS LAST LIMIT 1) d
        WHERE e.business_id = ${businessId} AND e.livemode = ${livemode} AND e.deleted_at IS NULL AND d.status <> 'succeeded') f) AS failing`;
}

export const readBusinessHome = defineAction({
  name: 'read_business_home',
  title: 'Read what happened today and this week and what needs attention',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  /** The viewer's time zone; UTC when it is not one. */
  input: z.object({ timeZone: z.string().max(64).transform(knownZone) }),
  async run(ctx, { timeZone }): Promise<BusinessHome> {
    const { businessId, livemode } = ctx.principal;
    const now = ctx.clock.now();
    const since = dayAndWeekStart(now, timeZone);
    const { rows: [row] } = await homeQuery(businessId, livemode, since, now).execute(ctx.db);
    return {
      zone: timeZone,
      since,
      paid: row!.paid.map((p) => ({ currency: p.currency, todayCount: p.today_count, today: formatAmount(Number(p.today_minor)), weekCount: p.week_count, week: formatAmount(Number(p.week_minor)) })),
      heldCount: row!.held_count,
      held: row!.held.map((h) => ({ id: h.id, description: h.description, amount: formatAmount(h.amount_minor), currency: h.currency, created: new Date(h.created_at) })),
      failing: row!.failing.map((f) => ({
        id: f.id, url: f.url, lastStatus: f.last_status, lastError: f.last_error, lastAttempt: f.last_attempt_at === null ? null : new Date(f.last_attempt_at), gaveUp: f.status === 'failed',
      })),
    };
  },
});
