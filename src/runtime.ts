import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { lookup } from 'node:dns/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './core/clock.ts';
import type { AppContext } from './core/context.ts';
import { SecretBox } from './core/secret-box.ts';
import { openDatabase } from './db/database.ts';
import { startEmbedded } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';

// What the server, the CLI and the benchmarks share: the database (embedded unless
// DATABASE_URL is set), migrations, and the application context.

export interface Runtime {
  context: AppContext;
  databaseUrl: string;
  close(): Promise<void>;
}

async function encryptionKey(config: Config): Promise<Buffer> {
  if (config.secretEncryptionKey) return config.secretEncryptionKey;
  const file = path.join(config.dataDir, 'secret-encryption.key');
  if (existsSync(file)) return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' }).catch(async () => undefined);
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
}

export async function resolveHost(hostname: string): Promise<string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

export async function openRuntime(config: Config, options: { clock?: Clock; log?: (line: string) => void } = {}): Promise<Runtime> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbedded({ dataDir: config.dataDir, port: config.embeddedPgPort, log: options.log });
  const databaseUrl = config.databaseUrl ?? embedded?.url ?? '';
  const handle = openDatabase(databaseUrl, config.dbPoolSize);
  try {
    await migrate(handle.db);
    const context: AppContext = {
      db: handle.db,
      clock: options.clock ?? systemClock,
      config,
      secrets: new SecretBox(await encryptionKey(config)),
      resolveHost,
    };
    return {
      context,
      databaseUrl,
      close: async () => {
        await handle.close();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await handle.close();
    await embedded?.stop();
    throw error;
  }
}
