import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './core/config.ts';
import { StartupError } from './core/errors.ts';
import { buildApp, buildMetricsApp } from './app.ts';
import { readinessOf } from './health.ts';
import { operations } from './operations.ts';
import { openRuntime, startWorkers, type Runtime } from './runtime.ts';
import { startDetection, type Detection } from './processor/detection.ts';
import { registerProcessorMetrics } from './processor/metrics.ts';
import { scanChecks } from './processor/status.ts';

// The process: config -> database -> migrations -> jobs -> HTTP, and a graceful stop on
// SIGINT/SIGTERM. --role api serves HTTP only, --role worker runs only the background jobs
// (pg-boss workers and schedules), --role all (the default) does both. --role processor watches
// the configured chains for Live deposits (issue 22, in progress: detection only, and not yet part
// of all). METRICS_PORT adds a listener for /metrics, /healthz and /readyz in every role.
const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' } } });
const role = values.role ?? 'all';
if (!['api', 'worker', 'processor', 'all'].includes(role)) {
  console.error('--role must be api, worker, processor or all');
  process.exit(2);
}

let config: Config;
let runtime: Runtime;
let detection: Detection | undefined;
try {
  config = loadConfig();
  if (role === 'processor' && config.networks.length === 0) {
    throw new StartupError('--role processor watches the networks whose RPC URL is set, and none is: set POLYGON_RPC_URL, BASE_RPC_URL or ETHEREUM_RPC_URL.');
  }
  runtime = await openRuntime(config);
  if (role === 'processor') {
    const { context } = runtime;
    detection = await startDetection({ db: context.db, databaseUrl: runtime.databaseUrl, clock: context.clock, networks: config.networks })
      .catch(async (error: unknown) => {
        await runtime.close();
        throw error;
      });
    console.log(`Watching ${config.networks.map((network) => network.name).join(', ')} for Live deposits (${detection.watched.size} addresses).`);
  }
} catch (error) {
  // What the person starting it can change is said in one sentence; anything else is a bug.
  if (!(error instanceof StartupError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const { context } = runtime;
context.metrics.collectProcessMetrics();

if (role === 'worker' || role === 'all') {
  await startWorkers(runtime);
}

// The processor's series and its readiness (a scan of every network it watches within 2 minutes), on the METRICS_PORT listener.
const watching = detection === undefined ? [] : config.networks.map((network) => network.name);
if (watching.length > 0) registerProcessorMetrics(context.metrics.registry, context.db, context.clock, watching);
const readiness = readinessOf(context.db, role === 'worker' || role === 'all' ? runtime.jobs.boss : undefined,
  watching.length > 0 ? scanChecks(context.db, () => context.clock.now(), watching) : undefined);
const metricsApp = config.metrics.port === undefined ? undefined : await buildMetricsApp(context, readiness);
await metricsApp?.listen({ port: config.metrics.port, host: config.metrics.host });
const app = role === 'worker' || role === 'processor' ? undefined : await buildApp(context, operations, { readiness });
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
  await detection?.stop();
  await metricsApp?.close();
  await runtime.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
