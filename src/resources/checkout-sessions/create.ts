import { DAY } from '../../core/clock.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { newId } from '../../core/ids.ts';
import { Answer, type Spend } from '../../verbs/operation.ts';
import { isUniqueViolation, type Db } from '../../db/database.ts';
import type { CheckoutRow, OrderItem, PaymentRow, StoreInfo } from '../../db/schema.ts';
import { ApiError } from '../../core/errors.ts';
import { formatAmount, type Currency } from '../../core/money.ts';
import type { ChosenPlan } from '../checkouts/plans.ts';
import { findCheckout } from '../checkouts/queries.ts';
import type { Principal } from '../../auth/principal.ts';
import { linkStoreAccount, upsertCustomer, type CustomerDetails } from '../customers/record.ts';
import { summaryOf } from '../orders/derive.ts';
import { orderTotal, storeOrderKey } from '../orders/input.ts';
import type { OrderFields } from '../orders/insert.ts';
import { insertPaymentWithOrder } from '../payments/create-with-order.ts';
import { newPayment, paymentValues } from '../payments/insert.ts';
import { getPayment } from '../payments/queries.ts';
import type { PaymentWithCustomer } from '../payments/schemas.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import { requireHttpsInLive } from '../shared/fields.ts';
import { assertRoutingServable } from '../providers/live.ts';
import { claimIdempotencyKey, isReplay, requestHash } from './idempotency.ts';
import { DEFAULT_ROUTING, toCheckoutSessionOut, type CheckoutSessionOut, type CreateCheckoutSessionInput } from './schemas.ts';

export const SESSION_LIFETIME_MS = DAY;

type SessionInput = Omit<CreateCheckoutSessionInput, 'idempotency_key'>;
/** The request with its price settled (from the body, or from the checkout it sells). */
type SessionBody = SessionInput & { amount: number; currency: Currency; checkout: CheckoutRow | null; plan?: ChosenPlan };

const json = (value: unknown) => (value == null ? null : JSON.stringify(value));

/** The order a session pays for: the store's order when sent, else one line for the amount. */
function orderFieldsOf(body: SessionBody, description: string): OrderFields {
  const order = body.order;
  const items: OrderItem[] = order && order.items.length > 0
    ? order.items.map((item) => ({
        name: item.name, variant: item.variant ?? null, sku: item.sku ?? null, quantity: item.quantity,
        unit_amount_minor: item.unit_amount ?? null, amount_minor: item.amount,
      }))
    : [{ name: description, variant: null, sku: null, quantity: 1, unit_amount_minor: body.amount, amount_minor: body.amount }];
  const subtotal = order?.subtotal ?? (order && order.items.length > 0 ? items.reduce((sum, item) => sum + item.amount_minor, 0) : body.amount);
  const [discount, shipping, tax] = [order?.discount ?? 0, order?.shipping ?? 0, order?.tax ?? 0];
  const store: StoreInfo | null = order
    ? {
        platform: order.store?.platform ?? null, id: order.store?.id ?? null, name: order.store?.name ?? null, url: order.store?.url ?? null,
        order_id: order.id, order_number: order.number ?? null, order_url: order.url ?? null, customer_id: order.customer_id ?? null,
      }
    : null;
  return {
    source: body.checkout ? 'checkout' : 'api',
    checkout_id: body.checkout?.id ?? null,
    currency: body.currency,
    subtotal_minor: subtotal,
    discount_minor: discount,
    discount_code: order?.discount_code ?? null,
    shipping_minor: shipping,
    shipping_method: order?.shipping_method ?? null,
    tax_minor: tax,
    total_minor: order?.total ?? subtotal - discount + shipping + tax,
    customer_name: body.customer?.name ?? null,
    customer_phone: body.customer?.phone ?? null,
    ship_to: json(order?.ship_to ?? body.shipping_address),
    bill_to: json(order?.bill_to ?? body.billing_address),
    items: JSON.stringify(items),
    store: json(store),
    store_order_key: order ? storeOrderKey(order) : null,
    store_customer_id: order?.customer_id ?? null,
  };
}

interface Prepared {
  email: string | null;
  orderFields: OrderFields;
  customer: CustomerDetails | null;
  payment: PaymentRow;
}

/** The rows a session writes, before deciding whether its store order exists already. */
function prepareSession(principal: Principal, body: SessionBody, paymentId: string, now: Date): Prepared {
  const email = body.customer_email ?? body.customer?.email ?? null;
  const checkoutName = body.checkout && body.plan ? `${body.checkout.name}: ${body.plan.name}` : body.checkout?.name;
  const description = body.description ?? (body.order && body.order.items.length > 0 ? summaryOf(body.order.items) : checkoutName ?? 'Payment');
  const orderFields = orderFieldsOf(body, description);
  const customer: CustomerDetails | null = email
    ? { email, name: body.customer?.name, phone: body.customer?.phone,
        shipping_address: body.order?.ship_to ?? body.shipping_address, billing_address: body.order?.bill_to ?? body.billing_address }
    : null;
  const checkout = body.checkout;
  const payment = newPayment(principal, {
    id: paymentId,
    source: checkout ? 'checkout' : 'api',
    checkout_id: checkout?.id ?? null,
    order_id: newId('ord'),
    amount_minor: body.amount,
    currency: body.currency,
    description,
    reference: body.reference ?? null,
    metadata: body.metadata,
    customer_email: email,
    success_url: body.success_url ?? checkout?.success_url ?? null,
    collect: body.collect ?? checkout?.collect ?? null,
    routing: body.routing ?? checkout?.routing ?? { ...DEFAULT_ROUTING },
    fee_bps: principal.business.fee_bps,
    plan_label: body.plan?.label ?? null,
    expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS),
  }, now);
  return { email, orderFields, customer, payment };
}

/** A second try at a store order an earlier session made: the latest session's details replace the order's. */
async function attachToStoreOrder(db: Db, principal: Principal, prepared: Prepared, now: Date): Promise<PaymentWithCustomer | null> {
  const existing = await db.selectFrom('orders').select(['id', 'customer_id', 'currency'])
    .where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode)
    .where('store_order_key', '=', prepared.orderFields.store_order_key ?? '').forUpdate().executeTakeFirst();
  if (!existing) return null;
  // Every amount on an order is in its currency (spec 2.7), what was paid on it included.
  if (existing.currency !== prepared.orderFields.currency) {
    throw new ApiError('invalid_currency', `currency must be ${existing.currency}: this store order is in ${existing.currency}, and a further session for it must be too.`, 'currency');
  }
  const customerId = prepared.customer
    ? (await upsertCustomer(db, principal, prepared.customer, now).returning('id').executeTakeFirstOrThrow()).id
    : existing.customer_id;
  await db.updateTable('orders').set({ ...prepared.orderFields, customer_id: customerId, updated_at: now }).where('id', '=', existing.id).execute();
  const payment = { ...prepared.payment, order_id: existing.id };
  await db.insertInto('payments').values(paymentValues(payment)).execute();
  return { ...payment, customer_id: customerId };
}

async function linkStore(db: Db, body: SessionBody, row: PaymentWithCustomer): Promise<void> {
  if (row.customer_id && body.order?.customer_id) {
    await linkStoreAccount(db, row.order_id ?? '', body.order.store ?? {}, body.order.customer_id);
  }
}

/**
 * The new session (and its new order) in one statement, claiming the Idempotency-Key in it;
 * a second session for a store order goes to a transaction that attaches it instead.
 */
async function writeSession(ctx: OperationContext, body: SessionBody, claim: { key: string; hash: Buffer } | null, now: Date): Promise<PaymentWithCustomer | Answer<CheckoutSessionOut>> {
  const { principal } = ctx;
  const prepared = prepareSession(principal, body, newId('pay'), now);
  const inTransaction = async () => ctx.db.transaction().execute(async (trx) => {
    if (claim) {
      const claimed = await claimIdempotencyKey(trx, principal, claim.key, claim.hash, prepared.payment.id, now);
      if (claimed.kind === 'replay') return replay(trx, ctx, claimed.paymentId, now);
    }
    const attached = await attachToStoreOrder(trx, principal, prepared, now);
    const row = attached ?? { ...prepared.payment, customer_id: (await insertPaymentWithOrder(trx, principal, { ...prepared, order: prepared.orderFields, now })).customerId };
    await linkStore(trx, body, row);
    return row;
  });
  // Linking the store's customer id is a second write: that session goes in a transaction.
  if (body.order?.customer_id) return inTransaction();
  try {
    const { customerId } = await insertPaymentWithOrder(ctx.db, principal, { ...prepared, order: prepared.orderFields, now, idempotency: claim });
    return { ...prepared.payment, customer_id: customerId };
  } catch (error) {
    // The key is taken (a replay, a concurrent twin, or a key past its 24 hours), or the store
    // order exists (a second try): decide under the transaction's locks.
    if (isUniqueViolation(error, 'idempotency_keys_pkey') || isUniqueViolation(error, 'orders_store_order')) return inTransaction();
    throw error;
  }
}

async function replay(db: Db, ctx: OperationContext, paymentId: string, now: Date): Promise<Answer<CheckoutSessionOut>> {
  const row = await getPayment(db, ctx.principal, paymentId, 'checkout session');
  return new Answer(toCheckoutSessionOut(row, ctx.config.baseUrl, now), 200);
}

/**
 * Creates a checkout session (spec 4.5) for a store order or a plain amount. With an
 * Idempotency-Key, a repeat with the same body answers 200 with the same session (spec 4.6).
 */
/** The price of the session: its own, or that of the checkout it sells (a fixed price, or the plan a buyer chose on a pricing table). */
async function settlePrice(ctx: OperationContext, input: SessionInput, plan: ChosenPlan | undefined): Promise<SessionBody> {
  if (input.checkout_id === undefined) {
    return { ...input, amount: input.amount ?? (input.order ? orderTotal(input.order) : null) ?? 0, currency: input.currency ?? 'USD', checkout: null };
  }
  const checkout = await findCheckout(ctx.db, ctx.principal, input.checkout_id);
  if (!checkout) throw new ApiError('invalid_checkout', `No checkout with id '${input.checkout_id}' exists in this mode.`, 'checkout_id');
  if (!checkout.active) throw new ApiError('checkout_inactive', 'This checkout was deleted and takes no new buyers.', 'checkout_id');
  if (input.amount !== undefined && input.amount !== checkout.amount_minor) {
    throw new ApiError('invalid_amount', `A checkout has a fixed price: ${formatAmount(checkout.amount_minor)} ${checkout.currency}.`, 'amount');
  }
  if (input.currency !== undefined && input.currency !== checkout.currency) {
    throw new ApiError('invalid_currency', `This checkout is priced in ${checkout.currency}.`, 'currency');
  }
  if (plan && checkout.kind === 'pricing_table') return { ...input, amount: plan.amount_minor, currency: checkout.currency as Currency, checkout, plan };
  return { ...input, amount: checkout.amount_minor, currency: checkout.currency as Currency, checkout };
}

/** What a session created over the API would ask (a connected agent's spend policy counts it): its price, as the session would settle it. */
export async function sessionSpend(ctx: OperationContext, input: CreateCheckoutSessionInput): Promise<Spend> {
  const { amount, currency } = await settlePrice(ctx, input, undefined);
  return { currency, amountMinor: amount };
}

/** Whether the session create repeats an earlier one with the same Idempotency-Key and body (it then creates nothing). */
export async function sessionReplays(ctx: OperationContext, input: CreateCheckoutSessionInput): Promise<boolean> {
  const { idempotency_key: key, ...rest } = input;
  return key !== undefined && isReplay(ctx.db, ctx.principal, key, requestHash(rest), ctx.clock.now());
}

/** `plan`: a pricing table's buyer chose it on the payer page (the API takes no plan: its sessions pay the checkout's price). */
export async function createCheckoutSession(ctx: OperationContext, input: CreateCheckoutSessionInput, plan?: ChosenPlan): Promise<CheckoutSessionOut | Answer<CheckoutSessionOut>> {
  const { principal } = ctx;
  requireHttpsInLive(principal.livemode, input.success_url, 'success_url');
  assertRoutingServable(principal.livemode, input.routing ?? undefined, ctx.config.providers);
  assertCanTakePayments(principal, input.checkout_id === undefined ? undefined : 'checkouts');
  const now = ctx.clock.now();
  const { idempotency_key: key, ...rest } = input;
  const body = await settlePrice(ctx, rest, plan);
  const written = await writeSession(ctx, body, key === undefined ? null : { key, hash: requestHash(rest) }, now);
  return written instanceof Answer ? written : toCheckoutSessionOut(written, ctx.config.baseUrl, now);
}
