import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './core/config.ts';
import { StartupError } from './core/errors.ts';
import { buildApp, buildMetricsApp } from './app.ts';
import { readinessOf } from './health.ts';
import { operations } from './operations.ts';
import { openRuntime, startWorkers, type Runtime } from './runtime.ts';

// The process: config -> database -> migrations -> jobs -> HTTP, and a graceful stop on
// SIGINT/SIGTERM. --role api serves HTTP only, --role worker runs only the background jobs
// (pg-boss workers and schedules), --role all (the default) does both. METRICS_PORT adds a
// listener for /metrics, /healthz and /readyz in every role (a worker's only HTTP).
const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' } } });
const role = values.role ?? 'all';
if (!['api', 'worker', 'all'].includes(role)) {
  console.error('--role must be api, worker or all');
  process.exit(2);
}

let config: Config;
let runtime: Runtime;
try {
  config = loadConfig();
  runtime = await openRuntime(config);
} catch (error) {
  // What the person starting it can change is said in one sentence; anything else is a bug.
  if (!(error instanceof StartupError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const { context } = runtime;
context.metrics.collectProcessMetrics();

if (role !== 'api') {
  await startWorkers(runtime);
}

const readiness = readinessOf(context.db, role === 'api' ? undefined : runtime.jobs.boss);
const metricsApp = config.metrics.port === undefined ? undefined : await buildMetricsApp(context, readiness);
await metricsApp?.listen({ port: config.metrics.port, host: config.metrics.host });
const app = role === 'worker' ? undefined : await buildApp(context, operations, { readiness });
if (app) {
  await app.listen({ port: config.port, host: config.host });
  const businesses = await context.db.selectFrom('businesses').select('id').limit(1).execute();
  if (businesses.length === 0) {
    console.log('\nNo business yet. Next, create a demo business and a Test key:\n\n  npm run --silent cli -- demo\n');
  }
}

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.error(`${signal}: shutting down`);
  await app?.close();
  await metricsApp?.close();
  await runtime.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
