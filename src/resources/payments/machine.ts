import { sql, type Updateable } from 'kysely';
import type { AppContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import { rowAsJson, rowFromJson, type RowJson } from '../../db/rows-as-json.ts';
import type { CustomerRow, OrderRow, PaymentRow, PaymentStatus, PaymentsTable } from '../../db/schema.ts';
import { recordPaymentEvent, type PaymentState } from '../../events/record.ts';
import type { PaymentEventType } from '../../events/types.ts';
import { deriveOrder } from '../orders/derive.ts';
import { readStatus } from '../shared/payment-status.ts';

// The payment state machine of spec section 3, in one place. Every move is a conditional
// UPDATE ... WHERE status IN (from) RETURNING, so of two concurrent moves at most one applies,
// and no move leaves `paid` except settlement (which stays paid). The event of the move, the
// order's status and the queued deliveries are written in the same transaction.

export const MOVES = {
  /** Buyer gave an email and a way to pay: fee, USD value and payout wallet locked. */
  start: { from: ['open'], to: 'open', event: 'payment.started' },
  /** Buyer reached a card provider. */
  reach_provider: { from: ['open'], to: 'pending', event: null },
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

export type MachineDeps = Pick<AppContext, 'clock' | 'config' | 'jobs'>;

export interface MoveOptions {
  /** Extra column changes of the move (provider, amounts, hold reason, …). */
  set?: Omit<Updateable<PaymentsTable>, 'status' | 'updated_at'>;
  /** Further conditions, e.g. a link's cancel requires no provider reached. */
  where?: ReturnType<typeof sql<boolean>>;
  /** Skip expiring a payment whose time is up first (the caller has checked it is not). */
  notDue?: boolean;
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
  const { from, to, event } = MOVES[move];
  if (move !== 'expire' && !options.notDue) {
    const due = await db
      .updateTable('payments')
      .set({ status: 'expired', updated_at: now })
      .where('id', '=', paymentId)
      .where('status', 'in', MOVES.expire.from)
      .where('expires_at', '<=', now)
      .returningAll()
      .executeTakeFirst();
    if (due) await afterPaymentChange(db, deps, due, MOVES.expire.event);
  }
  let update = db
    .updateTable('payments')
    .set({ ...options.set, status: to, updated_at: now })
    .where('id', '=', paymentId)
    .where('status', 'in', [...from]);
  // An accepted hold keeps merchant_received null and gets no payment.updated (spec 3); a
  // payment settles once.
  if (move === 'settle') update = update.where('hold_reason', 'is', null).where('txid_out', 'is', null);
  if (options.where) update = update.where(options.where);
  const row = await update.returningAll().executeTakeFirst();
  if (!row) return null;
  await afterPaymentChange(db, deps, row, event);
  return row;
}

/** The error for a move that did not apply, naming the state the payment is in. */
export function cannotMove(payment: PaymentRow, now: Date, what: string): ApiError {
  return new ApiError('invalid_state', `This payment cannot ${what}: it is ${readStatus(payment, now)}.`);
}
