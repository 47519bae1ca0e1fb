import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { Agent, fetch } from 'undici';
import type { AppContext } from '../src/verbs/context.ts';

// Issue 24's second benchmark: 1,000 waits (GET /v1/payments/:id/wait) held open at once on one
// Test payment. What they cost while open: the process's heap after a full collection (an upper
// bound of the server's share: the 1,000 client requests live in this process too), its resident
// memory, and the connections of the pool busy meanwhile; then one simulated payment and how long
// until every wait has its answer. Targets: under 50 MiB, no busy pool connection, all within 1 s.

const WAITS = 1_000;
const MIB = 1024 * 1024;

export interface WaitsResult {
  waits: number;
  heapMiB: number;
  rssMiB: number;
  busyPoolConnections: number;
  /** ms from the simulation's answer to each wait's answer. */
  p50: number;
  max: number;
  answered: number;
  pass: boolean;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function runWaitsBench(options: {
  serviceUrl: string;
  context: AppContext;
  auth: Record<string, string>;
  progress(line: string): void;
}): Promise<WaitsResult> {
  const { serviceUrl, context, auth, progress } = options;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const memory = () => { gc(); gc(); return process.memoryUsage(); };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${serviceUrl}${path}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const parsed = await response.json() as any;
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const session = await api('POST', '/v1/checkout_sessions', { amount: '20.00', currency: 'USD', customer_email: 'waiter@bench.example' });
  await api('POST', `/v1/checkout_sessions/${session.id}/start`, {});

  const clients = new Agent({ connections: WAITS });
  const before = memory();
  progress(`payment waits: opening ${WAITS}`);
  const answers = Array.from({ length: WAITS }, () => fetch(`${serviceUrl}/v1/payments/${session.id}/wait?status=open&timeout=25`, { headers: auth, dispatcher: clients })
    .then(async (response) => ({ at: performance.now(), status: (await response.json() as { status?: string }).status })));
  await until(() => context.paymentWaits.size === WAITS, 20_000, `${WAITS} waits to be open`);
  const open = memory();
  const { rows } = await sql<{ busy: number }>`SELECT count(*)::int AS busy FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'payment-service' AND state <> 'idle' AND pid <> pg_backend_pid()`.execute(context.db);
  const busyPoolConnections = rows[0]?.busy ?? -1;

  progress('payment waits: one simulated payment');
  await api('POST', `/v1/payments/${session.id}/simulate`, { outcome: 'paid' });
  const changed = performance.now();
  const answered = await Promise.all(answers);
  await clients.destroy();
  const delays = answered.map((answer) => answer.at - changed).sort((a, b) => a - b);
  const paid = answered.filter((answer) => answer.status === 'paid').length;
  const heapMiB = (open.heapUsed - before.heapUsed) / MIB;
  const rssMiB = (open.rss - before.rss) / MIB;
  const max = delays.at(-1) ?? 0;
  const result = {
    waits: WAITS, heapMiB, rssMiB, busyPoolConnections, p50: percentile(delays, 50), max, answered: paid,
    pass: heapMiB < 50 && busyPoolConnections === 0 && paid === WAITS && max < 1_000,
  };
  progress(`payment waits: heap +${heapMiB.toFixed(1)} MiB, rss +${rssMiB.toFixed(1)} MiB, ${busyPoolConnections} busy pool connections, all answered within ${Math.round(max)} ms`);
  return result;
}

export function waitsTable(result: WaitsResult): string {
  return [
    '| payment waits: 1,000 GET /v1/payments/:id/wait held open, then one change | waits | heap while open MiB | rss while open MiB | busy pool connections | answered paid | p50 ms | max ms | target | pass |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| one Test payment, simulated paid | ${result.waits} | ${result.heapMiB.toFixed(1)} | ${result.rssMiB.toFixed(1)} | ${result.busyPoolConnections} | ${result.answered} | ${Math.round(result.p50)} | ${Math.round(result.max)} | < 50 MiB, 0 connections, all < 1000 ms | ${result.pass ? 'PASS' : 'FAIL'} |`,
  ].join('\n');
}
