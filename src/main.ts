import { loadConfig } from './config.ts';
import { buildApp } from './http/app.ts';
import { operations } from './operations.ts';
import { openRuntime } from './runtime.ts';

// The process: config -> database -> migrations -> HTTP, and a graceful stop on SIGINT/SIGTERM.

const config = loadConfig();
const runtime = await openRuntime(config);
const app = await buildApp(runtime.context, operations);
await app.listen({ port: config.port, host: config.host });

const businesses = await runtime.context.db.selectFrom('businesses').select('id').limit(1).execute();
if (businesses.length === 0) {
  app.log.info('No business yet. Create a demo business and a Test key with: npm run --silent cli -- demo');
  console.log('\nNo business yet. Next, create a demo business and a Test key:\n\n  npm run --silent cli -- demo\n');
}

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down');
  await app.close();
  await runtime.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
