import { RefusedError } from '../../core/errors.ts';
import { sql } from 'kysely';
import type { AppContext } from '../../core/context.ts';
import type { Db } from '../../db/database.ts';

// Deleting a customer's details (spec 2.3 rule 7), irreversible: name, email, phone and
// addresses leave the customer, its orders and payments (also payments made with the email on
// an order that later moved to another customer), and the stored webhook bodies, so a resend
// carries null. Ids, amounts and payments stay; the email is no longer on file.

export class ErasureError extends RefusedError {}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every string anywhere in `value` that contains one of `needles` (case-insensitive) becomes null. */
function scrub(value: unknown, needles: readonly string[]): unknown {
  if (typeof value === 'string') return needles.some((needle) => value.toLowerCase().includes(needle)) ? null : value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, needles));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrub(item, needles)]));
  return value;
}

/** The event body with the customer's details replaced by null. */
export function eraseFromEventBody(body: string, customerId: string, paymentIds: ReadonlySet<string>, needles: readonly string[]): string {
  const event = JSON.parse(body) as Json;
  const data = isObject(event.data) ? event.data : {};
  const { customer, order, payment } = data;
  if (isObject(customer) && customer.id === customerId) {
    Object.assign(customer, { email: null, name: null, phone: null, location: null, shipTo: null, billTo: null, erased: true });
  }
  if (isObject(order) && isObject(order.customer) && order.customer.id === customerId) {
    Object.assign(order.customer, { email: null, name: null, erased: true });
    Object.assign(order, { shipTo: null, billTo: null });
  }
  if (isObject(payment) && paymentIds.has(String(payment.id))) Object.assign(payment, { customerEmail: null, customerName: null });
  return JSON.stringify(scrub(event, needles));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function eraseCustomer(ctx: Pick<AppContext, 'db' | 'clock'>, customerId: string): Promise<{ orders: number; payments: number; events: number }> {
  return ctx.db.transaction().execute(async (trx: Db) => {
    const customer = await trx.selectFrom('customers').select(['id', 'business_id', 'livemode', 'email', 'name', 'phone'])
      .where('id', '=', customerId).forUpdate().executeTakeFirst();
    if (!customer) throw new ErasureError(`No customer ${customerId}.`);
    const { email } = customer;
    // The strings that must not survive anywhere: the email, and the name and phone as given.
    const needles = [email, customer.name, customer.phone].filter((text): text is string => !!text && text.length >= 3).map((text) => text.toLowerCase());

    await trx.updateTable('customers')
      .set({ email: null, name: null, phone: null, shipping_address: null, billing_address: null, erased: true })
      .where('id', '=', customerId).execute();
    const orders = await trx.updateTable('orders')
      .set({ customer_name: null, customer_phone: null, ship_to: null, bill_to: null })
      .where('customer_id', '=', customerId).returning('id').execute();
    const orderIds = orders.map((order) => order.id);

    const payments = await trx.updateTable('payments')
      .set({
        customer_email: null,
        customer_name: null,
        reference: email === null ? sql`reference` : sql`CASE WHEN reference ILIKE ${`%${email}%`} THEN NULL ELSE reference END`,
        description: email === null ? sql`description` : sql`regexp_replace(description, ${escapeRegExp(email)}, '[erased]', 'gi')`,
        // Merchant metadata that carries the email loses those values too.
        metadata: email === null ? sql`metadata` : sql`(
          SELECT jsonb_object_agg(key, CASE WHEN value::text ILIKE ${`%${email}%`} THEN 'null'::jsonb ELSE value END)
          FROM jsonb_each(metadata))`,
      })
      .where((eb) => eb.or([
        ...(orderIds.length > 0 ? [eb('order_id', 'in', orderIds)] : []),
        ...(email === null ? [] : [eb.and([
          eb('business_id', '=', customer.business_id), eb('livemode', '=', customer.livemode), eb('customer_email', '=', email),
        ])]),
      ]))
      .returning('id').execute();
    const paymentIds = new Set(payments.map((payment) => payment.id));

    const events = await trx.selectFrom('events').select(['id', 'body']).where((eb) => eb.or([
      eb('customer_id', '=', customerId),
      ...(orderIds.length > 0 ? [eb('order_id', 'in', orderIds)] : []),
      ...(paymentIds.size > 0 ? [eb('payment_id', 'in', [...paymentIds])] : []),
    ])).execute();
    for (const event of events) {
      await trx.updateTable('events').set({ body: eraseFromEventBody(event.body, customerId, paymentIds, needles) }).where('id', '=', event.id).execute();
    }
    return { orders: orderIds.length, payments: paymentIds.size, events: events.length };
  });
}
