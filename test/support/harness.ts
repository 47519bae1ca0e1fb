import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/core/config.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { AppContext } from '../../src/verbs/context.ts';
import type { Db } from '../../src/db/database.ts';
import type { KeyAccess, KeyKind } from '../../src/db/schema.ts';
import { buildApp } from '../../src/app.ts';
import { readinessOf } from '../../src/health.ts';
import { operations } from '../../src/operations.ts';
import { openAppContext, startWorkers } from '../../src/runtime.ts';
import { TestClock } from 'pg-boss';
import { HDKey } from '@scure/bip32';
import type { Jobs } from '../../src/jobs/boss.ts';
import { createBusiness } from '../../src/tenancy/businesses.ts';
import type { Integration } from '../../src/db/schema.ts';
import { createApiKey } from '../../src/resources/api-keys/create.ts';
import { revokeApiKey } from '../../src/resources/api-keys/revoke.ts';
import { updateBusiness } from '../../src/resources/businesses/update-account.ts';
import { asOperator } from './operator.ts';

// A real app on a real database for one test file: a fresh database cloned from the migrated
// template, the HTTP server on a loopback port, and a clock the tests move.

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  /** The HTTP server itself (a test that measures what it read from a connection listens to it). */
  server: import('node:http').Server;
  db: Db;
  clock: ManualClock;
  /** Moves the app's clock and pg-boss's together, firing the timers due on the way. */
  tick(ms: number): Promise<void>;
  /** Moves both clocks at once, firing nothing on the way (timers passed fire at the next tick). */
  jump(ms: number): Promise<void>;
  jobs: Jobs;
  /** Starts the pg-boss workers now (when the app was started without them). */
  workers(): Promise<void>;
  config: Config;
  context: AppContext;
  /** Every route the app registered, as written (`/dashboard/businesses/:business/:mode/keys`). */
  routes: ReadonlyArray<{ method: string; url: string }>;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  business(changes?: BusinessChanges & { name?: string }): Promise<TestBusiness>;
  close(): Promise<void>;
}

/** A business's settings and terms as tests change them (through the operator's actions). */
export interface BusinessChanges {
  status?: 'active' | 'suspended' | 'archived';
  commerce?: 'active' | 'paused';
  payoutWallet?: string | null;
  cryptoEnabled?: boolean;
  feeBps?: number;
  disable?: Integration[];
  enable?: Integration[];
}

export interface TestBusiness {
  id: string;
  key(options?: { mode?: 'test' | 'live'; access?: KeyAccess; kind?: KeyKind }): Promise<TestKey>;
  update(changes: BusinessChanges): Promise<void>;
}

export interface TestKey {
  id: string;
  secret: string;
  revoke(): Promise<void>;
}

export const LIVE_WALLET = '0x1111111111111111111111111111111111111111';

/** The processor's side of the test wallet: its xpub derives the Live deposit addresses. */
export const TEST_DEPOSIT_WALLET = HDKey.fromMasterSeed(Buffer.alloc(32, 7)).derive("m/44'/60'/0'/0");
export const TEST_PROCESSOR_SECRET = 'test-processor-secret-0123456789abcdef';
/** The secrets of every test app (a CLI run against a test database passes the encryption key). */
export const TEST_SECRETS = { encryptionKey: randomBytes(32), depositXpub: TEST_DEPOSIT_WALLET.publicExtendedKey, processorSecret: TEST_PROCESSOR_SECRET };

async function createDatabase(): Promise<string> {
  const adminUrl = inject('pgUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template_app`);
  } finally {
    await admin.end();
  }
  return adminUrl.replace(/\/postgres$/, `/${name}`);
}

export interface TestAppOptions {
  /** Run the pg-boss workers and schedules (expiry) as `--role all` does. */
  workers?: boolean;
  /** A certificate authority webhook sends trust (an https receiver on loopback). */
  webhookCa?: string;
  /** Where the clock starts (default 2026-10-01 12:00 UTC); real time for tests sharing the database with a real process. */
  clockStart?: number;
  /** Serve at a real origin (BASE_URL http://127.0.0.1:<port>) instead of https://pay.example.test: for a real browser. */
  realOrigin?: boolean;
  /** The process role /readyz checks for (default: all with workers, api without). */
  role?: 'api' | 'all';
  /** Where the app's log lines go (with LOG_LEVEL set in env). */
  logStream?: NodeJS.WritableStream;
  /** How often an idle delivery worker polls (default 200 ms): longer, to see what wakes it sooner. */
  deliveryIdlePollMs?: number;
}

/** A port nothing listens on right now (for servers a test starts itself). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const databaseUrl = await createDatabase();
  const port = options.realOrigin ? await freePort() : 0;
  const baseUrl = options.realOrigin ? `http://127.0.0.1:${port}` : 'https://pay.example.test';
  // No test reaches the ECB: a test of the rate feed serves it on loopback and sets FX_RATES_URL.
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, BASE_URL: baseUrl, DB_POOL_SIZE: '5', FX_RATES_URL: 'off', ...env });
  const clock = new ManualClock(options.clockStart);
  // pg-boss runs on a TestClock kept level with the app's clock: tick() moves both, firing
  // pg-boss's timers (schedules, polls) and moving its time in PostgreSQL too.
  const bossClock = new TestClock(clock.now().getTime());
  const opened = await openAppContext(databaseUrl, config, { clock, bossClock, secrets: TEST_SECRETS, webhookCa: options.webhookCa });
  const { context, jobs } = opened;
  const handle = { db: context.db, close: opened.close };
  const workers = () => startWorkers(opened, { deliveryIdlePollMs: options.deliveryIdlePollMs });
  if (options.workers) await workers();
  async function tick(ms: number): Promise<void> {
    clock.advance(ms);
    await bossClock.tick(clock.now().getTime() - bossClock.now());
  }
  async function jump(ms: number): Promise<void> {
    clock.advance(ms);
    await bossClock.setTime(clock.now().getTime());
  }
  const role = options.role ?? (options.workers ? 'all' : 'api');
  const routes: Array<{ method: string; url: string }> = [];
  const app = await buildApp(context, operations, {
    readiness: readinessOf(context.db, role === 'all' ? jobs.boss : undefined), logStream: options.logStream, onRoute: (route) => routes.push(route),
  });
  await app.listen({ port, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${url}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  let counter = 0;
  async function business(changes: BusinessChanges & { name?: string } = {}): Promise<TestBusiness> {
    counter += 1;
    const created = await createBusiness(handle.db, clock, { name: changes.name ?? `Business ${counter}`, ownerEmail: `owner${counter}@shop.example` });
    const id = created.id;
    const update = async (next: BusinessChanges) => {
      await updateBusiness.run(await asOperator(context, id), {
        commerce: next.commerce, payout_wallet: next.payoutWallet, crypto_enabled: next.cryptoEnabled,
        disable: next.disable, enable: next.enable, status: next.status, fee_bps: next.feeBps,
      });
    };
    // The wallet a test business starts with is its initial state, not a change someone made
    // (a change is mailed to the owners); what a test asks for goes through the operator.
    await handle.db.updateTable('businesses').set({ payout_wallet: LIVE_WALLET }).where('id', '=', id).execute();
    await update(changes);
    return {
      id,
      update,
      async key(options = {}) {
        const operator = await asOperator(context, id, options.mode === 'live');
        const key = await createApiKey.run(operator, { access: options.access, kind: options.kind });
        return { id: key.id, secret: key.secret, revoke: async () => void (await revokeApiKey.run(operator, { id: key.id })) };
      },
    };
  }

  return {
    url,
    server: app.server,
    routes,
    db: handle.db,
    clock,
    tick,
    jump,
    jobs,
    workers,
    config,
    context,
    request,
    business,
    async close() {
      await app.close();
      await handle.close();
    },
  };
}
