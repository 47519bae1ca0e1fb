import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { lookup } from 'node:dns/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { listenForAuthChanges } from './auth/changes.ts';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './core/clock.ts';
import type { AppContext } from './core/context.ts';
import { SecretBox } from './core/secret-box.ts';
import { openDatabase } from './db/database.ts';
import { startEmbedded } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { startJobs, type Jobs } from './jobs/boss.ts';
import type { Clock as BossClock } from 'pg-boss';

// What the server, the CLI, the tests and the benchmarks share: the database (embedded unless
// DATABASE_URL is set), migrations, and the application context.

export interface Runtime extends AppHandle {
  databaseUrl: string;
}

async function encryptionKey(config: Config): Promise<Buffer> {
  if (config.secretEncryptionKey) return config.secretEncryptionKey;
  const file = path.join(config.dataDir, 'secret-encryption.key');
  if (!existsSync(file)) {
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    // 'wx': when two processes start at once, the first key written wins and both read it.
    await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' }).catch(() => undefined);
  }
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
}

// A resolver that stalls must not hold a request: past this, the name counts as not resolving now.
const LOOKUP_TIMEOUT_MS = 2_000;

export async function resolveHost(hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup of ${hostname} timed out`)), LOOKUP_TIMEOUT_MS);
  });
  try {
    const answers = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
    return answers.map((answer) => answer.address);
  } finally {
    clearTimeout(timer);
  }
}

export interface AppHandle {
  context: AppContext;
  jobs: Jobs;
  close(): Promise<void>;
}

/**
 * The application context on a migrated database: a pool, the credential-change listener and
 * pg-boss (for sending; workers start only where the process's role asks for them).
 */
export async function openAppContext(databaseUrl: string, config: Config, options: { clock?: Clock; bossClock?: BossClock; secretKey: Buffer }): Promise<AppHandle> {
  const handle = openDatabase(databaseUrl, config.dbPoolSize, { prepare: true });
  const authChanges = listenForAuthChanges(databaseUrl);
  const jobs = await startJobs(databaseUrl, { clock: options.bossClock }).catch(async (error: unknown) => {
    await authChanges.close();
    await handle.close();
    throw error;
  });
  const context: AppContext = {
    db: handle.db,
    clock: options.clock ?? systemClock,
    config,
    secrets: new SecretBox(options.secretKey),
    resolveHost,
    authChanges,
    jobs: jobs.sender,
  };
  return {
    context,
    jobs,
    async close() {
      await jobs.stop();
      await authChanges.close();
      await handle.close();
    },
  };
}

export async function openRuntime(config: Config, options: { clock?: Clock; log?: (line: string) => void } = {}): Promise<Runtime> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbedded({ dataDir: config.dataDir, port: config.embeddedPgPort, log: options.log });
  const databaseUrl = config.databaseUrl ?? embedded?.url ?? '';
  try {
    const migrator = openDatabase(databaseUrl, 1);
    await migrate(migrator.db).finally(() => migrator.close());
    const app = await openAppContext(databaseUrl, config, { clock: options.clock, secretKey: await encryptionKey(config) });
    return {
      ...app,
      databaseUrl,
      async close() {
        await app.close();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
