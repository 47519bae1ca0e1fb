import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import type { MailHeldBecause, MailKind, MailStatus } from '../../db/schema.ts';
import { defineAction } from '../../verbs/action.ts';
import { idInput } from '../shared/ids.ts';
import { getPayment } from './queries.ts';
import { readRest, type PaymentRest } from './remainder.ts';
import { toPaymentOut, type PaymentOut } from './schemas.ts';

// What happened to one payment, for the people who run the business (spec 6.2): every event, every
// delivery of each to the business's endpoints, and every notice the processor sent about it, a
// notice that did not match (refused, or not applied as sent) flagged.

export interface TimelineDelivery {
  id: string;
  endpoint_id: string;
  endpoint_url: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
}

export interface TimelineEvent {
  id: string;
  type: string;
  created: number;
  deliveries: TimelineDelivery[];
}

/** A mail about the payment (a receipt, a held notice), and whether it went. */
export interface TimelineMail {
  kind: MailKind;
  to: string;
  status: MailStatus;
  held_because: MailHeldBecause | null;
  created: number;
}

export interface TimelineNotice {
  id: number;
  /** deposit.confirmed or settlement.completed; null when the notice could not be read. */
  kind: string | null;
  outcome: 'applied' | 'duplicate' | 'rejected';
  reason: string | null;
  received: number;
  /** A notice that did not match the payment (spec 6.2: flagged on the dashboard timeline). */
  flagged: boolean;
}

export interface PaymentTimeline {
  payment: PaymentOut;
  events: TimelineEvent[];
  notices: TimelineNotice[];
  mail: TimelineMail[];
  /** A held underpayment's rest, asked for or not, or the payment a remainder completes (docs/remainders.md). */
  rest?: PaymentRest;
  /** Its forwards the processor's latest status named as failed or late (issue 30): the operator is told. */
  waitingToForward: ForwardWait[];
}

export interface ForwardWait {
  state: 'failed' | 'pending';
  /** Unix seconds: when its deposit turned final. */
  since: number;
  /** The processor's reason, one line without URLs' paths. */
  reason: string | null;
}

export const readPaymentTimeline = defineAction({
  name: 'read_payment_timeline',
  title: 'Read a payment with its events, deliveries and processor notices',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: idInput('pay'),
  async run(ctx, input): Promise<PaymentTimeline> {
    const { db, principal } = ctx;
    // Found in the caller's business and mode first: everything after is of this payment alone.
    const payment = await getPayment(db, principal, input.id);
    const [events, deliveries, notices, rest, waits, mail] = await Promise.all([
      db.selectFrom('events').select(['id', 'type', 'created_at'])
        .where('payment_id', '=', payment.id).where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode)
        .orderBy('seq').execute(),
      db.selectFrom('events as ev').innerJoin('webhook_deliveries as d', 'd.event_id', 'ev.id').innerJoin('webhook_endpoints as we', 'we.id', 'd.endpoint_id')
        .select(['d.id', 'd.event_id', 'd.endpoint_id', 'we.url', 'd.status', 'd.attempts', 'd.last_status', 'd.last_error', 'd.next_attempt_at'])
        .where('ev.payment_id', '=', payment.id).where('ev.business_id', '=', principal.businessId).where('ev.livemode', '=', principal.livemode)
        .where('we.business_id', '=', principal.businessId)
        .orderBy('d.created_at').execute(),
      db.selectFrom('processor_notices').select(['id', 'kind', 'outcome', 'reason', 'received_at'])
        .where('payment_id', '=', payment.id).orderBy('received_at').orderBy('id').execute(),
      readRest(db, principal, payment, ctx.config.baseUrl, ctx.clock.now()),
      db.selectFrom('processor_forward_delays').select(['state', 'since', 'reason']).where('payment_id', '=', payment.id).orderBy('since').execute(),
      db.selectFrom('outbox').select(['kind', 'recipient', 'status', 'held_because', 'created_at'])
        .where('payment_id', '=', payment.id).where('business_id', '=', principal.businessId).orderBy('created_at').orderBy('id').execute(),
    ]);
    return {
      payment: toPaymentOut(payment, ctx.config.baseUrl, ctx.clock.now()),
      events: events.map((event) => ({
        id: event.id, type: event.type, created: unixSeconds(event.created_at),
        deliveries: deliveries.filter((delivery) => delivery.event_id === event.id).map((delivery) => ({
          id: delivery.id, endpoint_id: delivery.endpoint_id, endpoint_url: delivery.url, status: delivery.status, attempts: delivery.attempts,
          last_status: delivery.last_status, last_error: delivery.last_error, next_attempt_at: unixSecondsOrNull(delivery.next_attempt_at),
        })),
      })),
      notices: notices.map((notice) => ({
        id: Number(notice.id), kind: notice.kind, outcome: notice.outcome, reason: notice.reason, received: unixSeconds(notice.received_at),
        // A settlement booked for a held, accepted or extra arrival is not a mismatch: it says what moved.
        flagged: notice.outcome === 'rejected' || (notice.outcome === 'applied' && notice.reason !== null && notice.kind !== 'settlement.completed'),
      })),
      mail: mail.map((each) => ({ kind: each.kind, to: each.recipient, status: each.status, held_because: each.held_because, created: unixSeconds(each.created_at) })),
      rest,
      waitingToForward: waits.map((wait) => ({ state: wait.state, since: unixSeconds(wait.since), reason: wait.reason })),
    };
  },
});
