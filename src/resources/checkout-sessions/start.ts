import { sql } from 'kysely';
import type { OperationContext } from '../../core/context.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import type { PaymentRow, StoredAddress } from '../../db/schema.ts';
import { MoveNotApplied, recordPaymentEvent } from '../../events/record.ts';
import { convertMinor } from '../payments/usd-value.ts';
import { linkStoreAccount, upsertCustomer } from '../customers/record.ts';
import { deriveOrder } from '../orders/derive.ts';
import { cannotMove, MOVES } from '../payments/machine.ts';
import { customerFromJson, orderFromJson, paymentFromJson } from '../payments/rows-from-json.ts';
import { readStatus } from '../payments/status.ts';
import { offerProviders } from '../providers/routing.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import { DEFAULT_ROUTING, toCheckoutSessionOut, type StartCheckoutSessionInput, type StartedCheckoutSessionOut } from './schemas.ts';

type Json = Record<string, unknown>;

/** The payment (locked), its order, the order's customer and other payments, in one round trip. */
async function lockPayment(db: Db, ctx: OperationContext, id: string) {
  const { principal } = ctx;
  const row = await db
    .selectFrom('payments as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .selectAll('p')
    .select([
      sql<Json>`to_jsonb(o)`.as('order_json'),
      sql<Json | null>`(SELECT to_jsonb(c) FROM customers c WHERE c.id = o.customer_id)`.as('customer_json'),
      sql<string>`(SELECT usd_per_unit::text FROM fx_rates WHERE fx_rates.currency = p.currency)`.as('usd_per_unit'),
      sql<Json[]>`(SELECT coalesce(jsonb_agg(to_jsonb(s) || jsonb_build_object('value_coin', s.value_coin::text,
        'merchant_received', s.merchant_received::text)), '[]'::jsonb) FROM payments s WHERE s.order_id = p.order_id AND s.id <> p.id)`.as('siblings_json'),
    ])
    .where('p.id', '=', id)
    .where('p.business_id', '=', principal.businessId)
    .where('p.livemode', '=', principal.livemode)
    .forUpdate('p')
    .executeTakeFirst();
  if (!row) throw notFound('checkout session', id);
  const { order_json, customer_json, siblings_json, usd_per_unit, ...payment } = row;
  return {
    payment: payment as PaymentRow,
    usdPerUnit: usd_per_unit,
    order: orderFromJson(order_json),
    customer: customer_json === null ? null : customerFromJson(customer_json),
    siblings: siblings_json.map(paymentFromJson),
  };
}

/**
 * The buyer gives an email and is given ways to pay (spec 3, "open -> open"): the customer is
 * found or created and the order moves to them (spec 2.3 rules 2, 4, 5); fee, USD value and
 * payout wallet are locked; a Live payment gets its deposit address; payment.started is written
 * with its deliveries. Works for any unpaid payment of the caller: sessions, links, purchases.
 * The writes go in one statement, so a start costs a handful of round trips.
 */
export async function startCheckoutSession(ctx: OperationContext, input: StartCheckoutSessionInput): Promise<StartedCheckoutSessionOut> {
  const { principal } = ctx;
  const { business } = principal;
  assertCanTakePayments(principal);
  const now = ctx.clock.now();

  const { row, customerId, country } = await ctx.db.transaction().execute(async (trx) => {
    const { payment, order, customer: orderCustomer, siblings, usdPerUnit } = await lockPayment(trx, ctx, input.id);
    if (readStatus(payment, now) !== 'open') throw cannotMove(payment, now, 'be started');
    const email = input.email ?? payment.customer_email;
    if (!email) throw new ApiError('invalid_email', 'email is required to start this session.', 'email');

    // Details given now win; otherwise those the order kept while no email was known (rule 4).
    const address = (given: StoredAddress | null | undefined, kept: StoredAddress | null) => given ?? kept;
    const details = {
      email,
      name: input.name ?? order.customer_name,
      phone: input.phone ?? order.customer_phone,
      shipping_address: address(input.shipping_address, order.ship_to),
      billing_address: address(input.billing_address, order.bill_to),
    };
    const depositAddress = payment.deposit_address ?? (principal.livemode
      ? ctx.deposits.address(Number((await sql<{ index: string }>`SELECT nextval('deposit_address_index') AS index`.execute(trx)).rows[0]?.index))
      : null);
    // The payment as the start leaves it: fee, payout wallet and USD value locked.
    const locked = {
      status: MOVES.start.to,
      customer_email: email,
      started_at: payment.started_at ?? now,
      fee_bps: business.fee_bps,
      payout_wallet: business.payout_wallet,
      usd_value_minor: convertMinor(payment.amount_minor, usdPerUnit),
      deposit_address: depositAddress,
      updated_at: now,
    } satisfies Partial<PaymentRow>;
    const started: PaymentRow = { ...payment, ...locked };
    const facts = deriveOrder([...siblings, started], now);
    const events = { baseUrl: ctx.config.baseUrl, jobs: ctx.jobs, now };

    const buyerCountry = input.country ?? details.billing_address?.country ?? details.shipping_address?.country ?? null;

    // The buyer the order already has, giving no new details, and no change of order status:
    // everything the event shows is known, so the payment's move and its event go in one
    // statement. Otherwise the buyer is written first (customer, order moved to them: rule 5).
    const sameBuyer = orderCustomer !== null && orderCustomer.email === email.toLowerCase()
      && [input.name, input.phone, input.shipping_address, input.billing_address].every((given) => given == null);
    if (sameBuyer && facts.status === order.status) {
      const state = { payment: started, order, payments: [...siblings, started], customer: orderCustomer };
      await recordPaymentEvent(trx, events, MOVES.start.event, state, { set: locked, from: MOVES.start.from }).catch((error: unknown) => {
        throw error instanceof MoveNotApplied ? cannotMove(payment, now, 'be started') : error;
      });
      return { row: started, customerId: orderCustomer.id, country: buyerCountry };
    }
    const written = await trx
      .with('customer', (qc) => upsertCustomer(qc, principal, details, now, order.created_at).returningAll())
      .with('moved_order', (qc) => qc.updateTable('orders').set({
        customer_id: (eb) => eb.selectFrom('customer').select('id'),
        customer_name: details.name,
        customer_phone: details.phone,
        ship_to: details.shipping_address ? JSON.stringify(details.shipping_address) : null,
        bill_to: details.billing_address ? JSON.stringify(details.billing_address) : null,
        status: facts.status,
        updated_at: now,
      }).where('id', '=', order.id).returningAll())
      .with('started', (qc) => qc.updateTable('payments').set(locked).where('id', '=', payment.id)
        .where('status', 'in', [...MOVES.start.from]).returningAll())
      .selectFrom(['started', 'moved_order', 'customer'])
      .selectAll('started')
      .select([sql<Json>`to_jsonb(moved_order)`.as('order_json'), sql<Json>`to_jsonb(customer)`.as('customer_json')])
      .executeTakeFirst();
    if (!written) throw cannotMove(payment, now, 'be started');
    const { order_json, customer_json, ...startedRow } = written;
    const movedOrder = orderFromJson(order_json);
    const customer = customerFromJson(customer_json);
    if (movedOrder.store_customer_id && movedOrder.store) await linkStoreAccount(trx, movedOrder.id, movedOrder.store, movedOrder.store_customer_id);
    await recordPaymentEvent(trx, events, MOVES.start.event, { payment: startedRow, order: movedOrder, payments: [...siblings, startedRow], customer });
    return { row: startedRow, customerId: customer.id, country: buyerCountry };
  });

  const checkout = row.checkout_id
    ? await ctx.db.selectFrom('checkouts').select(['crypto', 'routing']).where('id', '=', row.checkout_id).executeTakeFirst()
    : undefined;
  const routing = checkout?.routing ?? row.routing ?? { ...DEFAULT_ROUTING };
  return {
    ...toCheckoutSessionOut({ ...row, customer_id: customerId }, ctx.config.baseUrl, now),
    card_providers: offerProviders(routing, { currency: row.currency, usdValueMinor: row.usd_value_minor ?? 0, country }),
    crypto: business.crypto_enabled && (checkout?.crypto ?? true),
  };
}
