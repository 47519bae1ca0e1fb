import { sql } from 'kysely';
import { openSession, sessionCookieName } from '../src/auth/sessions.ts';
import { DAY, HOUR } from '../src/core/clock.ts';
import type { Db } from '../src/db/database.ts';
import { benchShop } from './cluster.ts';
import type { BenchEnv } from './scenarios.ts';

// A business with many payments, written as the service writes them: a few payments are made
// through the API (a checkout session with its order and customer, started, then paid or
// expired, each with its events), and each is copied by set-based SQL with its own ids, times,
// order number, customer, deposit address, transaction and tracking token, its events' bodies
// rewritten to name them. Payments are spread evenly over a year, oldest first; a customer has
// four orders; the events of the last 30 days (and one hour more, which the next retention run
// forgets) have a delivery to the business's endpoint with its attempt, as the log keeps them;
// sessions of the last 25 hours kept their Idempotency-Key (the last hour's are due to go).

export interface FilledBusiness {
  id: string;
  rows: number;
  /** A Test key's Authorization header. */
  auth: Record<string, string>;
  /** The dashboard's list of Test payments and its owner's session cookie. */
  dashboardPath: string;
  cookie: string;
  /** A payment 90% of the way down the list (the cursor of a deep page). */
  deep: string;
  /** A started (open) payment, copied to make payments due for the expiry sweep. */
  openTemplate: string;
  /** Seconds the fill took. */
  fillSeconds: number;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SPREAD_MS = 365 * DAY;
/** Rows copied per statement: progress to print, and no statement holding the table for minutes. */
const CHUNK = 100_000;
/** Of each hundred payments, this many are paid; the rest expired. */
const PAID_PERCENT = 85;
const ORDERS_PER_CUSTOMER = 4;

type Call = (method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>;

function caller(env: BenchEnv, auth: Record<string, string>): Call {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${env.serviceUrl}${path}`, {
      method, headers: { ...auth, ...(body === undefined ? {} : JSON_HEADERS), ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

/** A checkout session with an order of two items for a buyer, started: its payment id. */
async function startedSession(call: Call, key: string): Promise<string> {
  const session = await call('POST', '/v1/checkout_sessions', {
    currency: 'USD', customer_email: `template-${key}@scale.bench.example`, reference: `order-${key}`,
    order: { id: `store-${key}`, items: [{ name: 'Coffee beans', quantity: 2, unit_amount: '18.00', amount: '36.00' }, { name: 'Filter papers', quantity: 1, unit_amount: '6.50', amount: '6.50' }], total: '42.50' },
  }, { 'idempotency-key': `scale-${key}` });
  await call('POST', `/v1/checkout_sessions/${session.id}/start`, {});
  return session.id as string;
}

/** The columns a copy writes (identity columns always generated are left to PostgreSQL). */
async function columnsOf(db: Db, table: string): Promise<Array<{ name: string; time: boolean }>> {
  const { rows } = await sql<{ column_name: string; data_type: string }>`
    SELECT column_name, data_type FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} AND is_generated = 'NEVER' AND (identity_generation IS NULL OR identity_generation = 'BY DEFAULT')
    ORDER BY ordinal_position`.execute(db);
  return rows.map((row) => ({ name: row.column_name, time: row.data_type === 'timestamp with time zone' }));
}

/**
 * INSERT … SELECT of `table` copying template rows `t` for each row `s` of `from`: a column in
 * `set` takes that expression, a time column moves by `s.shift`, any other is copied.
 */
async function copyRows(db: Db, table: string, from: string, set: Record<string, string>): Promise<number> {
  const columns = await columnsOf(db, table);
  const values = columns.map(({ name, time }) => set[name] ?? (time ? `t."${name}" + s.shift` : `t."${name}"`));
  const result = await sql.raw(`INSERT INTO ${table} (${columns.map(({ name }) => `"${name}"`).join(', ')}) SELECT ${values.join(', ')} FROM ${from}`).execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** SQL for an id of `prefix` made from `seed` and a number: the same in every statement of the fill. */
const idOf = (prefix: string, seed: string, number: string) => `'${prefix}_' || substr(md5('${seed}' || (${number})::text), 1, 24)`;
const hexOf = (seed: string, number: string, length: number) => `substr(md5('${seed}a' || (${number})::text) || md5('${seed}b' || (${number})::text), 1, ${length})`;

/** SQL for a time `ms` (milliseconds since 1970) to the millisecond, as the service's clock writes them. */
const msTime = (ms: string) => `date_trunc('milliseconds', to_timestamp((${ms}) / 1000.0))`;
/** SQL for how far a copy's times moved, in milliseconds (the events' bodies write times so). */
const shiftMs = '(extract(epoch FROM s.shift) * 1000)::bigint';

interface CopyNames {
  /** SQL for the copy's order number. */
  number: string;
  /** SQL for the copy's customer id and email (default: the template's). */
  customer?: string;
  email?: string;
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * SQL that writes `body` with every occurrence of a name's text replaced by that name's SQL:
 * literal pieces and expressions joined by ||, so each copy's body is built in one pass.
 */
function bodySql(body: string, names: ReadonlyArray<readonly [text: string | null, sql: string]>): string {
  const pieces: string[] = [];
  let from = 0;
  for (;;) {
    let next: { index: number; text: string; sql: string } | undefined;
    for (const [text, expression] of names) {
      const index = text ? body.indexOf(text, from) : -1;
      if (index >= 0 && (!next || index < next.index || (index === next.index && text!.length > next.text.length))) next = { index, text: text!, sql: expression };
    }
    if (!next) break;
    pieces.push(literal(body.slice(from, next.index)), `(${next.sql})`);
    from = next.index + next.text.length;
  }
  pieces.push(literal(body.slice(from)));
  return pieces.join(' || ');
}

/**
 * Copies template payments `tp` (with their orders `tord` and events) once per row `s` of
 * `source` (s.g numbers the copy, s.shift moves its times): each copy with its own ids, order
 * number, store order id, reference, deposit address, transaction and tracking token, and its
 * events' exact bodies rewritten to name them and their times.
 */
async function copyPayments(db: Db, seed: string, templates: readonly string[], source: string, names: CopyNames): Promise<void> {
  const payment = idOf('pay', `${seed}p`, 's.g');
  const order = idOf('ord', `${seed}o`, 's.g');
  const storeId = `'store-${seed}-' || s.g::text`;
  const templateStoreId = `replace(tp.reference, 'order-', 'store-')`;
  const reference = `'order-${seed}-' || s.g::text`;
  const unique = (column: string, text: string) => `CASE WHEN tp.${column} IS NULL THEN NULL ELSE ${text} END`;
  const deposit = `'0x' || ${hexOf(`${seed}d`, 's.g', 40)}`;
  const txid = `'0x' || ${hexOf(`${seed}x`, 's.g', 64)}`;
  const token = `'trk_' || ${hexOf(`${seed}t`, 's.g', 24)}`;
  const customer = names.customer ?? 'tord.customer_id';
  const email = names.email ?? 'tp.customer_email';
  await copyRows(db, 'orders', `${source} JOIN orders t ON t.id = tord.id`, {
    id: order, number: names.number, customer_id: customer,
    store_order_key: `replace(t.store_order_key, ${templateStoreId}, ${storeId})`, store: `replace(t.store::text, ${templateStoreId}, ${storeId})::jsonb`,
  });
  await copyRows(db, 'payments', `${source} JOIN payments t ON t.id = tp.id`, {
    id: payment, order_id: order, customer_email: email, reference,
    deposit_address: unique('deposit_address', deposit), txid_in: unique('txid_in', txid), tracking_token: unique('tracking_token', token),
  });
  // Each template event's body, with what names its copy (ids, email, address, transaction, token, store order, number, times) as SQL.
  const event = idOf('evt', `${seed}e`, 's.g::text || t.id');
  const events = await db.selectFrom('events as e').innerJoin('payments as p', 'p.id', 'e.payment_id').innerJoin('orders as o', 'o.id', 'p.order_id')
    .select(['e.id', 'e.body', 'e.created_at', 'p.id as payment_id', 'p.order_id', 'o.customer_id', 'p.customer_email', 'p.tracking_token', 'p.deposit_address',
      'p.txid_in', 'p.reference', 'o.number'])
    .where('e.payment_id', 'in', [...templates]).execute();
  const cases = events.map((e) => {
    // Every time in the body (createdAt, expiresAt, paidAt, …: milliseconds), moved as its copy's times are.
    const times = new Set([...e.body.matchAll(/"[a-zA-Z]+At":(\d{13})\b/g)].map((match) => match[1]!));
    const body = bodySql(e.body, [
      [e.payment_id, payment], [e.order_id, order], [e.customer_id, customer], [e.customer_email, email], [e.id, event],
      [e.tracking_token, token], [e.deposit_address, deposit], [e.txid_in, txid],
      [`"${e.reference?.replace('order-', 'store-')}"`, `'"' || ${storeId} || '"'`], [`"${e.reference}"`, `'"' || ${reference} || '"'`],
      [`"number":${e.number},`, `'"number":' || (${names.number})::text || ','`], [`"displayNumber":"${e.number}"`, `'"displayNumber":"' || (${names.number})::text || '"'`],
      [`"created":${Math.floor(e.created_at.getTime() / 1000)},`, `'"created":' || floor(extract(epoch FROM t.created_at + s.shift))::text || ','`],
      ...[...times].map((ms) => [`:${ms}`, `':' || (${ms}::bigint + ${shiftMs})::text`] as const),
    ]);
    return `WHEN ${literal(e.id)} THEN ${body}`;
  });
  await copyRows(db, 'events', `${source} JOIN events t ON t.payment_id = tp.id`, {
    id: event, payment_id: payment, order_id: order, customer_id: customer, body: `CASE t.id ${cases.join(' ')} END`,
  });
}

/** Throws unless a sample of the copied events' bodies name their own payment, order, customer, number and times. */
async function checkCopies(db: Db, businessId: string): Promise<void> {
  const { rows } = await sql<{ id: string; body: string; created_at: Date; payment_id: string; payment_created: Date; order_id: string; number: number; customer_id: string; email: string; reference: string }>`
    SELECT e.id, e.body, e.created_at, p.id AS payment_id, p.created_at AS payment_created, o.id AS order_id, o.number, o.customer_id, p.customer_email AS email, p.reference
    FROM events e JOIN payments p ON p.id = e.payment_id JOIN orders o ON o.id = p.order_id
    WHERE e.business_id = ${businessId} ORDER BY random() LIMIT 100`.execute(db);
  for (const row of rows) {
    const { id, created, data: { payment, order } } = JSON.parse(row.body);
    const named = [id, created, payment.id, payment.createdAt, payment.customerEmail, payment.reference, order.id, order.number, order.displayNumber, order.customer.id, order.store.orderId];
    const expected = [row.id, Math.floor(row.created_at.getTime() / 1000), row.payment_id, row.payment_created.getTime(), row.email, row.reference, row.order_id, row.number, String(row.number), row.customer_id, row.reference.replace('order-', 'store-')];
    if (JSON.stringify(named) !== JSON.stringify(expected)) throw new Error(`The copied event ${row.id} names ${JSON.stringify(named)}, not ${JSON.stringify(expected)}.`);
  }
}

export async function fillBusiness(env: BenchEnv, name: string, rows: number, progress: (line: string) => void): Promise<FilledBusiness> {
  const started = performance.now();
  const { context } = env;
  const { db } = context;
  const business = await benchShop(context, name, `owner@${name.toLowerCase().replaceAll(' ', '-')}.bench.example`);
  const auth = { authorization: `Bearer ${business.secret}` };
  const call = caller(env, auth);

  const paid = await startedSession(call, `${business.id}-paid`);
  await call('POST', `/v1/payments/${paid}/simulate`, { outcome: 'paid' });
  const expired = await startedSession(call, `${business.id}-expired`);
  await call('POST', `/v1/payments/${expired}/simulate`, { outcome: 'expired' });
  const open = await startedSession(call, `${business.id}-open`);
  // The endpoint the copies' deliveries went to (added after the templates: theirs stay out of the log).
  const endpoint = await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/scale-hooks' });

  const newest = context.clock.now().getTime() - 60_000;
  const spacingMs = SPREAD_MS / rows;
  const { last_number: firstNumber } = await db.selectFrom('order_numbers').select('last_number').where('business_id', '=', business.id).where('livemode', '=', false).executeTakeFirstOrThrow();
  const customer = idOf('cus', `${business.id}c`, 's.k');
  const email = `'buyer-' || s.k::text || '-${business.id.toLowerCase()}@scale.bench.example'`;
  for (let from = 1; from <= rows; from += CHUNK) {
    const to = Math.min(rows, from + CHUNK - 1);
    // Customers first, each at the time of its first (oldest) order.
    await copyRows(db, 'customers', `(SELECT k, ${msTime(`${newest} - k * ${ORDERS_PER_CUSTOMER} * ${spacingMs}::float8`)} AS at
        FROM generate_series(${Math.ceil(to / ORDERS_PER_CUSTOMER)}, ${Math.ceil(from / ORDERS_PER_CUSTOMER)}, -1) AS k) s0
        JOIN payments tp ON tp.id = '${paid}' JOIN orders tord ON tord.id = tp.order_id JOIN customers t ON t.id = tord.customer_id
        CROSS JOIN LATERAL (SELECT s0.k, s0.at - t.created_at AS shift) s`, { id: customer, email });
    // Row g (1 = newest) of the copies: its template, its time, and its customer k.
    await copyPayments(db, `${business.id}f`, [paid, expired], `(SELECT g, CASE WHEN g % 100 < ${PAID_PERCENT} THEN '${paid}' ELSE '${expired}' END AS tid,
        ${msTime(`${newest} - g * ${spacingMs}::float8`)} AS at, (g + ${ORDERS_PER_CUSTOMER - 1}) / ${ORDERS_PER_CUSTOMER} AS k
        FROM generate_series(${to}, ${from}, -1) AS g) s0 JOIN payments tp ON tp.id = s0.tid JOIN orders tord ON tord.id = tp.order_id
        CROSS JOIN LATERAL (SELECT s0.g, s0.k, s0.at - tp.created_at AS shift) s`, { number: `${firstNumber} + ${rows + 1} - s.g`, customer, email });
    progress(`${name}: ${to.toLocaleString('en')} of ${rows.toLocaleString('en')} payments with their orders, customers and events (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  await db.updateTable('order_numbers').set({ last_number: firstNumber + rows }).where('business_id', '=', business.id).where('livemode', '=', false).execute();

  // The log as retention keeps it, and the Idempotency-Keys of the last 25 hours.
  const logFrom = new Date(newest - 30 * DAY - HOUR);
  await sql`
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, last_attempt_at, last_status, created_at, finished_at)
    SELECT 'dlv_' || substr(md5(e.id), 1, 24), e.id, ${endpoint.id}, 'succeeded', 1, e.created_at + interval '40 ms', 200, e.created_at, e.created_at + interval '80 ms'
    FROM events e WHERE e.business_id = ${business.id} AND e.livemode = false AND e.created_at >= ${logFrom} AND e.payment_id <> ALL (${[paid, expired, open]})`.execute(db);
  await sql`
    INSERT INTO webhook_delivery_attempts (delivery_id, endpoint_id, trigger, number, url, sent_at, duration_ms, succeeded, status_code, response_excerpt)
    SELECT d.id, d.endpoint_id, 'automatic', 1, ${endpoint.url}, d.last_attempt_at, 40, true, 200, 'ok'
    FROM webhook_deliveries d WHERE d.endpoint_id = ${endpoint.id} ORDER BY d.created_at`.execute(db);
  await sql`
    INSERT INTO idempotency_keys (business_id, livemode, key, request_hash, payment_id, created_at)
    SELECT business_id, livemode, 'key-' || id, sha256(id::bytea), id, created_at
    FROM payments WHERE business_id = ${business.id} AND livemode = false AND created_at >= ${new Date(newest - 25 * HOUR)} AND source = 'api'
    ON CONFLICT DO NOTHING`.execute(db);
  await sql`ANALYZE`.execute(db);
  await checkCopies(db, business.id);

  const deep = await db.selectFrom('payments').select('id').where('business_id', '=', business.id).where('livemode', '=', false)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').offset(Math.floor(rows * 0.9)).limit(1).executeTakeFirstOrThrow();
  const owner = await db.selectFrom('memberships').select('person_id').where('business_id', '=', business.id).executeTakeFirstOrThrow();
  const session = await openSession(context, owner.person_id);
  const fillSeconds = (performance.now() - started) / 1000;
  progress(`${name}: filled in ${fillSeconds.toFixed(0)} s`);
  return {
    id: business.id, rows, auth, deep: deep.id, openTemplate: open, fillSeconds,
    dashboardPath: `/dashboard/businesses/${business.id}/test/payments`,
    cookie: `${sessionCookieName(context.config.baseUrl)}=${session}`,
  };
}

/**
 * Makes `due` payments whose time ran out in the minute before `now`: copies of the started
 * session with its order and payment.started event, as a flash sale's abandoned checkouts leave them.
 */
export async function makeDue(db: Db, business: FilledBusiness, due: number, now: number): Promise<void> {
  await copyPayments(db, `${business.id}due${now}`, [business.openTemplate], `(SELECT g, ${msTime(`${now} - 60000 * random()`)} AS at FROM generate_series(1, ${due}) AS g) s0
      JOIN payments tp ON tp.id = '${business.openTemplate}' JOIN orders tord ON tord.id = tp.order_id
      CROSS JOIN LATERAL (SELECT s0.g, s0.at - tp.expires_at AS shift) s`, { number: '900000000 + s.g' });
}
