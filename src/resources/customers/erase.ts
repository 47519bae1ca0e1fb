import { recordActivity } from '../../audit/activity.ts';
import type { Principal } from '../../auth/principal.ts';
import { defineAction } from '../../verbs/action.ts';
import { idInput } from '../shared/ids.ts';
import { getCustomerRecord } from './queries.ts';
import type { Db } from '../../db/database.ts';
import type { OrderItem } from '../../db/schema.ts';

// Deleting a customer's details (spec 2.3 rule 7), irreversible: name, email, phone and
// addresses leave the customer, its orders and payments (also payments made with the email on
// an order that later moved to another buyer), and the stored webhook bodies, so a resend
// carries null. Ids, amounts and payments stay; the email is no longer on file.
//
// The detail fields are nulled. Free text the merchant wrote (descriptions, references,
// metadata, item names) keeps its words but loses the email, and the name and phone where they
// stand as whole words; ids, types, states and amounts are never touched.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const ERASED = '[erased]';

/** Replaces each personal detail in free text with [erased]. */
export function scrubber(details: { email: string | null; name: string | null; phone: string | null }): (text: string) => string {
  const patterns: RegExp[] = [];
  if (details.email) patterns.push(new RegExp(escapeRegExp(details.email), 'gi'));
  for (const [value, minimum] of [[details.name, 4], [details.phone, 6]] as const) {
    if (value && value.trim().length >= minimum) patterns.push(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(value.trim())}(?![\\p{L}\\p{N}])`, 'giu'));
  }
  return (text) => patterns.reduce((out, pattern) => out.replace(pattern, ERASED), text);
}

/** A value that was nothing but a detail becomes null; one that mentioned it keeps the rest. */
function scrubValues(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') {
    const scrubbed = scrub(value);
    return scrubbed === ERASED ? null : scrubbed;
  }
  if (Array.isArray(value)) return value.map((item) => scrubValues(item, scrub));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubValues(item, scrub)]));
  return value;
}

const scrubItems = (items: OrderItem[], scrub: (text: string) => string): OrderItem[] =>
  items.map((item) => ({ ...item, name: scrub(item.name), variant: item.variant === null ? null : scrub(item.variant) }));

/** The event body with the customer's details replaced by null and scrubbed from free text. */
export function eraseFromEventBody(body: string, customerId: string, paymentIds: ReadonlySet<string>, scrub: (text: string) => string): string {
  const event = JSON.parse(body) as Json;
  const data = isObject(event.data) ? event.data : {};
  const { customer, order, payment } = data;
  if (isObject(customer) && customer.id === customerId) {
    Object.assign(customer, { email: null, name: null, phone: null, location: null, shipTo: null, billTo: null, erased: true });
  }
  if (isObject(order)) {
    if (isObject(order.customer) && order.customer.id === customerId) {
      Object.assign(order.customer, { email: null, name: null, erased: true });
      Object.assign(order, { shipTo: null, billTo: null });
    }
    if (typeof order.summary === 'string') order.summary = scrub(order.summary);
    if (Array.isArray(order.items)) order.items = order.items.map((item) => isObject(item) ? scrubValues(item, scrub) : item);
  }
  if (isObject(payment)) {
    if (paymentIds.has(String(payment.id))) Object.assign(payment, { customerEmail: null, customerName: null });
    for (const field of ['description', 'reference', 'memo']) if (typeof payment[field] === 'string') payment[field] = scrub(payment[field]);
    if (isObject(payment.metadata)) payment.metadata = scrubValues(payment.metadata, scrub);
  }
  return JSON.stringify(event);
}

/** Erases a customer of the caller's business and mode; returns how many orders, payments and stored events it touched. */
export const eraseCustomer = defineAction({
  name: 'erase_customer',
  title: 'Erase a customer\'s details (irreversible)',
  role: 'developer',
  modeScoped: true,
  effect: 'withdraws',
  input: idInput('cus'),
  run: (ctx, input) => erase(ctx.db, ctx.principal, input.id, ctx.clock.now()),
});

async function erase(db: Db, principal: Principal, customerId: string, now: Date): Promise<{ id: string; erased: true; orders: number; payments: number; events: number }> {
  return db.transaction().execute(async (trx: Db) => {
    // Locks in the order payment changes take them (payment, order, customer), so an erasure and
    // a payment never wait on each other crosswise; the customer is read first, locked last.
    const customer = await getCustomerRecord(trx, principal, customerId);
    const scrub = scrubber(customer);
    const orderIds = (await trx.selectFrom('orders').select('id').where('customer_id', '=', customerId).execute()).map((order) => order.id);

    const payments = await trx.selectFrom('payments').select(['id', 'order_id', 'description', 'reference', 'memo', 'metadata'])
      .where((eb) => eb.or([
        ...(orderIds.length > 0 ? [eb('order_id', 'in', orderIds)] : []),
        ...(customer.email === null ? [] : [eb.and([
          eb('business_id', '=', customer.business_id), eb('livemode', '=', customer.livemode), eb('customer_email', '=', customer.email),
        ])]),
      ]))
      .orderBy('id').forUpdate().execute();
    for (const payment of payments) {
      await trx.updateTable('payments').set({
        customer_email: null,
        customer_name: null,
        description: scrub(payment.description),
        reference: payment.reference === null ? null : scrub(payment.reference),
        memo: payment.memo === null ? null : scrub(payment.memo),
        metadata: payment.metadata === null ? null : JSON.stringify(scrubValues(payment.metadata, scrub)),
      }).where('id', '=', payment.id).execute();
    }
    const touchedOrders = [...new Set([...orderIds, ...payments.map((p) => p.order_id).filter((id): id is string => id !== null)])];
    const orders = touchedOrders.length === 0 ? [] : await trx.selectFrom('orders').select(['id', 'customer_id', 'items'])
      .where('id', 'in', touchedOrders).orderBy('id').forUpdate().execute();
    for (const order of orders) {
      const own = order.customer_id === customerId;
      await trx.updateTable('orders').set({
        items: JSON.stringify(scrubItems(order.items, scrub)),
        ...(own ? { customer_name: null, customer_phone: null, ship_to: null, bill_to: null } : {}),
      }).where('id', '=', order.id).execute();
    }
    await trx.selectFrom('customers').select('id').where('id', '=', customer.id).forUpdate().execute();
    await trx.updateTable('customers')
      .set({ email: null, name: null, phone: null, shipping_address: null, billing_address: null, erased: true })
      .where('id', '=', customer.id).execute();
    // The merchant's private note goes too: it may hold the same details.
    await trx.deleteFrom('customer_notes').where('customer_id', '=', customer.id).execute();

    const paymentIds = new Set(payments.map((payment) => payment.id));
    const events = await trx.selectFrom('events').select(['id', 'body']).where((eb) => eb.or([
      eb('customer_id', '=', customerId),
      ...(touchedOrders.length > 0 ? [eb('order_id', 'in', touchedOrders)] : []),
      ...(paymentIds.size > 0 ? [eb('payment_id', 'in', [...paymentIds])] : []),
    ])).execute();
    for (const event of events) {
      await trx.updateTable('events').set({ body: eraseFromEventBody(event.body, customerId, paymentIds, scrub) }).where('id', '=', event.id).execute();
    }
    const counts = { orders: orderIds.length, payments: paymentIds.size, events: events.length };
    await recordActivity(trx, principal, 'customer.erased', customer.id, counts, now);
    return { id: customer.id, erased: true as const, ...counts };
  });
}
