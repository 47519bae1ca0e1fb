import { sql } from 'kysely';
import { z } from 'zod';
import { dayAndWeekStart, knownZone } from '../../core/local-day.ts';
import { formatAmount } from '../../core/money.ts';
import { defineAction } from '../../verbs/action.ts';
import { keepPastDays, pastDaysOf, type CurrencySums } from './home-past-days.ts';

// What the dashboard's home page says about a business in one mode: what was paid today and this
// week (per currency, by the time it was paid), the held payments to review, the Live payments
// waiting to be forwarded, and the webhook endpoints whose latest attempted delivery failed. One statement, one round trip; each part
// reads a partial index (migration 0038) or one endpoint's newest deliveries; the week's earlier
// days, which no longer change, are read once (home-past-days.ts).

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

/** A Live payment whose money the processor's latest status names as not forwarded in time (failed or late). */
export interface WaitingPayment {
  id: string;
  description: string;
  amount: string;
  currency: string;
  /** When its oldest waiting forward's deposit turned final. */
  since: Date;
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
  /** Payments waiting to be forwarded (issue 30): the operator is told; the merchant sees them here. */
  waitingCount: number;
  waiting: WaitingPayment[];
  failing: FailingEndpoint[];
}

export const HELD_SHOWN = 5;

interface Row {
  /** Paid per currency, today's apart from the earlier days read. */
  paid: Array<{ currency: string; today: boolean; count: number; minor: number }>;
  held_count: number;
  held: Array<{ id: string; description: string; amount_minor: number; currency: string; created_at: string }>;
  waiting_count: number;
  waiting: Array<{ id: string; description: string; amount_minor: number; currency: string; since: string }>;
  failing: Array<{ id: string; url: string; status: string; last_status: number | null; last_error: string | null; last_attempt_at: string | null }>;
}

/** The home's one statement, reading payments paid from `from` (the week's start, or today's when the earlier days are kept). */
export function homeQuery(businessId: string, livemode: boolean, since: { today: Date; week: Date }, from: Date, now: Date) {
  const scoped = sql`business_id = ${businessId} AND livemode = ${livemode}`;
  // A held payment whose order was paid in full since (the rest was asked for and paid,
  // docs/remainders.md) needs nobody: the order's status says so.
  const review = sql`NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = payments.order_id AND o.status = 'paid')`;
  // The processor's latest statuses name at most 200 forwards a network: a small table, joined by payment id.
  const waits = sql`processor_forward_delays d JOIN payments p ON p.id = d.payment_id WHERE p.business_id = ${businessId} AND p.livemode = ${livemode}`;
  return sql<Row>`SELECT
      (SELECT coalesce(json_agg(p), '[]') FROM (
        SELECT currency, paid_at >= ${since.today} AS today, count(*)::int AS count, sum(amount_minor)::bigint AS minor
        FROM payments WHERE ${scoped} AND status = 'paid' AND paid_at >= ${from} AND paid_at <= ${now}
        GROUP BY 1, 2) p) AS paid,
      (SELECT count(*)::int FROM payments WHERE ${scoped} AND status = 'held' AND ${review}) AS held_count,
      (SELECT coalesce(json_agg(h), '[]') FROM (
        SELECT id, description, amount_minor, currency, created_at FROM payments WHERE ${scoped} AND status = 'held' AND ${review}
        ORDER BY created_at DESC, id DESC LIMIT ${HELD_SHOWN}) h) AS held,
      (SELECT count(DISTINCT d.payment_id)::int FROM ${waits}) AS waiting_count,
      (SELECT coalesce(json_agg(w ORDER BY w.since), '[]') FROM (
        SELECT p.id, p.description, p.amount_minor, p.currency, min(d.since) AS since FROM ${waits}
        GROUP BY p.id ORDER BY min(d.since), p.id LIMIT ${HELD_SHOWN}) w) AS waiting,
      (SELECT coalesce(json_agg(f ORDER BY f.last_attempt_at DESC NULLS LAST), '[]') FROM (
        SELECT e.id, e.url, d.status, d.last_status, d.last_error, d.last_attempt_at
        FROM webhook_endpoints e CROSS JOIN LATERAL (
          SELECT status, last_status, last_error, last_attempt_at FROM webhook_deliveries
          WHERE endpoint_id = e.id AND attempts > 0 AND status <> 'canceled'
          ORDER BY created_at DESC, seq DESC NULLS LAST LIMIT 1) d
        WHERE e.business_id = ${businessId} AND e.livemode = ${livemode} AND e.deleted_at IS NULL AND d.status <> 'succeeded') f) AS failing`;
}

const NONE = { count: 0, minor: 0 };

function sumsOf(rows: Row['paid']): CurrencySums {
  return new Map(rows.map((p) => [p.currency, { count: p.count, minor: Number(p.minor) }]));
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
    const kept = pastDaysOf(businessId, livemode, since);
    const { rows: [row] } = await homeQuery(businessId, livemode, since, kept ? since.today : since.week, now).execute(ctx.db);
    const past = kept ?? sumsOf(row!.paid.filter((p) => !p.today));
    if (!kept) keepPastDays(businessId, livemode, since, now, past);
    const today = sumsOf(row!.paid.filter((p) => p.today));
    return {
      zone: timeZone,
      since,
      paid: [...new Set([...past.keys(), ...today.keys()])].sort().map((currency) => {
        const [earlier, todays] = [past.get(currency) ?? NONE, today.get(currency) ?? NONE];
        return { currency, todayCount: todays.count, today: formatAmount(todays.minor), weekCount: earlier.count + todays.count, week: formatAmount(earlier.minor + todays.minor) };
      }),
      heldCount: row!.held_count,
      held: row!.held.map((h) => ({ id: h.id, description: h.description, amount: formatAmount(h.amount_minor), currency: h.currency, created: new Date(h.created_at) })),
      waitingCount: row!.waiting_count,
      waiting: row!.waiting.map((w) => ({ id: w.id, description: w.description, amount: formatAmount(w.amount_minor), currency: w.currency, since: new Date(w.since) })),
      failing: row!.failing.map((f) => ({
        id: f.id, url: f.url, lastStatus: f.last_status, lastError: f.last_error, lastAttempt: f.last_attempt_at === null ? null : new Date(f.last_attempt_at), gaveUp: f.status === 'failed',
      })),
    };
  },
});
