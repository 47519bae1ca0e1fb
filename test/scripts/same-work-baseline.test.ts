import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBaseline, type Baseline } from '../../bench/baseline.ts';
import type { RequestSpec } from '../../bench/load.ts';
import { resolveRequest, scenarios, type BenchEnv, type Scenario } from '../../bench/scenarios.ts';
import { DELIVERY_CHANNEL } from '../../src/jobs/queues.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { rowsWritten, type Row, type TableChanges } from '../support/rows-written.ts';

// Issue 32, must have 1: the same-work baseline (bench/same-work.ts) writes the rows our create,
// session create and create + start write. Each write row's own requests (bench/scenarios.ts)
// once through our API and once through the baseline's server, on the same database and
// business, then every table's inserted, changed and deleted rows compared, column by column,
// and the notifications each sent.

let t: TestApp;
let baseline: Baseline;
let key: string;
let listener: pg.Client;
/** The channels notified since the last step began. */
let heard: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  const business = await t.business();
  key = (await business.key()).secret;
  // As the bench: a subscribed endpoint, so a start writes its event, a delivery and its job.
  expect((await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: 'http://127.0.0.1:9/hooks' } })).status).toBe(201);
  // Behind us before anything is compared: the key's first use (its last_used_at, written once a
  // minute) and the business's first order number (inserted once, then counted up).
  expect((await t.request('POST', '/v1/payment_links', { key, body: { amount: '1.00', currency: 'USD', description: 'First' } })).status).toBe(201);
  // Every channel the schema's triggers notify, and the one our statements notify themselves.
  const { rows } = await sql<{ source: string }>`SELECT prosrc AS source FROM pg_proc WHERE prosrc LIKE '%pg_notify(%'`.execute(t.db);
  const channels = new Set([DELIVERY_CHANNEL, ...rows.flatMap(({ source }) => [...source.matchAll(/pg_notify\('([a-z_]+)'/g)].map((match) => match[1]!))]);
  expect(channels).toContain('deposit_addresses');
  listener = new pg.Client({ connectionString: t.config.databaseUrl });
  await listener.connect();
  listener.on('notification', ({ channel }) => heard.push(channel));
  for (const channel of channels) await listener.query(`LISTEN ${channel}`);
  baseline = await startBaseline({ databaseUrl: t.config.databaseUrl!, poolSize: 2, businessId: business.id, baseUrl: t.config.baseUrl });
});
afterAll(async () => {
  await listener?.end();
  await baseline?.close();
  await t?.close();
});

const writeRows = scenarios.filter((scenario) => scenario.sameWork !== undefined);
const bench = (row: string) => writeRows.find((scenario) => scenario.name.startsWith(row))!;

/**
 * One side of a row: the bench's request, its `[<id>]` made `tag` (the same length on both
 * sides, and of a character no generated id has), each step after the first sent to the id
 * the step before answered.
 */
interface Side {
  tag: string;
  url: string;
  request: RequestSpec;
}

function sidesOf(scenario: Scenario<unknown>, row: number): [Side, Side] {
  // What the write rows' requests read of the bench's environment: the key.
  const env: Partial<BenchEnv> = { auth: { authorization: `Bearer ${key}` } };
  return [
    { tag: `ours-${row}`, url: t.url, request: resolveRequest(scenario.service, undefined, env as BenchEnv) },
    { tag: `same-${row}`, url: baseline.url, request: resolveRequest(scenario.sameWork!.request, undefined, env as BenchEnv) },
  ];
}

async function send(url: string, step: Omit<RequestSpec, 'then'>, tag: string, previousId: string | undefined): Promise<string> {
  const own = (text: string) => text.replaceAll('[<id>]', tag).replace('{id}', previousId ?? '');
  const headers = Object.fromEntries(Object.entries(step.headers ?? {}).map(([name, value]) => [name, own(value)]));
  const response = await fetch(`${url}${own(step.path)}`, { method: step.method, headers, body: step.body === undefined ? undefined : own(step.body) });
  const text = await response.text();
  expect(response.status, `${step.path}: ${text}`).toBeLessThan(300);
  return (JSON.parse(text) as { id: string }).id;
}

/**
 * Columns whose values must differ between the two sides: times (our clock is the test's, the
 * baseline's PostgreSQL's), counters that moved on between the requests, and what the baseline
 * generates otherwise (the job's id, the key's hash of another body). Of these only whether
 * each is filled is compared. Ids the rows themselves carry are compared by what they name.
 */
const DIFFERING: Record<string, readonly string[]> = {
  'public.payments': ['created_at', 'updated_at', 'expires_at', 'started_at'],
  'public.orders': ['number', 'created_at', 'updated_at'],
  'public.order_numbers': ['last_number'],
  'public.customers': ['created_at', 'details_at'],
  'public.idempotency_keys': ['request_hash', 'created_at'],
  'public.events': ['seq', 'created_at'],
  'public.webhook_deliveries': ['seq', 'created_at', 'next_attempt_at'],
};
/** pg-boss's job tables (one per queue group, named by pg-boss). */
const JOB_DIFFERING = ['id', 'created_on', 'start_after', 'keep_until'];
/** In an event's body: its times, and the order's number. */
const BODY_DIFFERING = new Set(['created', 'createdAt', 'updatedAt', 'expiresAt', 'firstSeenAt', 'number', 'displayNumber']);

const differingOf = (table: string) => (table.startsWith('pgboss.job') ? JOB_DIFFERING : DIFFERING[table] ?? []);

/** The names a side's own values get, so rows compare by what they refer to. */
function namesOf(s: Side, written: ReadonlyArray<Record<string, TableChanges>>): Map<string, string> {
  const names = new Map<string, string>([[s.tag, '<id>']]);
  const changes = (table: string) => written.flatMap((step) => step[table]?.inserted ?? []);
  const idTables = { 'public.payments': '<payment>', 'public.orders': '<order>', 'public.customers': '<customer>', 'public.events': '<event>', 'public.webhook_deliveries': '<delivery>' };
  for (const [table, name] of Object.entries(idTables)) {
    for (const row of changes(table)) names.set(row.id as string, name);
  }
  for (const row of changes('public.payments')) if (row.tracking_token) names.set(row.tracking_token as string, '<tracking token>');
  return names;
}

function rename(value: unknown, names: Map<string, string>): unknown {
  let text = JSON.stringify(value);
  for (const [own, name] of names) text = text.replaceAll(own, name);
  return JSON.parse(text);
}

/** An event's body as an object, its values renamed, its differing values as their types; and its length in bytes. */
function normalBody(body: string, names: Map<string, string>): unknown {
  const mask = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(mask);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, BODY_DIFFERING.has(k) ? `<${v === null ? 'null' : typeof v}>` : mask(v)]));
  };
  return { bytes: Buffer.byteLength(body), body: mask(rename(JSON.parse(body), names)) };
}

function normalRow(table: string, row: Row, names: Map<string, string>): Row {
  const differing = differingOf(table);
  return Object.fromEntries(Object.entries(row).map(([column, value]) => {
    if (differing.includes(column)) return [column, value === null ? null : '<filled>'];
    if (table === 'public.events' && column === 'body') return [column, normalBody(value as string, names)];
    return [column, rename(value, names)];
  }));
}

/** What a step wrote, in the terms both sides share. */
function normal(changes: Record<string, TableChanges>, names: Map<string, string>) {
  return Object.fromEntries(Object.entries(changes).map(([table, { inserted, updated, deleted }]) => [table, {
    inserted: inserted.map((row) => normalRow(table, row, names)),
    // A changed column both sides set, whose value differs anyway (updated_at on our fixed clock), is not a difference.
    updated: updated.map(({ row, changed }) => ({ row: normalRow(table, row, names), changed: changed.filter((column) => !differingOf(table).includes(column)) })),
    deleted: deleted.map((row) => normalRow(table, row, names)),
  }]));
}

/** What each step of a side's request wrote, and the channels it notified. */
async function writtenBy(s: Side) {
  const written: Array<Record<string, TableChanges>> = [];
  const notified: string[][] = [];
  const { then = [], ...first } = s.request;
  let previousId: string | undefined;
  for (const step of [first, ...then]) {
    heard = [];
    written.push(await rowsWritten(t.db, async () => { previousId = await send(s.url, step, s.tag, previousId); }));
    // Notifications of a committed transaction reach a listener before its next query's answer.
    await listener.query('SELECT 1');
    notified.push(heard.toSorted());
  }
  const names = namesOf(s, written);
  return written.map((changes, index) => ({ tables: normal(changes, names), notified: notified[index]! }));
}

const tablesOf = (written: ReadonlyArray<{ tables: Record<string, unknown> }>) => written.map((step) => Object.keys(step.tables));

describe('the same-work baseline writes the rows ours write, table by table', () => {
  it('serves the three write rows', () => {
    expect(writeRows.map((scenario) => scenario.name.split(':')[0])).toEqual(['create', 'session create', 'create + start']);
  });

  it('create: a payment link (its order number, order and payment)', async () => {
    const [ours, same] = sidesOf(bench('create:'), 1);
    const written = await writtenBy(ours);
    expect(tablesOf(written)).toEqual([['public.order_numbers', 'public.orders', 'public.payments']]);
    expect(await writtenBy(same)).toEqual(written);
  });

  it('session create with an Idempotency-Key (its claim, customer, order number, order and payment)', async () => {
    const [ours, same] = sidesOf(bench('session create:'), 2);
    const written = await writtenBy(ours);
    expect(tablesOf(written)).toEqual([['public.customers', 'public.idempotency_keys', 'public.order_numbers', 'public.orders', 'public.payments']]);
    expect(await writtenBy(same)).toEqual(written);
  });

  it('create + start: the session\'s rows, then the payment\'s move with payment.started, its delivery and the delivery\'s pg-boss job', async () => {
    const [ours, same] = sidesOf(bench('create + start:'), 3);
    const written = await writtenBy(ours);
    expect(tablesOf(written)).toEqual([
      ['public.customers', 'public.order_numbers', 'public.orders', 'public.payments'],
      ['pgboss.job_common', 'public.events', 'public.payments', 'public.webhook_deliveries'],
    ]);
    expect(written[1]!.tables['public.payments']!.updated.map(({ changed }) => changed)).toEqual([['payout_wallet', 'usd_value_minor']]);
    // Idle delivery workers woken at the commit; nothing else notified (a Test start draws no deposit address).
    expect(written.map((step) => step.notified)).toEqual([[], [DELIVERY_CHANNEL]]);
    expect(await writtenBy(same)).toEqual(written);
  });

  it('the comparison tells a table or a column the baseline left out', async () => {
    const written = (await writtenBy(sidesOf(bench('create:'), 4)[0]))[0]!.tables;
    const { 'public.orders': _orders, ...withoutOrder } = written;
    expect(withoutOrder).not.toEqual(written);
    const payments = written['public.payments']!;
    expect({ ...written, 'public.payments': { ...payments, inserted: [{ ...payments.inserted[0], description: null }] } }).not.toEqual(written);
  });
});
