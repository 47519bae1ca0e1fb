import { sql } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { upsertCustomer, type CustomerDetails } from '../customers/record.ts';
import { allocateOrderNumber, newOrder, type OrderFields } from '../orders/insert.ts';
import { paymentValues } from './insert.ts';

/**
 * Writes a new payment with its new order (and the order's customer, found or created by
 * email, and an Idempotency-Key's claim) in one SQL statement: atomic without a transaction's
 * extra round trips, and the order-number row is locked only for its duration.
 */
export async function insertPaymentWithOrder(db: Db, principal: Principal, input: {
  payment: PaymentRow;
  order: OrderFields;
  customer: CustomerDetails | null;
  now: Date;
  /** An Idempotency-Key to claim in the same statement (a taken key fails it: idempotency_keys_pkey). */
  idempotency?: { key: string; hash: Buffer } | null;
}): Promise<{ customerId: string | null }> {
  const { payment, customer, now, idempotency } = input;
  if (payment.order_id === null) throw new Error('A payment created with its order needs the order id.');
  const order = newOrder(principal, payment.order_id, input.order, now);
  const row = await db
    .with('claim', (qc) => idempotency
      ? qc.insertInto('idempotency_keys').values({
          business_id: principal.businessId, livemode: principal.livemode, key: idempotency.key,
          request_hash: idempotency.hash, payment_id: payment.id, created_at: now,
        }).returning('key')
      : qc.selectFrom('idempotency_keys').select('key').where(sql<boolean>`false`))
    .with('number', (qc) => allocateOrderNumber(qc, principal))
    .with('customer', (qc) => customer
      ? upsertCustomer(qc, principal, customer, now).returning('id')
      : qc.selectFrom('customers').select('id').where(sql<boolean>`false`))
    .with('new_order', (qc) => qc
      .insertInto('orders')
      .values({
        ...order,
        number: (eb) => eb.selectFrom('number').select('last_number'),
        customer_id: (eb) => eb.selectFrom('customer').select('id'),
      }))
    .insertInto('payments')
    .values(paymentValues(payment))
    .returning((eb) => eb.selectFrom('customer').select('id').as('customer_id'))
    .executeTakeFirstOrThrow();
  return { customerId: row.customer_id };
}
