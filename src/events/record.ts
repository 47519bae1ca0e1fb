import { sql, type Expression, type QueryCreator, type UpdateQueryBuilder } from 'kysely';
import { unixSeconds } from '../core/clock.ts';
import { newId } from '../core/ids.ts';
import type { Db } from '../db/database.ts';
import { template } from '../db/template.ts';
import type { CustomerRow, Database, OrderRow, PaymentRow } from '../db/schema.ts';
import type { JobSender } from '../jobs/queues.ts';
import { customerSnapshot, orderSnapshot, paymentSnapshot } from './snapshots.ts';
import type { PaymentEventType } from './types.ts';

// Writing an event: the envelope (spec 2.5) stored as the exact body every attempt will send,
// one delivery per subscribed endpoint of the same mode, and the first attempt of each queued
// in pg-boss, all in one statement: inside the transaction of the change, or with the change as
// the statement's guard. What a change of a payment is, payments/machine.ts alone knows.

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

/** A guard's query: the payments it passes (one row, `id`), or none. */
export type GuardQuery = Expression<{ id: string }> | UpdateQueryBuilder<Database, any, any, { id: string }>;

/**
 * What decides, inside the event's own statement, whether the event is written: a query (the
 * statement's first CTE) returning the id of the payment the event is about, or no row, and then
 * nothing is written. Usually a conditional change of the payment (payments/machine.ts).
 */
export interface EventGuard {
  /** Names the SQL `build` makes: two guards with one key build the same text. */
  key: string;
  /** The guard's values, sent as the statement's parameters. */
  args: object;
  /** Builds the query with the template's marker for `args` (take its fields with fieldsOf). */
  build(qc: QueryCreator<Database>, args: unknown): GuardQuery;
}

/** What makes the event statement's SQL differ: the rest are its parameters. */
interface EventShape {
  legacy: boolean;
  guard: EventGuard | null;
}

type EventArgs = Record<string, unknown>;

/** The event statement of a job sender (its pg-boss insert is part of the SQL). */
function eventStatement(jobs: JobSender) {
  return template((db: Db, a: EventArgs, shape: EventShape) => db
    .with('guard', (qc) => shape.guard
      ? shape.guard.build(qc, a.guard)
      : qc.selectNoFrom(sql<string>`${a.payment_id}::text`.as('id')))
    // Written only when the guard passed the payment: the event, then its deliveries, then their jobs.
    .with('event', (qc) => qc.insertInto('events')
      .columns(['id', 'business_id', 'livemode', 'type', 'payment_id', 'order_id', 'customer_id', 'body', 'created_at'])
      .expression((eb) => eb.selectFrom('guard').select([
        sql<string>`${a.id}::text`.as('id'),
        sql<string>`${a.business_id}::text`.as('business_id'),
        sql<boolean>`${a.livemode}::boolean`.as('livemode'),
        sql<string>`${a.type}::text`.as('type'),
        'guard.id as payment_id',
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
      .returning(['id', 'endpoint_id']))
    .with('jobs', () => jobs.firstAttemptsOf('deliveries'))
    // Idle delivery workers wake at the commit (when there are deliveries), not at their next poll.
    .selectNoFrom([sql<number>`(SELECT count(*) FROM guard)::int`.as('passed'), jobs.wakeWorkersFor('deliveries').as('woken')]),
  (shape) => `${shape.legacy}|${shape.guard?.key ?? '-'}`);
}

const statements = new WeakMap<JobSender, ReturnType<typeof eventStatement>>();

/**
 * Records a payment event, its deliveries and their first delivery jobs in one statement;
 * returns the event id. With `guard`, the guard runs in the same statement, and when it passes
 * no payment nothing is written and the answer is null.
 */
export async function recordPaymentEvent(db: Db, deps: EventDeps, type: PaymentEventType, state: PaymentState, guard?: EventGuard): Promise<string | null> {
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
    guard: guard?.args ?? null,
  };
  const [result] = await statement(db, args, { legacy: LEGACY_TYPES.includes(type), guard: guard ?? null });
  return result !== undefined && result.passed > 0 ? id : null;
}
