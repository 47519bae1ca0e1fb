import { sql, type Expression, type QueryCreator, type SqlBool, type Updateable, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { AppContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import { rowAsJson, rowFromJson, type RowJson } from '../../db/rows-as-json.ts';
import type { CustomerRow, Database, OrderRow, PaymentRow, PaymentStatus, PaymentsTable } from '../../db/schema.ts';
import { fieldsOf, valuedColumns } from '../../db/template.ts';
import { recordPaymentEvent, type EventDeps, type EventGuard, type PaymentState } from '../../events/record.ts';
import type { PaymentEventType } from '../../events/types.ts';
import { deriveOrder } from '../orders/derive.ts';
import { readStatus } from '../shared/payment-status.ts';
import { mailPaymentOutcome } from './mail.ts';

// The payment state machine of spec section 3, in one place: this is the only code that changes
// a payment's state. Every move is a conditional UPDATE ... WHERE status IN (from) RETURNING, so
// of two concurrent moves at most one applies, and no move leaves `paid` except settlement
// (which stays paid). The event of the move, the order's status and the queued deliveries are
// written in the same transaction, or with the move in one statement (moveWithEvent).

export const MOVES = {
  /** Buyer gave an email and a way to pay: fee, USD value and payout wallet locked. */
  start: { from: ['open'], to: 'open', event: 'payment.started' },
  /** Buyer reached a card provider. */
  reach_provider: { from: ['open'], to: 'pending', event: null },
  /** A buyer at a card provider chose another one (the payer page). */
  switch_provider: { from: ['pending'], to: 'pending', event: null },
  /** Money arrived and passed the checks (also late, after expiry or cancel). */
  pay: { from: ['open', 'pending', 'expired'], to: 'paid', event: 'payment.paid' },
  /** Money arrived and failed a check. */
  hold: { from: ['open', 'pending', 'expired'], to: 'held', event: 'payment.held' },
  /** The merchant accepted a held payment whose hold is acceptable. */
  accept: { from: ['held'], to: 'paid', event: 'payment.paid' },
  /** Settlement details of a paid payment arrived (never for an accepted hold: spec 3). */
  settle: { from: ['paid'], to: 'paid', event: 'payment.updated' },
  /** Terminal failure (Test simulation). */
  fail: { from: ['open', 'pending'], to: 'failed', event: 'payment.failed' },
  /** Nobody paid in time. */
  expire: { from: ['open', 'pending'], to: 'expired', event: 'payment.expired' },
  /** A payment link canceled before anyone reached a provider. */
  cancel: { from: ['open'], to: 'expired', event: 'payment.canceled' },
} as const satisfies Record<string, { from: readonly PaymentStatus[]; to: PaymentStatus; event: PaymentEventType | null }>;

export type Move = keyof typeof MOVES;
/** The moves that write an event. */
export type EventMove = { [M in Move]: (typeof MOVES)[M]['event'] extends null ? never : M }[Move];

export type MachineDeps = Pick<AppContext, 'clock' | 'config' | 'jobs' | 'paymentMails'>;

/** Extra column changes of a move (provider, amounts, hold reason, …): the machine sets status and updated_at. */
export type MoveSet = Omit<Updateable<PaymentsTable>, 'status' | 'updated_at'>;

export interface MoveOptions {
  set?: MoveSet;
  /** Further conditions, e.g. a link's cancel requires no provider reached. */
  where?: Expression<SqlBool>;
  /** Applies only while the payment is still this row version (its `xmin` as text, read with it). */
  version?: string;
  /** Skip expiring a payment whose time is up first (the caller has checked it is not). */
  notDue?: boolean;
}

/** One payment's move, as moveUpdate writes it. */
export interface MoveTarget extends Pick<MoveOptions, 'set' | 'where' | 'version'> {
  id: string;
  now: Date;
}

/**
 * A move as a query piece: the conditional UPDATE of one payment, to run alone or as a CTE of a
 * larger statement once the caller adds its RETURNING. Changes nothing unless the payment is in
 * one of the move's source states (and, with `version`, still that row version).
 */
export function moveUpdate(qc: QueryCreator<Database>, move: Move, target: MoveTarget): UpdateQueryBuilder<Database, 'payments', 'payments', UpdateResult> {
  const { from, to } = MOVES[move];
  let update = qc
    .updateTable('payments')
    .set({ ...target.set, status: to, updated_at: target.now })
    .where('id', '=', target.id)
    .where('status', 'in', [...from]);
  // An accepted hold keeps merchant_received null and gets no payment.updated (spec 3); a
  // payment settles once.
  if (move === 'settle') update = update.where('hold_reason', 'is', null).where('txid_out', 'is', null);
  if (target.version !== undefined) update = update.where(sql<string>`xmin::text`, '=', target.version);
  if (target.where) update = update.where(target.where);
  return update;
}

/** The row a move leaves, as a caller that read the payment knows it before writing. */
export function movedRow(payment: PaymentRow, move: Move, set: Partial<PaymentRow>, now: Date): PaymentRow {
  return { ...payment, ...set, status: MOVES[move].to, updated_at: now };
}

/**
 * The order of a changed payment, locked, then its payments and customer as they are now: two
 * moves on payments of one order take turns, so neither writes a status from a stale read.
 * (Locks go payment first, then order, everywhere.)
 */
async function loadState(db: Db, payment: PaymentRow): Promise<{ order: OrderRow | null; payments: PaymentRow[]; customer: CustomerRow | null }> {
  if (payment.order_id === null) return { order: null, payments: [payment], customer: null };
  const row = await db
    .selectFrom('orders as o')
    .selectAll('o')
    .select(sql<RowJson<'customers'> | null>`(SELECT ${rowAsJson('customers', 'c')} FROM customers c WHERE c.id = o.customer_id)`.as('customer_json'))
    .where('o.id', '=', payment.order_id)
    .forUpdate('o')
    .executeTakeFirstOrThrow();
  const payments = await db.selectFrom('payments').selectAll().where('order_id', '=', payment.order_id).execute();
  const { customer_json, ...order } = row;
  return { order, payments, customer: customer_json === null ? null : rowFromJson('customers', customer_json) };
}


/**
 * After a payment changed: bring its order up to date (status, paid time) and write the event.
 * Returns the state the event describes.
 */
async function afterPaymentChange(db: Db, deps: MachineDeps, payment: PaymentRow, event: PaymentEventType | null): Promise<PaymentState> {
  const now = deps.clock.now();
  let { order, payments, customer } = await loadState(db, payment);
  if (order !== null) {
    const facts = deriveOrder(payments, now);
    order = await db
      .updateTable('orders')
      .set({ status: facts.status, paid_at: facts.paidAt, updated_at: now })
      .where('id', '=', order.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  const state: PaymentState = { payment, order, payments, customer };
  if (event !== null) await recordPaymentEvent(db, { baseUrl: deps.config.baseUrl, jobs: deps.jobs, now }, event, state);
  return state;
}

/**
 * Applies a move to one payment (already known to belong to the caller) inside `db`, a
 * transaction. Returns the changed row, or null when the payment was not in a state the move
 * applies to. An unpaid payment whose time is up is first expired (with its event), so a late
 * payment follows payment.expired as spec 6.2 shows.
 */
export async function applyMove(db: Db, deps: MachineDeps, paymentId: string, move: Move, options: MoveOptions = {}): Promise<PaymentRow | null> {
  const now = deps.clock.now();
  if (move !== 'expire' && !options.notDue) {
    const due = await moveUpdate(db, 'expire', { id: paymentId, now, where: sql<boolean>`expires_at <= ${now}` }).returningAll().executeTakeFirst();
    if (due) await afterPaymentChange(db, deps, due, MOVES.expire.event);
  }
  const { set, where, version } = options;
  const row = await moveUpdate(db, move, { id: paymentId, now, set, where, version }).returningAll().executeTakeFirst();
  if (!row) return null;
  const state = await afterPaymentChange(db, deps, row, MOVES[move].event);
  // Paid or held: the buyer's receipt or notice, and the merchant's people told of a hold.
  if (move === 'pay' || move === 'accept' || move === 'hold') await mailPaymentOutcome(db, deps, state);
  return row;
}

/** A move as the guard of its event's statement: built once per move, columns set and versioning. */
function moveGuard(move: Move, target: Omit<MoveTarget, 'where'>): EventGuard {
  const columns = valuedColumns(target.set ?? {});
  const fields = target.version === undefined ? ['id', 'now', 'set'] : ['id', 'now', 'set', 'version'];
  return {
    key: `${move}|${columns.join(',')}|${target.version !== undefined}`,
    args: { ...target, set: target.set ?? {} },
    build: (qc, args) => {
      const a = fieldsOf(args, fields) as { id: string; now: Date; set: unknown; version?: string };
      return moveUpdate(qc, move, { id: a.id, now: a.now, set: fieldsOf(a.set, columns), version: a.version }).returning('id');
    },
  };
}

/**
 * A move whose outcome the caller already knows (`state`, from rows it read: its payment is the
 * moved row), written with its event, deliveries and their jobs in one statement. With a
 * `version`, it applies only to the row version read, so a caller that read without locks needs
 * no transaction. Returns whether it applied; when not, nothing was written. Writes no order.
 */
export async function moveWithEvent(db: Db, deps: EventDeps, move: EventMove, state: PaymentState, options: Pick<MoveOptions, 'set' | 'version'>): Promise<boolean> {
  const guard = moveGuard(move, { id: state.payment.id, now: deps.now, ...options });
  return (await recordPaymentEvent(db, deps, MOVES[move].event, state, guard)) !== null;
}

/** The error for a move that did not apply, naming the state the payment is in. */
export function cannotMove(payment: PaymentRow, now: Date, what: string): ApiError {
  return new ApiError('invalid_state', `This payment cannot ${what}: it is ${readStatus(payment, now)}.`);
}
