import { RefusedError } from '../../core/errors.ts';
import { sql } from 'kysely';
import type { AppContext } from '../../core/context.ts';
import type { Db } from '../../db/database.ts';

// Deleting a customer's details (spec 2.3 rule 7), irreversible: name, email, phone and
// addresses leave the customer, its orders and payments, and the stored webhook bodies (so a
// resend carries null). Ids, amounts and payments stay; the email is no longer on file.

export class ErasureError extends RefusedError {}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The event body with the customer's details replaced by null. */
export function eraseFromEventBody(body: string, customerId: string, paymentIds: ReadonlySet<string>): string {
  const event = JSON.parse(body) as Json;
  const data = isObject(event.data) ? event.data : {};
  const { customer, order, payment } = data;
  if (isObject(customer) && customer.id === customerId) {
    Object.assign(customer, { email: null, name: null, phone: null, location: null, shipTo: null, billTo: null, erased: true });
  }
  if (isObject(order)) {
    if (isObject(order.customer) && order.customer.id === customerId) Object.assign(order.customer, { email: null, name: null, erased: true });
    Object.assign(order, { shipTo: null, billTo: null });
  }
  if (isObject(payment) && paymentIds.has(String(payment.id))) Object.assign(payment, { customerEmail: null, customerName: null });
  return JSON.stringify(event);
}

export async function eraseCustomer(ctx: Pick<AppContext, 'db' | 'clock'>, customerId: string): Promise<{ orders: number; payments: number; events: number }> {
  return ctx.db.transaction().execute(async (trx: Db) => {
    const customer = await trx.selectFrom('customers').select(['id', 'email', 'erased']).where('id', '=', customerId).forUpdate().executeTakeFirst();
    if (!customer) throw new ErasureError(`No customer ${customerId}.`);
    const email = customer.email;
    await trx.updateTable('customers')
      .set({ email: null, name: null, phone: null, shipping_address: null, billing_address: null, erased: true })
      .where('id', '=', customerId).execute();
    const orders = await trx.updateTable('orders')
      .set({ customer_name: null, customer_phone: null, ship_to: null, bill_to: null })
      .where('customer_id', '=', customerId).returning('id').execute();
    const orderIds = orders.map((order) => order.id);
    const payments = orderIds.length === 0 ? [] : await trx.updateTable('payments')
      .set({
        customer_email: null,
        customer_name: null,
        // Merchant metadata that carries the email loses those values too.
        metadata: email === null ? sql`metadata` : sql`(
          SELECT jsonb_object_agg(key, CASE WHEN value::text ILIKE ${`%${email}%`} THEN 'null'::jsonb ELSE value END)
          FROM jsonb_each(metadata))`,
      })
      .where('order_id', 'in', orderIds).returning('id').execute();
    const paymentIds = new Set(payments.map((payment) => payment.id));
    let query = trx.selectFrom('events').select(['id', 'body']).where('customer_id', '=', customerId);
    if (orderIds.length > 0) query = trx.selectFrom('events').select(['id', 'body']).where((eb) => eb.or([eb('customer_id', '=', customerId), eb('order_id', 'in', orderIds)]));
    const events = await query.execute();
    for (const event of events) {
      await trx.updateTable('events').set({ body: eraseFromEventBody(event.body, customerId, paymentIds) }).where('id', '=', event.id).execute();
    }
    return { orders: orderIds.length, payments: paymentIds.size, events: events.length };
  });
}
