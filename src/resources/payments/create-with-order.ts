import { sql, type Insertable } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { OrdersTable, PaymentRow, PaymentsTable } from '../../db/schema.ts';
import { fieldsOf, insertedColumns, template } from '../../db/template.ts';
import { customerValues, upsertCustomerValues, type CustomerDetails, type CustomerValues } from '../customers/record.ts';
import { allocateOrderNumber, newOrder, type OrderFields } from '../orders/insert.ts';
import { paymentValues } from './insert.ts';

/** What changes the statement's SQL: whether there is a key to claim, and which columns of the customer (if any), order and payment are written. */
interface InsertShape {
  claim: boolean;
  customer: readonly string[] | null;
  order: readonly string[];
  payment: readonly string[];
}

type Args = Record<string, unknown>;

const insertStatement = template((db: Db, a: Args, shape: InsertShape) => db
  .with('claim', (qc) => shape.claim
    ? qc.insertInto('idempotency_keys').values({
        business_id: a.business_id as string, livemode: a.livemode as boolean, key: a.claim_key as string,
        request_hash: a.claim_hash as Buffer, payment_id: a.payment_id as string, created_at: a.now as Date,
      }).returning('key')
    : qc.selectFrom('idempotency_keys').select('key').where(sql<boolean>`false`))
  .with('number', (qc) => allocateOrderNumber(qc, { businessId: a.business_id as string, livemode: a.livemode as boolean }))
  .with('customer', (qc) => shape.customer
    ? upsertCustomerValues(qc, fieldsOf(a.customer, shape.customer) as CustomerValues).returning('id')
    : qc.selectFrom('customers').select('id').where(sql<boolean>`false`))
  .with('new_order', (qc) => qc
    .insertInto('orders')
    .values({
      ...(fieldsOf(a.order, shape.order) as Insertable<OrdersTable>),
      number: (eb) => eb.selectFrom('number').select('last_number'),
      customer_id: (eb) => eb.selectFrom('customer').select('id'),
    }))
  .insertInto('payments')
  .values(fieldsOf(a.payment, shape.payment) as Insertable<PaymentsTable>)
  .returning((eb) => eb.selectFrom('customer').select('id').as('customer_id')),
(shape) => `${shape.claim}|${shape.customer?.join(',') ?? '-'}|${shape.order.join(',')}|${shape.payment.join(',')}`);

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
  const values = paymentValues(payment);
  const customerRow = customer ? customerValues(principal, customer, now) : null;
  const args: Args = {
    business_id: principal.businessId, livemode: principal.livemode, payment_id: payment.id, now,
    claim_key: idempotency?.key ?? null, claim_hash: idempotency?.hash ?? null,
    order, payment: values, customer: customerRow,
  };
  const shape = { claim: Boolean(idempotency), customer: customerRow && insertedColumns(customerRow), order: insertedColumns(order), payment: insertedColumns(values) };
  const [row] = await insertStatement(db, args, shape);
  if (!row) throw new Error('Inserting the payment returned no row.');
  return { customerId: row.customer_id };
}
