import { performance } from 'node:perf_hooks';
import { migrationNames, pendingMigrations } from './db/migrate.ts';
import { withTimeout } from './core/timeout.ts';
import type { ReadinessReport, Readiness } from './http/health.ts';
import type { PgBoss } from 'pg-boss';
import type { Db } from './db/database.ts';

// Readiness of this process for its role (main.ts --role): the database answers, every migration
// this code brings is applied, and, where the role runs them, the background workers run. An
// api-only process has no workers to check. A process running the processor adds a check per
// network it watches (processor/operating/status.ts scanChecks: a scan reached the final block lately).

/** A check that takes longer than this counts as failed: a probe must answer while the database does not. */
const CHECK_TIMEOUT_MS = 2_000;
/** Probes arriving within this time share one check, so /readyz (never rate limited) costs the database little. */
const REUSE_MS = 1_000;

async function databaseChecks(db: Db, expected: readonly string[]): Promise<Record<string, string>> {
  try {
    const pending = await withTimeout(pendingMigrations(db, expected), CHECK_TIMEOUT_MS);
    return { database: 'ok', migrations: pending.length === 0 ? 'ok' : 'pending' };
  } catch {
    return { database: 'unreachable', migrations: 'unknown' };
  }
}

/** The pg-boss workers this process started and has not stopped; none before startWorkers or after a stop. */
function workersCheck(boss: PgBoss): string {
  return boss.getWipData().length > 0 ? 'ok' : 'not_running';
}

/**
 * workers: the pg-boss of a process whose role runs the background workers (worker, all); none for api.
 * more: checks of the role's own (the processor's scans), each word `ok` or what is wrong.
 */
export function readinessOf(db: Db, workers?: PgBoss, more?: () => Promise<Record<string, string>>): Readiness {
  let expected: Promise<string[]> | undefined;
  let current: Promise<ReadinessReport> | undefined;
  let settledAt: number | undefined;
  async function check(): Promise<ReadinessReport> {
    expected ??= migrationNames();
    const checks = await databaseChecks(db, await expected);
    if (workers) checks.workers = workersCheck(workers);
    if (more) Object.assign(checks, await withTimeout(more(), CHECK_TIMEOUT_MS).catch(() => ({ processor: 'unknown' })));
    return { ready: Object.values(checks).every((word) => word === 'ok'), checks };
  }
  return () => {
    const fresh = current !== undefined && (settledAt === undefined || performance.now() - settledAt < REUSE_MS);
    if (!fresh) {
      settledAt = undefined;
      current = check().finally(() => {
        settledAt = performance.now();
      });
    }
    return current!;
  };
}
