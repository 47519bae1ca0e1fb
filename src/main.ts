import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './core/config.ts';
import { StartupError } from './core/errors.ts';
import { buildApp, buildMetricsApp } from './app.ts';
import { readinessOf } from './health.ts';
import { operations } from './operations.ts';
import { depositXpubOf, openRuntime, startWorkers, type Runtime } from './runtime.ts';
import { startProcessor, type Processor } from './processor/processor.ts';
import { startX402Submissions } from './processor/x402/submissions.ts';
import { ForwardChain } from './processor/chain/forward-chain.ts';
import { requireFeeWallet, startForwarding, type Forwarding } from './processor/forwarding/forwarding.ts';
import { loadProcessorKeys, type ProcessorKeys } from './processor/chain/keys.ts';
import { PROCESSOR_NOTICES_PATH } from './http/processor.ts';
import { registerProcessorMetrics } from './processor/operating/metrics.ts';
import { registerForwardingMetrics } from './processor/forwarding/forwarding-metrics.ts';
import { scanChecks } from './processor/operating/status.ts';
import { forwardingChecks } from './processor/forwarding/forwarding-health.ts';
import { startupLines } from './startup.ts';

// The process: config -> database -> migrations -> jobs -> HTTP, and a graceful stop on
// SIGINT/SIGTERM. --role api serves HTTP only, --role worker runs only the background jobs
// (pg-boss workers and schedules), --role processor watches the configured chains for Live
// deposits, forwards them and signs its notices to the service (issue 22); --role all (the
// default) does all three, the processor only when a network's RPC URL is set. METRICS_PORT adds a
// listener for /metrics, /healthz and /readyz in every role.
const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' } } });
const role = values.role ?? 'all';
if (!['api', 'worker', 'processor', 'all'].includes(role)) {
  console.error('--role must be api, worker, processor or all');
  process.exit(2);
}

let config: Config;
let runtime: Runtime;
let processor: Processor | undefined;
let forwarding: Forwarding | undefined;
let keys: ProcessorKeys | undefined;
// The deposit seed is the all-in-one's and the processor's; the API and worker read only its xpub.
const readsSeed = role === 'all' || role === 'processor';
try {
  config = loadConfig();
  if (role === 'processor' && config.networks.length === 0) {
    throw new StartupError('--role processor watches the networks whose RPC URL is set, and none is: set POLYGON_RPC_URL, BASE_RPC_URL or ETHEREUM_RPC_URL.');
  }
  if ((role === 'processor' || role === 'all') && config.networks.length > 0) {
    // Only this role reads the deposit seed; it must be the wallet the service derives addresses from.
    requireFeeWallet(config.processor.feeWallet);
    keys = await loadProcessorKeys({ seedFile: config.processor.seedFile, dataDir: config.dataDir, serviceXpub: await depositXpubOf(config, { readsSeed }) });
  }
  runtime = await openRuntime(config, { readsSeed, checksKey: role !== 'processor' });
} catch (error) {
  // What the person starting it can change is said in one sentence; anything else is a bug.
  if (!(error instanceof StartupError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const { context } = runtime;
context.metrics.collectProcessMetrics();
// A signal while it starts (it answers /healthz before the processor runs) is kept, and the
// process stops gracefully once started, instead of dying of it mid-start.
let signalled: string | undefined;
const duringStart = (signal: NodeJS.Signals) => {
  signalled ??= signal;
};
process.on('SIGINT', duringStart);
process.on('SIGTERM', duringStart);

if (role === 'worker' || role === 'all') {
  await startWorkers(runtime);
}

// The processor's series wherever it runs; its readiness (each network scanned within 2 minutes or 4 polls,
// and its forwards able to happen) only in --role processor, so a chain's RPC trouble or an empty
// gas wallet never takes the all-in-one's API out of service.
const watching = role === 'processor' || role === 'all' ? config.networks.map((network) => network.name) : [];
if (watching.length > 0) {
  registerProcessorMetrics(context.metrics.registry, context.db, context.clock, watching);
  registerForwardingMetrics(context.metrics.registry, context.db, watching, () => context.clock.now());
}
const processorChecks = (db: typeof context.db, now: () => Date, networks: string[], pollMs: number) => {
  const [scans, forwards] = [scanChecks(db, now, networks, pollMs), forwardingChecks(db, now, networks)];
  return async () => ({ ...await scans(), ...await forwards() });
};
const readiness = readinessOf(context.db, role === 'worker' || role === 'all' ? runtime.jobs.boss : undefined,
  role === 'processor' ? processorChecks(context.db, () => context.clock.now(), watching, config.processorPollMs) : undefined);
const metricsApp = config.metrics.port === undefined ? undefined : await buildMetricsApp(context, readiness);
await metricsApp?.listen({ port: config.metrics.port, host: config.metrics.host });
const app = role === 'worker' || role === 'processor' ? undefined : await buildApp(context, operations, { readiness });
if (app) {
  await app.listen({ port: config.port, host: config.host });
  const businesses = await context.db.selectFrom('businesses').select('id').limit(1).execute();
  console.log(startupLines(config.baseUrl, businesses.length > 0));
}

if (keys) {
  // The all-in-one posts its notices to its own listener; a processor of its own, to the service's address.
  const address = app?.server.address();
  const listening = address && typeof address === 'object' ? address : undefined;
  const url = config.processorNoticesUrl ?? (listening
    ? `http://${listening.family === 'IPv6' ? `[${listening.address}]` : listening.address}:${listening.port}${PROCESSOR_NOTICES_PATH}`
    : `${config.baseUrl}${PROCESSOR_NOTICES_PATH}`);
  try {
    forwarding = await startForwarding({ db: context.db, clock: context.clock, networks: config.networks, keys, feeWallet: config.processor.feeWallet });
    const x402 = startX402Submissions({ db: context.db, clock: context.clock, networks: config.networks, keys, chainOf: (network) => new ForwardChain(network) });
    processor = await startProcessor({
      db: context.db, databaseUrl: runtime.databaseUrl, clock: context.clock, networks: config.networks,
      // Buyers' x402 authorizations first: a buyer's request waits for them.
      sender: { url, secret: context.processorSecret }, deposits: context.deposits, steps: [x402.submitNetwork, forwarding.forwardNetwork],
    }, { pollMs: config.processorPollMs, hurry: x402.busy });
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    console.error(error.message);
    await app?.close();
    await metricsApp?.close();
    await runtime.close();
    process.exit(1);
  }
  console.log(`Watching ${config.networks.map((network) => network.name).join(', ')} for Live deposits (${processor.detection.watched.size} addresses); notices go to ${url}.`);
}

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.error(`${signal}: shutting down`);
  await app?.close();
  await processor?.stop();
  await forwarding?.stop();
  await metricsApp?.close();
  await runtime.close();
  process.exit(0);
}
process.off('SIGINT', duringStart);
process.off('SIGTERM', duringStart);
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
if (signalled) await stop(signalled);
