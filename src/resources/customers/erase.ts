import { sql, type RawBuilder } from 'kysely';
import { recordActivity } from '../../audit/activity.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { StoredAddress } from '../../db/schema.ts';
import { defineAction } from '../../verbs/action.ts';
import { idInput } from '../shared/ids.ts';
import { columnsOf, CUSTOMER_DATA_COLUMNS, type CustomerDataTable, type Treatment } from './erasure-columns.ts';
import { getCustomerRecord } from './queries.ts';
import { eraseFromEventBody, scrubber, scrubMetadata, scrubStrings, truncatedScrubber, type Details, type Scrub } from './scrub.ts';

// Deleting a customer's details (spec 2.3 rule 7), irreversible and in one transaction: the
// customer, its orders and payments (also payments made with the email on an order that later
// moved to another buyer), the stored webhook bodies (so a resend carries none of it), what
// endpoints answered to them, the activity and timeline of those objects, the mail about those
// payments, and the keys and note that name it. erasure-columns.ts says what happens to each column; scrub.ts how a value changes.
//
// Each table is read once and written back in one statement, only the rows that changed, so a
// customer with many orders costs a few statements, not a few per order.

type Row = Record<string, unknown>;

const JSONB: ReadonlySet<Treatment> = new Set(['address', 'json', 'metadata']);

/** The rows of `table` that `where` picks, with their key and the columns the erasure may rewrite; locked when asked. */
async function readRows(trx: Db, table: CustomerDataTable, key: string, columns: readonly string[], where: RawBuilder<boolean>, lock = false): Promise<Row[]> {
  const { rows } = await sql<Row>`
    SELECT ${sql.join([key, ...columns].map((column) => sql.ref(column)))} FROM ${sql.table(table)}
    WHERE ${where} ORDER BY ${sql.ref(key)} ${lock ? sql`FOR UPDATE` : sql``}`.execute(trx);
  return rows;
}

/** Writes back, in one statement, the rows whose columns `rewrite` changed (or all of them, `always`); returns how many. */
async function writeBack(trx: Db, table: CustomerDataTable, key: { name: string; type: 'text' | 'bigint' }, columns: readonly string[], rows: readonly Row[], rewrite: (row: Row) => Row, always = false): Promise<number> {
  const changed = rows.map((row) => ({ ...row, ...rewrite(row) })).filter((row, index) => always || JSON.stringify(row) !== JSON.stringify(rows[index]));
  if (changed.length === 0 || columns.length === 0) return changed.length;
  const treatments = CUSTOMER_DATA_COLUMNS[table] as Record<string, Treatment>;
  const value = (column: string) => (JSONB.has(treatments[column]!) ? sql`nullif(x.v -> ${column}, 'null'::jsonb)` : sql`x.v ->> ${column}`);
  await sql`
    UPDATE ${sql.table(table)} AS t SET ${sql.join(columns.map((column) => sql`${sql.ref(column)} = ${value(column)}`))}
    FROM jsonb_array_elements(${JSON.stringify(changed)}::jsonb) AS x(v)
    WHERE ${sql.ref(`t.${key.name}`)} = (x.v ->> ${key.name})::${sql.raw(key.type)}`.execute(trx);
  return changed.length;
}

/** A column list as SQL: `column = ANY($1)`, one parameter for any number of values. */
const anyOf = (column: string, values: readonly string[]) => sql<boolean>`${sql.ref(column)} = ANY(${[...values]}::text[])`;

const addressNames = (...addresses: unknown[]) => addresses.map((address) => (address as StoredAddress | null)?.name ?? null);

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
    const tenant = sql<boolean>`business_id = ${customer.business_id} AND livemode = ${customer.livemode}`;
    const ownOrderIds = (await trx.selectFrom('orders').select('id').where('customer_id', '=', customerId).execute()).map((order) => order.id);

    const paymentColumns = columnsOf('payments', 'detail', 'text', 'metadata');
    const payments = await readRows(trx, 'payments', 'id', ['order_id', ...paymentColumns], sql`${tenant} AND (${anyOf('order_id', ownOrderIds)}
      OR ${customer.email === null ? sql`false` : sql`customer_email = ${customer.email}`})`, true);
    const paymentIds = payments.map((payment) => payment.id as string);
    const orderIds = [...new Set([...ownOrderIds, ...payments.map((payment) => payment.order_id as string | null).filter((id) => id !== null)])];
    const orderColumns = columnsOf('orders', 'detail', 'address', 'text', 'json');
    const orders = await readRows(trx, 'orders', 'id', ['customer_id', ...orderColumns], sql`${tenant} AND ${anyOf('id', orderIds)}`, true);
    await trx.selectFrom('customers').select('id').where('id', '=', customer.id).forUpdate().execute();

    // Every form the details took: the customer's, and what its orders and payments were given.
    const own = orders.filter((order) => order.customer_id === customerId);
    const details: Details = {
      emails: [customer.email, ...payments.map((payment) => payment.customer_email as string | null)],
      names: [customer.name, ...addressNames(customer.shipping_address, customer.billing_address), ...payments.map((payment) => payment.customer_name as string | null),
        ...own.flatMap((order) => [order.customer_name as string | null, ...addressNames(order.ship_to, order.bill_to)])],
      phones: [customer.phone, ...own.map((order) => order.customer_phone as string | null)],
    };
    const scrub = scrubber(details);
    const rewriter = (table: CustomerDataTable, isOwn: (row: Row) => boolean = () => true) => (row: Row): Row => {
      const treatments = CUSTOMER_DATA_COLUMNS[table] as Record<string, Treatment>;
      return Object.fromEntries(Object.entries(row).filter(([column]) => column in treatments).map(([column, value]) => {
        switch (treatments[column]) {
          case 'detail': case 'address': return [column, isOwn(row) ? null : value];
          case 'text': return [column, typeof value === 'string' ? scrub(value) : value];
          case 'json': return [column, scrubStrings(value, scrub)];
          case 'metadata': return [column, scrubMetadata(value, scrub)];
          default: return [column, value];
        }
      }));
    };

    // Every payment is written, changed or not: a start that read one before the erasure applies
    // only to the row version it read (machine.ts), so it cannot then send the details it read.
    await writeBack(trx, 'payments', { name: 'id', type: 'text' }, paymentColumns, payments, rewriter('payments'), true);
    await writeBack(trx, 'orders', { name: 'id', type: 'text' }, orderColumns, orders, rewriter('orders', (order) => order.customer_id === customerId));
    await trx.updateTable('customers')
      .set({ email: null, name: null, phone: null, shipping_address: null, billing_address: null, erased: true,
        store_accounts: JSON.stringify(scrubStrings(customer.store_accounts, scrub)) })
      .where('id', '=', customer.id).execute();
    // The merchant's private note goes too: it may hold the same details.
    await trx.deleteFrom('customer_notes').where('customer_id', '=', customer.id).execute();

    // Every event about the customer or one of those payments (an order's events are its payments').
    const events = await readRows(trx, 'events', 'id', ['body'], sql`${tenant} AND (customer_id = ${customerId} OR ${anyOf('payment_id', paymentIds)})`);
    const touched = new Set(paymentIds);
    await writeBack(trx, 'events', { name: 'id', type: 'text' }, ['body'], events,
      (event) => ({ body: eraseFromEventBody(event.body as string, customerId, touched, scrub) }));
    // Their deliveries count the erasure: an attempt in flight sent the body as it was, and its
    // recording, waiting on these rows until this commits, then keeps no excerpt (deliveries.ts);
    // one recorded before is among those read next.
    const eventIds = events.map((event) => event.id as string);
    await trx.updateTable('webhook_deliveries').set((eb) => ({ erasures: eb('erasures', '+', 1) })).where(anyOf('event_id', eventIds)).execute();
    // What endpoints answered to those events: a receiver that echoes the request echoed the
    // details, and the excerpt is cut at 1 KiB, maybe inside one.
    const excerpt = truncatedScrubber(details);
    const attempts = await readRows(trx, 'webhook_delivery_attempts', 'id', ['response_excerpt'], sql`response_excerpt IS NOT NULL
      AND delivery_id IN (SELECT id FROM webhook_deliveries WHERE ${anyOf('event_id', eventIds)})`);
    await writeBack(trx, 'webhook_delivery_attempts', { name: 'id', type: 'bigint' }, ['response_excerpt'], attempts,
      (attempt) => ({ response_excerpt: excerpt(attempt.response_excerpt as string) }));

    const activity = await readRows(trx, 'activity', 'id', ['details'], sql`${tenant} AND ${anyOf('subject_id', [customerId, ...orderIds, ...paymentIds])}`);
    await writeBack(trx, 'activity', { name: 'id', type: 'bigint' }, ['details'], activity, rewriter('activity'));
    // What agents asked people to approve may name the customer (a checkout session's customer): its arguments are scrubbed as free text.
    const approvals = await readRows(trx, 'agent_approvals', 'id', ['arguments'], tenant);
    await writeBack(trx, 'agent_approvals', { name: 'id', type: 'text' }, ['arguments'], approvals, rewriter('agent_approvals'));
    const timeline = await readRows(trx, 'order_timeline', 'id', ['reason'], anyOf('order_id', orderIds));
    await writeBack(trx, 'order_timeline', { name: 'id', type: 'bigint' }, ['reason'], timeline, rewriter('order_timeline'));
    // An Idempotency-Key that names the customer cannot be rewritten and still match a retry: it goes.
    const keys = await readRows(trx, 'idempotency_keys', 'key', [], sql`${tenant} AND ${anyOf('payment_id', paymentIds)}`);
    const namingKeys = keys.map((row) => row.key as string).filter((key) => scrub(key) !== key);
    if (namingKeys.length > 0) await trx.deleteFrom('idempotency_keys').where(tenant).where(anyOf('key', namingKeys)).execute();

    // Mail about those payments (a receipt, a held notice) names the buyer: it goes, sent or not.
    await trx.deleteFrom('outbox').where(anyOf('payment_id', paymentIds)).execute();

    const counts = { orders: ownOrderIds.length, payments: paymentIds.length, events: events.length };
    await recordActivity(trx, principal, 'customer.erased', customer.id, counts, now);
    return { id: customer.id, erased: true as const, ...counts };
  });
}
