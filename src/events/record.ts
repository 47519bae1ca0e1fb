import { sql } from 'kysely';
import { unixSeconds } from '../core/clock.ts';
import { newId } from '../core/ids.ts';
import type { Db } from '../db/database.ts';
import { fieldsOf, template, valuedColumns } from '../db/template.ts';
import type { Updateable } from 'kysely';
import type { CustomerRow, OrderRow, PaymentRow, PaymentStatus, PaymentsTable } from '../db/schema.ts';
import type { JobSender } from '../jobs/queues.ts';
import { customerSnapshot, orderSnapshot, paymentSnapshot } from './snapshots.ts';
import type { PaymentEventType } from './types.ts';

// Writing an event: the envelope (spec 2.5) stored as the exact body every attempt will send,
// one delivery per subscribed endpoint of the same mode, and the first attempt of each queued
// in pg-boss, all in one statement, inside the transaction of the change or as the change itself.

/** Endpoints added before this date receive only payment.paid and payment.failed until their events are edited (spec 6.1). */
export const ALL_EVENTS_SINCE = new Date('2026-09-26T00:00:00Z');
const LEGACY_TYPES = ['payment.paid', 'payment.failed'];

export interface EventDeps {
  baseUrl: string;
  jobs: JobSender;
  now: Date;
}

export interface PaymentState {
  payment: PaymentRow;
  order: OrderRow | null;
  /** Every payment of the order, the changed one included. */
  payments: readonly PaymentRow[];
  customer: CustomerRow | null;
}

export function eventBody(id: string, type: string, state: PaymentState, deps: Pick<EventDeps, 'baseUrl' | 'now'>): string {
  const { payment, order, payments, customer } = state;
  return JSON.stringify({
    id,
    type,
    created: unixSeconds(deps.now),
    livemode: payment.livemode,
    data: {
      payment: paymentSnapshot(payment, deps.baseUrl),
      order: order === null ? null : orderSnapshot(order, payments, customer, deps.now),
      customer: customer === null ? null : customerSnapshot(customer),
    },
  });
}

/**
 * A payment change to make in the same statement as its event, when the caller already knows
 * the row it leaves (so the event could be written first): applied only while the payment is
 * in one of `from` and, with `version`, only while it is still the row version read (its
 * `xmin`), which lets a caller that read without locking write without a transaction.
 */
export interface MoveWithEvent {
  /** Column values (no SQL expressions). */
  set: Updateable<PaymentsTable>;
  from: readonly PaymentStatus[];
  version?: string;
}

export class MoveNotApplied extends Error {}

/** What makes the event statement's SQL differ: the rest are its parameters. */
interface EventShape {
  legacy: boolean;
  /** The columns a move sets, or null without a move. */
  set: readonly string[] | null;
  from: readonly PaymentStatus[] | null;
  versioned: boolean;
}

type EventArgs = Record<string, unknown>;

/** The event statement of a job sender (its pg-boss insert is part of the SQL). */
function eventStatement(jobs: JobSender) {
  return template((db: Db, a: EventArgs, shape: EventShape) => db
    .with('moved', (qc) => shape.set && shape.from
      ? qc.updateTable('payments')
        .set(fieldsOf(a.set, shape.set))
        .where('id', '=', a.payment_id as string)
        .where('status', 'in', [...shape.from])
        .$if(shape.versioned, (q) => q.where(sql<string>`xmin::text`, '=', a.version as string))
        .returning('id')
      : qc.selectFrom('payments').select('id').where('id', '=', a.payment_id as string))
    // Written only when the move applied: the event, then its deliveries, then their jobs.
    .with('event', (qc) => qc.insertInto('events')
      .columns(['id', 'business_id', 'livemode', 'type', 'payment_id', 'order_id', 'customer_id', 'body', 'created_at'])
      .expression((eb) => eb.selectFrom('moved').select([
        sql<string>`${a.id}::text`.as('id'),
        sql<string>`${a.business_id}::text`.as('business_id'),
        sql<boolean>`${a.livemode}::boolean`.as('livemode'),
        sql<string>`${a.type}::text`.as('type'),
        'moved.id as payment_id',
        sql<string | null>`${a.order_id}::text`.as('order_id'),
        sql<string | null>`${a.customer_id}::text`.as('customer_id'),
        sql<string>`${a.body}::text`.as('body'),
        sql<Date>`${a.now}::timestamptz`.as('created_at'),
      ]))
      .returning('id'))
    .with('deliveries', (qc) => qc
      .insertInto('webhook_deliveries')
      .columns(['id', 'event_id', 'endpoint_id', 'next_attempt_at', 'created_at'])
      .expression((eb) => {
        const subscribed = eb
          .selectFrom(['webhook_endpoints as we', 'event'])
          .select([
            sql<string>`'dlv_' || replace(gen_random_uuid()::text, '-', '')`.as('id'),
            'event.id as event_id',
            'we.id as endpoint_id',
            sql<Date>`${a.now}::timestamptz`.as('next_attempt_at'),
            sql<Date>`${a.now}::timestamptz`.as('created_at'),
          ])
          .where('we.business_id', '=', a.business_id as string)
          .where('we.livemode', '=', a.livemode as boolean)
          .where('we.deleted_at', 'is', null)
          .where(sql<boolean>`${a.type}::text = ANY(we.events)`);
        return shape.legacy
          ? subscribed
          : subscribed.where((w) => w.or([w('we.created_at', '>=', ALL_EVENTS_SINCE), w('we.events_edited_at', 'is not', null)]));
      })
      .returning('id'))
    .with('jobs', () => jobs.firstAttemptsOf('deliveries'))
    .selectNoFrom(sql<number>`(SELECT count(*) FROM moved)::int`.as('moved')),
  (shape) => `${shape.legacy}|${shape.set?.join(',') ?? '-'}|${shape.from?.join(',') ?? '-'}|${shape.versioned}`);
}

const statements = new WeakMap<JobSender, ReturnType<typeof eventStatement>>();

/**
 * Records a payment event, its deliveries and their first delivery jobs in one statement;
 * returns the event id. With `move`, the payment's change goes in the same statement, and when
 * the payment was no longer as the move expects nothing is written and MoveNotApplied is thrown.
 */
export async function recordPaymentEvent(db: Db, deps: EventDeps, type: PaymentEventType, state: PaymentState, move?: MoveWithEvent): Promise<string> {
  const { payment } = state;
  const id = newId('evt');
  let statement = statements.get(deps.jobs);
  if (statement === undefined) {
    statement = eventStatement(deps.jobs);
    statements.set(deps.jobs, statement);
  }
  const args: EventArgs = {
    id, business_id: payment.business_id, livemode: payment.livemode, type, payment_id: payment.id,
    order_id: state.order?.id ?? null, customer_id: state.customer?.id ?? null, body: eventBody(id, type, state, deps), now: deps.now,
    version: move?.version ?? null, set: move?.set ?? null,
  };
  const shape: EventShape = {
    legacy: LEGACY_TYPES.includes(type),
    set: move ? valuedColumns(move.set) : null,
    from: move?.from ?? null,
    versioned: move?.version !== undefined,
  };
  const [result] = await statement(db, args, shape);
  if (!result || result.moved === 0) throw new MoveNotApplied(`Payment ${payment.id} is no longer in a state this change applies to.`);
  return id;
}
