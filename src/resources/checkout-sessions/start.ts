import { sql } from 'kysely';
import type { OperationContext } from '../../verbs/context.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';
import { rowAsJson, rowFromJson, type RowJson } from '../../db/rows-as-json.ts';
import { template } from '../../db/template.ts';
import type { PaymentRow, Routing } from '../../db/schema.ts';
import type { AcceptedCoinId } from '../../core/payment-request.ts';
import { recordPaymentEvent } from '../../events/record.ts';
import { linkStoreAccount, upsertCustomer } from '../customers/record.ts';
import { deriveOrder } from '../orders/derive.ts';
import { cannotMove, MOVES, movedRow, moveUpdate, moveWithEvent } from '../payments/machine.ts';
import { readStatus } from '../shared/payment-status.ts';
import { convertMinor } from '../payments/usd-value.ts';
import { rateFromJson, ratesInEffect, usableRate, type RateInEffectJson } from '../fx-rates/rates.ts';
import { offerProviders } from '../providers/routing.ts';
import { liveProviders } from '../providers/live.ts';
import { coinsForStart } from './live-ways.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import { DEFAULT_ROUTING, toCheckoutSessionOut, type StartCheckoutSessionInput, type StartedCheckoutSessionOut } from './schemas.ts';

/** How often a start read without locks is tried before it takes the locks instead. */
const OPTIMISTIC_TRIES = 3;

/** The payment with its order, the order's customer, its other payments and the exchange rate in effect, as one row. */
const readRow = template((db: Db, args: { id: string; businessId: string; livemode: boolean }, lock: boolean) => scoped(db
  .selectFrom('payments as p')
  .innerJoin('orders as o', 'o.id', 'p.order_id')
  // Rows as JSON, one column each: one parse for the row instead of one parser per column.
  .select([
    rowAsJson('payments', 'p').as('payment_json'),
    sql<string>`p.xmin::text`.as('version'),
    rowAsJson('orders', 'o').as('order_json'),
    sql<RowJson<'customers'> | null>`(SELECT ${rowAsJson('customers', 'c')} FROM customers c WHERE c.id = o.customer_id)`.as('customer_json'),
    sql<RateInEffectJson | null>`(SELECT json_build_object('usd_per_unit', r.usd_per_unit, 'as_of', r.as_of, 'source', r.source)
      FROM ${ratesInEffect(db).as('r')} WHERE r.currency = p.currency)`.as('rate_json'),
    sql<RowJson<'payments'>[]>`(SELECT coalesce(json_agg(${rowAsJson('payments', 's')}), '[]'::json)
      FROM payments s WHERE s.order_id = p.order_id AND s.id <> p.id)`.as('siblings_json'),
    sql<boolean>`${lock ? sql`(SELECT s.updated_at FROM payments s WHERE s.id = p.id) = p.updated_at
      AND (SELECT x.updated_at FROM orders x WHERE x.id = o.id) = o.updated_at` : sql`true`}`.as('current'),
  ]), 'p', args, args.id)
  .$if(lock, (q) => q.forUpdate(['p', 'o'])), (lock) => String(lock));

/**
 * Reads the payment with its order, the order's customer, its other payments and the exchange
 * rate, in one round trip, with the payment's row version (`xmin`). Unlocked, or with the payment
 * and its order locked (payment first, then order, as every move does). A lock that had to wait
 * returns the row as the other transaction left it while the rest of the statement saw the older
 * state: the row's updated_at tells, and then the read is simply made again, under the lock now held.
 */
async function readPayment(db: Db, ctx: OperationContext, id: string, lock: boolean) {
  const { principal } = ctx;
  for (;;) {
    const [row] = await readRow(db, { id, businessId: principal.businessId, livemode: principal.livemode }, lock);
    if (!row) throw notFound('checkout session', id);
    if (!row.current) continue;
    const { payment_json, order_json, customer_json, siblings_json, rate_json, version } = row;
    return {
      payment: rowFromJson('payments', payment_json),
      version,
      rate: rateFromJson(rate_json),
      order: rowFromJson('orders', order_json),
      customer: customer_json === null ? null : rowFromJson('customers', customer_json),
      siblings: siblings_json.map((json) => rowFromJson('payments', json)),
    };
  }
}

type Read = Awaited<ReturnType<typeof readPayment>>;

export interface StartOptions {
  /**
   * A buyer who need not give an email (an x402 client, docs/x402.md): without one the payment
   * starts with no customer, the order keeps whoever it has, and no receipt can be mailed.
   */
  anonymous?: boolean;
}

/**
 * The buyer gives an email and is given ways to pay (spec 3, "open -> open"): the customer is
 * found or created and the order moves to them (spec 2.3 rules 2, 4, 5); fee, USD value and
 * payout wallet are locked at the first start; a Live payment gets its deposit address;
 * payment.started is written with its deliveries. Works for any unpaid payment of the caller:
 * sessions, links, checkout purchases. Starting again with the same buyer and nothing new
 * changes nothing and sends nothing.
 */
export async function startCheckoutSession(ctx: OperationContext, input: StartCheckoutSessionInput, options: StartOptions = {}): Promise<StartedCheckoutSessionOut> {
  const { principal } = ctx;
  const { business } = principal;
  assertCanTakePayments(principal);
  const now = ctx.clock.now();
  const givesDetails = [input.name, input.phone, input.shipping_address, input.billing_address].some((given) => given != null);
  const events = { baseUrl: ctx.config.baseUrl, jobs: ctx.jobs, now };
  // A Live deposit address this request drew, at most once however often the start is planned;
  // used only while the payment has none (a concurrent first start may have given it one).
  let drawn: { address: string; index: number } | undefined;
  // The checkout a payment buys decides its routing and crypto; read once (through the first
  // caller's connection; later calls get that answer), before the start writes anything, as is
  // whether anything serves the way to pay it (Live only).
  let bought: Promise<{ crypto: boolean; routing: Routing } | undefined> | undefined;
  const checkoutOf = (payment: PaymentRow, db: Db) => bought ??= payment.checkout_id
    ? db.selectFrom('checkouts').select(['crypto', 'routing']).where('id', '=', payment.checkout_id).where('business_id', '=', principal.businessId).executeTakeFirst()
    : Promise.resolve(undefined);
  let coins: Promise<AcceptedCoinId[]> | undefined;

  // What the start makes of what was read: the buyer, and the payment and order it leaves. Its
  // reads go through `db`, the connection the start holds (one taken while holding another
  // could wait on a pool that other starts hold).
  const plan = async (read: Read, db: Db) => {
    const { payment, order, customer } = read;
    if (readStatus(payment, now) !== 'open') throw cannotMove(payment, now, 'be started');
    const email = (input.email ?? payment.customer_email)?.toLowerCase() ?? null;
    if (!email && !options.anonymous) throw new ApiError('invalid_email', 'email is required to start this session.', 'email');
    // Refused here, before a deposit address is drawn or anything is written.
    const checkout = await checkoutOf(payment, db);
    await (coins ??= coinsForStart({ ...ctx, db }, principal.livemode, checkout?.routing ?? payment.routing ?? { ...DEFAULT_ROUTING }, input.coin));
    const firstStart = payment.started_at === null;
    // Fee, payout wallet, USD value and deposit address are locked once, at the first start; a
    // Live one without a recent rate for its currency is refused here, before anything is drawn.
    const usdPerUnit = firstStart
      ? usableRate(payment.currency, read.rate, { livemode: principal.livemode, now, maxAgeHours: ctx.config.fxRates.maxAgeHours })
      : undefined;
    if (payment.deposit_address === null && principal.livemode && drawn === undefined) {
      const index = Number((await sql<{ index: string }>`SELECT nextval('deposit_address_index') AS index`.execute(db)).rows[0]?.index);
      drawn = { address: ctx.deposits.address(index), index };
    }
    const deposit = payment.deposit_address ?? drawn?.address ?? null;
    const locked = {
      customer_email: email,
      started_at: payment.started_at ?? now,
      fee_bps: firstStart ? business.fee_bps : payment.fee_bps,
      payout_wallet: firstStart ? business.payout_wallet : payment.payout_wallet,
      usd_value_minor: usdPerUnit === undefined ? payment.usd_value_minor : convertMinor(payment.amount_minor, usdPerUnit),
      deposit_address: deposit,
      deposit_index: payment.deposit_address === null ? drawn?.index ?? null : payment.deposit_index,
    } satisfies Partial<PaymentRow>;
    const started = movedRow(payment, 'start', locked, now);
    // A buyer without an email leaves the order's buyer (if any) as it is.
    const sameBuyer = email === null || (customer !== null && customer.email === email);
    const facts = deriveOrder([...read.siblings, started], now);
    return {
      email, locked, started,
      // The order's own buyer again, giving nothing new: a second start changes nothing.
      unchanged: payment.started_at !== null && sameBuyer && !givesDetails ? { customer } : null,
      // The order's own buyer, giving nothing new, and no change of order status: only the payment moves.
      paymentOnly: sameBuyer && !givesDetails && facts.status === order.status ? { customer } : null,
      moving: customer !== null && !sameBuyer,
      facts,
      country: input.country ?? input.billing_address?.country ?? order.bill_to?.country
        ?? input.shipping_address?.country ?? order.ship_to?.country ?? null,
    };
  };

  // Most starts move only the payment: read without locks, then write the move, its event, its
  // deliveries and their jobs in one statement that applies only to the row version read. A
  // payment changed in between is read again; a start that moves the order takes the locks.
  // Read and write go through one connection, held from the read: under load, a start that
  // went back to the pool between them would queue for a connection twice (the start's tail).
  const optimistic = () => ctx.db.connection().execute(async (db) => {
    for (let attempt = 0; attempt < OPTIMISTIC_TRIES; attempt += 1) {
      const read = await readPayment(db, ctx, input.id, false);
      const { locked, started, unchanged, paymentOnly, country } = await plan(read, db);
      if (unchanged) return { row: read.payment, customerId: unchanged.customer?.id ?? null, country };
      if (!paymentOnly) return undefined;
      const state = { payment: started, order: read.order, payments: [...read.siblings, started], customer: paymentOnly.customer };
      if (await moveWithEvent(db, events, 'start', state, { set: locked, version: read.version })) {
        return { row: started, customerId: paymentOnly.customer?.id ?? null, country };
      }
    }
    return undefined;
  });

  const { row, customerId, country } = await optimistic() ?? await ctx.db.transaction().execute(async (trx) => {
    const read = await readPayment(trx, ctx, input.id, true);
    const { email, locked, started, unchanged, paymentOnly, moving, facts, country } = await plan(read, trx);
    if (unchanged) return { row: read.payment, customerId: unchanged.customer?.id ?? null, country };
    const { payment, order, siblings } = read;
    if (paymentOnly || email === null) {
      // A buyer without an email moves the order's status only, never its buyer.
      const movedOrder = facts.status === order.status ? order : await trx.updateTable('orders').set({ status: facts.status, updated_at: now })
        .where('id', '=', order.id).returningAll().executeTakeFirstOrThrow();
      const state = { payment: started, order: movedOrder, payments: [...siblings, started], customer: read.customer };
      // Under the lock the move applies; should it not, the start is refused, never half made.
      if (!(await moveWithEvent(trx, events, 'start', state, { set: locked }))) throw cannotMove(payment, now, 'be started');
      return { row: started, customerId: read.customer?.id ?? null, country };
    }
    // Details given now win. Otherwise the order's own details (rule 4), unless the order is
    // moving to another buyer (rule 5): that person's name and phone do not follow it.
    const details = {
      email,
      name: input.name ?? (moving ? null : order.customer_name),
      phone: input.phone ?? (moving ? null : order.customer_phone),
      shipping_address: input.shipping_address ?? (moving ? null : order.ship_to),
      billing_address: input.billing_address ?? (moving ? null : order.bill_to),
    };
    const shipTo = input.shipping_address ?? order.ship_to;
    const billTo = input.billing_address ?? order.bill_to;
    // One statement: the machine's move of the payment, the buyer saved and the order moved to them.
    const written = await trx
      .with('started', (qc) => moveUpdate(qc, 'start', { id: payment.id, now, set: locked }).returningAll())
      .with('customer', (qc) => upsertCustomer(qc, principal, details, now, order.created_at).returningAll())
      .with('moved_order', (qc) => qc.updateTable('orders').set({
        customer_id: (eb) => eb.selectFrom('customer').select('id'),
        customer_name: details.name,
        customer_phone: details.phone,
        ship_to: shipTo ? JSON.stringify(shipTo) : null,
        bill_to: billTo ? JSON.stringify(billTo) : null,
        status: facts.status,
        updated_at: now,
      }).where('id', '=', order.id).returningAll())
      .selectFrom(['started', 'moved_order', 'customer'])
      .selectAll('started')
      .select([rowAsJson('orders', 'moved_order').as('order_json'), rowAsJson('customers', 'customer').as('customer_json')])
      .executeTakeFirst();
    if (!written) throw cannotMove(payment, now, 'be started');
    const { order_json, customer_json, ...startedRow } = written;
    const movedOrder = rowFromJson('orders', order_json);
    const customer = rowFromJson('customers', customer_json);
    if (movedOrder.store_customer_id && movedOrder.store) await linkStoreAccount(trx, movedOrder.id, movedOrder.store, movedOrder.store_customer_id);
    await recordPaymentEvent(trx, events, MOVES.start.event, { payment: startedRow, order: movedOrder, payments: [...siblings, startedRow], customer });
    return { row: startedRow, customerId: customer.id, country };
  });

  const checkout = await checkoutOf(row, ctx.db);
  const routing = checkout?.routing ?? row.routing ?? { ...DEFAULT_ROUTING };
  const buyer = { currency: row.currency, usdValueMinor: row.usd_value_minor ?? 0, country };
  const served = await coins!;
  const crypto = business.crypto_enabled && (checkout?.crypto ?? true) && served.length > 0;
  return {
    ...toCheckoutSessionOut({ ...row, customer_id: customerId }, ctx.config.baseUrl, now),
    // Live: only providers with keys here, while the network they deliver to is served.
    card_providers: principal.livemode ? liveProviders(routing, buyer, ctx.config.providers, served) : offerProviders(routing, buyer),
    crypto,
    coins: crypto ? served : [],
  };
}
