import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/core/config.ts';
import { openDatabase, type Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { operations } from '../src/operations.ts';
import { loadSecrets, openAppContext } from '../src/runtime.ts';
import { benchShop, startBenchCluster } from './cluster.ts';

// Where a write's time goes (issue 32, must have 2): the three write rows of the bench, one
// request at a time through the app (in process, no network), with PostgreSQL logging every
// statement's duration (log_min_duration_statement = 0: parse, bind and execute each). Per kind
// of request: its time, the time inside PostgreSQL and how many statements, and the statements
// that cost the most. `npm run bench:profile` (PROFILE_REQUESTS, 300; PROFILE_ONLY, a kind's name
// or part of it); with node's --cpu-prof, where the time outside PostgreSQL goes; PROFILE_COSTS=1,
// what each secondary index and trigger of the written tables costs a write.

const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 300);

interface Timed { statement: string; ms: number }

/** A logged duration line: `duration: 0.123 ms  execute s12: INSERT …` (parse and bind too). */
function parseDuration(line: string): Timed | undefined {
  const match = /duration: ([\d.]+) ms\s+(parse|bind|execute|statement)[^:]*:\s*([\s\S]*)$/.exec(line);
  if (!match) return undefined;
  return { ms: Number(match[1]), statement: match[3]!.replace(/\s+/g, ' ').trim().slice(0, 160) };
}

const MARK = 'profile:';

/** The tables each write fills: their secondary indexes (not the keys and uniques that keep the data right) are what PROFILE_COSTS=1 weighs. */
const WRITE_TABLES = ['payments', 'orders', 'customers', 'events', 'webhook_deliveries', 'idempotency_keys', 'order_numbers'];

type Measure = (kind: { name: string; prepare: () => Promise<string>; run: (made: string) => Promise<unknown> }, requests: number) => Promise<{ pgMs: number }>;

/**
 * PROFILE_COSTS=1: what each secondary index and trigger of the written tables costs a write,
 * by PostgreSQL's own time for the same requests with and without it (dropped, measured, made
 * again from its definition). Each side is the median of three runs of PROFILE_REQUESTS.
 */
async function writeCosts(db: Db, kinds: Array<Parameters<Measure>[0]>, measure: Measure): Promise<void> {
  const requests = REQUESTS;
  const indexes = (await sql<{ name: string; definition: string }>`
    SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
    JOIN pg_class c ON c.relname = i.indexname JOIN pg_index x ON x.indexrelid = c.oid
    WHERE i.schemaname = 'public' AND i.tablename IN (${sql.join(WRITE_TABLES)}) AND NOT x.indisunique AND NOT x.indisprimary
    ORDER BY i.tablename, i.indexname`.execute(db)).rows;
  const triggers = (await sql<{ name: string; table: string; definition: string }>`
    SELECT t.tgname AS name, c.relname AS table, pg_get_triggerdef(t.oid) AS definition FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE NOT t.tgisinternal AND c.relname IN (${sql.join(WRITE_TABLES)}) ORDER BY c.relname, t.tgname`.execute(db)).rows;
  const objects = [
    ...indexes.map((index) => ({ what: `index ${index.name}`, drop: `DROP INDEX ${index.name}`, make: index.definition })),
    ...triggers.map((trigger) => ({ what: `trigger ${trigger.name} on ${trigger.table}`, drop: `DROP TRIGGER ${trigger.name} ON ${trigger.table}`, make: trigger.definition })),
  ];
  const medianOf = async (kind: Parameters<Measure>[0]) => median([(await measure(kind, requests)).pgMs, (await measure(kind, requests)).pgMs, (await measure(kind, requests)).pgMs]);
  for (const kind of kinds) {
    process.stdout.write(`\n## ${kind.name}: PostgreSQL's ms a request (each the median of three runs of ${requests}; with everything measured again just before, as the tables grow)\n\n`
      + '| without | with it | without it | saves |\n|---|---|---|---|\n');
    for (const object of objects) {
      const withIt = await medianOf(kind);
      await sql.raw(object.drop).execute(db);
      try {
        const without = await medianOf(kind);
        process.stdout.write(`| ${object.what} | ${withIt.toFixed(3)} | ${without.toFixed(3)} | ${(withIt - without).toFixed(3)} |\n`);
      } finally {
        await sql.raw(object.make).execute(db);
      }
    }
  }
}

/** The statements logged between each begin and end marker (the markers' own steps left out). */
function between(all: readonly Timed[]): Timed[] {
  const inside: Timed[] = [];
  let open = false;
  for (const timed of all) {
    if (timed.statement.includes(`${MARK}begin`)) open = true;
    else if (timed.statement.includes(`${MARK}end`)) open = false;
    else if (open) inside.push(timed);
  }
  return inside;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? 0;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'payment-service-profile-'));
  // Every statement is logged; what ran between two marker statements is one profiled request
  // (the log comes in order, a little after the statements ran).
  const lines: Timed[] = [];
  // PROFILE_STATEMENTS=off: no statement log (a --cpu-prof run sees the request path alone).
  const statementLog: Record<string, string> = process.env.PROFILE_STATEMENTS === 'off' ? {} : { log_min_duration_statement: '0' };
  const cluster = await startBenchCluster(dataDir, { log_line_prefix: '', ...statementLog }, (text) => {
    for (const line of text.split('\n')) {
      const timed = parseDuration(line);
      if (timed) lines.push(timed);
    }
  });
  try {
    const migrator = openDatabase(cluster.url, 1);
    await migrate(migrator.db).finally(() => migrator.close());
    const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', RATE_LIMITS: 'off', FX_RATES_URL: 'off', DATABASE_URL: cluster.url });
    const service = await openAppContext(cluster.url, config, { secrets: await loadSecrets({ ...config, dataDir }) });
    const { context } = service;
    const app = await buildApp(context, operations);
    try {
      const key = (await benchShop(context, 'Profile Shop', 'owner@profile.example')).secret;
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const post = async (url: string, body: unknown, more: Record<string, string> = {}) => {
        const answer = await app.inject({ method: 'POST', url, headers: { ...headers, ...more }, payload: JSON.stringify(body) });
        if (answer.statusCode >= 300) throw new Error(`${url}: ${answer.statusCode} ${answer.body}`);
        return answer.json() as { id: string };
      };
      // A subscribed endpoint, as in the bench: each start writes its event, a delivery and its job.
      await post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });

      // Each kind: what is made first, unlogged and untimed (a start's session), then the request profiled.
      const kinds: Array<{ name: string; prepare: () => Promise<string>; run: (made: string) => Promise<unknown> }> = [
        { name: 'create: POST /v1/payment_links', prepare: async () => '', run: () => post('/v1/payment_links', { amount: '25.00', currency: 'USD', description: 'Bench' }) },
        { name: 'session create with Idempotency-Key', prepare: async () => randomBytes(8).toString('hex'),
          run: (made) => post('/v1/checkout_sessions', {
            amount: '42.50', currency: 'USD', order: { id: `o-${made}`, items: [{ name: 'Coffee beans', quantity: 1, unit_amount: '42.50', amount: '42.50' }], total: '42.50' },
          }, { 'idempotency-key': `k-${made}` }) },
        { name: 'start: POST …/start of a new session (its buyer\'s own email)',
          prepare: async () => (await post('/v1/checkout_sessions', { amount: '42.50', currency: 'USD', customer_email: `buyer-${randomBytes(6).toString('hex')}@profile.example` })).id,
          run: (made) => post(`/v1/checkout_sessions/${made}/start`, {}) },
      ];
      const mark = (what: string) => sql`SELECT ${sql.lit(`${MARK}${what}`)}`.execute(context.db);
      /** One kind's requests, one at a time: their times and the statements PostgreSQL logged for them. */
      const measure = async (kind: (typeof kinds)[number], requests: number) => {
        for (let warm = 0; warm < 30; warm += 1) await kind.run(await kind.prepare());
        lines.length = 0;
        const times: number[] = [];
        for (let index = 0; index < requests; index += 1) {
          const made = await kind.prepare();
          await mark('begin');
          const started = performance.now();
          await kind.run(made);
          times.push(performance.now() - started);
          await mark('end');
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        const logged = between(lines.splice(0));
        return { times, logged, pgMs: logged.reduce((sum, timed) => sum + timed.ms, 0) / requests };
      };
      const only = process.env.PROFILE_ONLY;
      const selected = kinds.filter((each) => !only || each.name.includes(only));
      if (process.env.PROFILE_COSTS === '1') {
        await writeCosts(context.db, selected, measure);
        return;
      }
      for (const kind of selected) {
        const { times, logged, pgMs } = await measure(kind, REQUESTS);
        const byStatement = new Map<string, { count: number; ms: number }>();
        for (const timed of logged) {
          const entry = byStatement.get(timed.statement) ?? { count: 0, ms: 0 };
          entry.count += 1;
          entry.ms += timed.ms;
          byStatement.set(timed.statement, entry);
        }
        const executes = [...byStatement.values()].reduce((sum, entry) => sum + entry.count, 0) / REQUESTS;
        process.stdout.write(`\n## ${kind.name} (${REQUESTS} requests, one at a time)\n\n`);
        if (process.env.PROFILE_STATEMENTS === 'off') {
          process.stdout.write(`request p50 ${median(times).toFixed(2)} ms, p99 ${p99(times).toFixed(2)} ms (no statement log)\n`);
          continue;
        }
        process.stdout.write(`request p50 ${median(times).toFixed(2)} ms, p99 ${p99(times).toFixed(2)} ms; inside PostgreSQL ${pgMs.toFixed(2)} ms a request `
          + `(${executes.toFixed(1)} logged steps: parse, bind, execute); outside it (validation, policy, serialization, the driver, round trips) about ${(median(times) - pgMs).toFixed(2)} ms\n\n`);
        process.stdout.write('| ms a request | steps a request | statement |\n|---|---|---|\n');
        for (const [statement, entry] of [...byStatement.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) {
          process.stdout.write(`| ${(entry.ms / REQUESTS).toFixed(3)} | ${(entry.count / REQUESTS).toFixed(2)} | \`${statement.replaceAll('|', '\\|')}\` |\n`);
        }
      }
    } finally {
      await app.close();
      await service.close();
    }
  } finally {
    await cluster.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
