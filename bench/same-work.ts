import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { isUniqueViolation } from '../src/db/database.ts';
import { ALL_EVENTS_SINCE } from '../src/events/record.ts';
import { summaryOf } from '../src/resources/orders/derive.ts';
import { BOSS_SCHEMA } from '../src/jobs/boss.ts';
import { DELIVERY_CHANNEL, deliveryInsertStatement, QUEUES } from '../src/jobs/queues.ts';
import { ORDER_FACTS, STARTED_EVENT_BODY } from './same-work-body.ts';

// The same-work baseline (issue 32): the least a bare Fastify + pg server does to write the rows
// our create, session create and start write (test/scripts/same-work-baseline.test.ts compares
// them table by table). Each request is one hand-written statement, so one transaction, prepared
// once per connection as ours are; no auth, no validation beyond reading the body. It serves what
// the bench sends: Test mode, USD, a session's buyer given at create, a first start.

export interface SameWorkOptions {
  businessId: string;
  /** The service's base URL: the payer page address inside an event. */
  baseUrl: string;
}

/** A statement written with named parameters (`:name`), as pg's numbered ones. */
function prepared(name: string, text: string, splice: Record<string, string> = {}) {
  const names: string[] = [];
  const numbered = text.replace(/(?<!:):([a-z_]+)/g, (_, parameter: string) => {
    if (!names.includes(parameter)) names.push(parameter);
    return `$${names.indexOf(parameter) + 1}`;
  });
  // Spliced after numbering: SQL that is not ours to scan for parameters (pg-boss's insert).
  const full = Object.entries(splice).reduce((sql, [marker, part]) => sql.replace(`{${marker}}`, part), numbered);
  return (values: Record<string, unknown>): pg.QueryConfig => ({ name, text: full, values: names.map((parameter) => values[parameter] ?? null) });
}

/**
 * A payment with its new order (as insertPaymentWithOrder writes it): the Idempotency-Key's
 * claim and the buyer's customer when given, the order number, the order, the payment.
 */
const CREATE = prepared('same_work_create', `
  WITH claim AS (
    INSERT INTO idempotency_keys (business_id, livemode, key, request_hash, payment_id, created_at)
    SELECT :business_id, false, :key, :request_hash, :payment_id, now() WHERE :key::text IS NOT NULL
    RETURNING key),
  number AS (
    INSERT INTO order_numbers (business_id, livemode, last_number) VALUES (:business_id, false, 1001)
    ON CONFLICT (business_id, livemode) DO UPDATE SET last_number = order_numbers.last_number + 1
    RETURNING last_number),
  customer AS (
    INSERT INTO customers (id, business_id, livemode, email, created_at, details_at)
    SELECT :customer_id, :business_id, false, lower(:email), now(), now() WHERE :email::text IS NOT NULL
    ON CONFLICT (business_id, livemode, email) WHERE email IS NOT NULL
      DO UPDATE SET details_at = greatest(customers.details_at, excluded.details_at)
    RETURNING id),
  new_order AS (
    INSERT INTO orders (id, business_id, livemode, number, source, currency, subtotal_minor, total_minor, items, store,
      store_order_key, customer_id, created_at, updated_at)
    SELECT :order_id, :business_id, false, last_number, :source, :currency, :subtotal_minor, :total_minor, :items, :store,
      :store_order_key, (SELECT id FROM customer), now(), now()
    FROM number)
  INSERT INTO payments (id, business_id, livemode, source, order_id, amount_minor, currency, description, reference,
    customer_email, routing, tracking_token, fee_bps, method, expires_at, created_at, updated_at)
  SELECT :payment_id, :business_id, false, :source, :order_id, :amount_minor, :currency, :description, :reference,
    :email, :routing, :tracking_token, b.fee_bps, 'card', now() + :lifetime::interval, now(), now()
  FROM businesses b WHERE b.id = :business_id
  RETURNING *`);

const REPLAY = prepared('same_work_replay', `
  SELECT p.* FROM idempotency_keys k JOIN payments p ON p.id = k.payment_id
  WHERE k.business_id = :business_id AND k.livemode = false AND k.key = :key`);

/**
 * A first start whose buyer is the order's own (as moveWithEvent writes it): the payment's
 * locked fields, then payment.started, a delivery per subscribed endpoint and its pg-boss job,
 * and the delivery workers woken at commit.
 */
function startStatement(jobsTable: string) {
  return prepared('same_work_start', `
    WITH started AS (
      UPDATE payments p SET
        customer_email = lower(coalesce(:email, p.customer_email)), started_at = coalesce(p.started_at, now()),
        fee_bps = b.fee_bps, payout_wallet = b.payout_wallet, usd_value_minor = p.amount_minor,
        deposit_address = p.deposit_address, deposit_index = p.deposit_index, status = 'open', updated_at = now()
      FROM businesses b
      WHERE p.id = :payment_id AND p.business_id = :business_id AND p.livemode = false AND p.status = 'open'
        AND p.expires_at > now() AND b.id = p.business_id
      RETURNING p.*),
    event AS (
      INSERT INTO events (id, business_id, livemode, type, payment_id, order_id, customer_id, body, created_at)
      SELECT :event_id, s.business_id, s.livemode, 'payment.started', s.id, o.id, c.id, ${STARTED_EVENT_BODY}, now()
      FROM started s JOIN orders o ON o.id = s.order_id LEFT JOIN customers c ON c.id = o.customer_id
        CROSS JOIN LATERAL ${ORDER_FACTS} f
      RETURNING id),
    deliveries AS (
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, next_attempt_at, created_at)
      SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), event.id, we.id, now(), now()
      FROM webhook_endpoints we, event
      WHERE we.business_id = :business_id AND we.livemode = false AND we.deleted_at IS NULL AND 'payment.started' = ANY(we.events)
        AND (we.created_at >= :all_events_since OR we.events_edited_at IS NOT NULL)
      RETURNING id, endpoint_id),
    jobs AS ({jobs})
    SELECT s.*, (SELECT count(*) FROM (SELECT pg_notify('${DELIVERY_CHANNEL}', '') FROM deliveries LIMIT 1) AS woken)::int AS woken
    FROM started s`, { jobs: deliveryInsertStatement(BOSS_SCHEMA, jobsTable)('deliveries') });
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const minor = (amount: unknown) => Math.round(Number(amount) * 100);
const DEFAULT_ROUTING = JSON.stringify({ choice: 'smart', provider: null, fallback: false });

interface LinkBody { amount?: string; currency?: string; description?: string }
interface SessionBody {
  amount?: string;
  currency?: string;
  reference?: string;
  customer_email?: string;
  order?: { id: string; total?: string; items: Array<{ name: string; variant?: string; quantity: number; unit_amount?: string; amount: string }> };
}

/** Adds the same-work routes (/same-work/…) to the baseline server, on its pool. */
export async function addSameWorkRoutes(app: FastifyInstance, pool: pg.Pool, options: SameWorkOptions): Promise<void> {
  const { rows: [queue] } = await pool.query<{ table_name: string }>('SELECT table_name FROM pgboss.queue WHERE name = $1', [QUEUES.delivery]);
  if (!queue) throw new Error(`pg-boss queue ${QUEUES.delivery} is missing: start the service on this database first.`);
  const start = startStatement(queue.table_name);
  const business_id = options.businessId;

  app.post<{ Body: LinkBody }>('/same-work/payment_links', async (request, reply) => {
    const { amount, currency, description } = request.body ?? {};
    const amount_minor = minor(amount);
    const { rows } = await pool.query(CREATE({
      business_id, payment_id: id('pay'), order_id: id('ord'), source: 'payment_link', currency, amount_minor,
      subtotal_minor: amount_minor, total_minor: amount_minor, description, tracking_token: id('trk'), lifetime: '7 days',
      items: JSON.stringify([{ name: description, variant: null, sku: null, quantity: 1, unit_amount_minor: amount_minor, amount_minor }]),
    }));
    return reply.code(201).send(rows[0]);
  });

  app.post<{ Body: SessionBody; Headers: { 'idempotency-key'?: string } }>('/same-work/checkout_sessions', async (request, reply) => {
    const body = request.body ?? {};
    const key = request.headers['idempotency-key'];
    const { order } = body;
    const amount_minor = minor(body.amount);
    const items = order && order.items.length > 0
      ? order.items.map((item) => ({ name: item.name, variant: item.variant ?? null, sku: null, quantity: item.quantity,
          unit_amount_minor: item.unit_amount === undefined ? null : minor(item.unit_amount), amount_minor: minor(item.amount) }))
      : [{ name: 'Payment', variant: null, sku: null, quantity: 1, unit_amount_minor: amount_minor, amount_minor }];
    const subtotal_minor = order ? items.reduce((sum, item) => sum + item.amount_minor, 0) : amount_minor;
    try {
      const { rows } = await pool.query(CREATE({
        business_id, payment_id: id('pay'), order_id: id('ord'), customer_id: id('cus'), source: 'api', currency: body.currency, amount_minor,
        subtotal_minor, total_minor: order?.total === undefined ? subtotal_minor : minor(order.total), items: JSON.stringify(items),
        description: order ? summaryOf(order.items) : 'Payment', reference: body.reference, email: body.customer_email, routing: DEFAULT_ROUTING,
        store: order ? JSON.stringify({ platform: null, id: null, name: null, url: null, order_id: order.id, order_number: null, order_url: null, customer_id: null }) : null,
        store_order_key: order ? JSON.stringify([null, null, order.id]) : null, lifetime: '1 day',
        key, request_hash: key === undefined ? null : createHash('sha256').update(JSON.stringify(body)).digest(),
      }));
      return reply.code(201).send(rows[0]);
    } catch (error) {
      // The key is taken: the session it made, as a replay.
      if (!isUniqueViolation(error, 'idempotency_keys_pkey')) throw error;
      return (await pool.query(REPLAY({ business_id, key }))).rows[0];
    }
  });

  app.post<{ Params: { id: string }; Body: { email?: string } }>('/same-work/checkout_sessions/:id/start', async (request, reply) => {
    const { rows } = await pool.query(start({
      business_id, payment_id: request.params.id, email: request.body?.email, event_id: id('evt'), base_url: options.baseUrl,
      all_events_since: ALL_EVENTS_SINCE,
    }));
    if (rows.length === 0) return reply.code(409).send({ error: 'not an open payment' });
    return rows[0];
  });
}
