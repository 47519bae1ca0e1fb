import { existsSync } from 'node:fs';
import { StartupError } from './core/errors.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { ensureDataDir } from './core/data-dir.ts';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { AUTH_CHANGES } from './db/auth-changes.ts';
import { listenForNotifications } from './db/notifications.ts';
import { RowWaits } from './db/row-waits.ts';
import { PAYMENT_CHANGED } from './resources/payments/wait.ts';
import type { Config } from './core/config.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { receiptMail, heldNoticeMail } from './pages/mails/payment.ts';
import { heldForStaffMail } from './dashboard/mails/held-payment.ts';
import type { AppContext } from './verbs/context.ts';
import { SecretBox } from './core/secret-box.ts';
import { DepositAddresses } from './core/deposit-addresses.ts';
import { embeddedDepositXpub } from './core/deposit-wallet.ts';
import { openDatabase, type Db } from './db/database.ts';
import { startEmbedded } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { BOSS_TEST_CLOCK_SETTING, startJobs, type Jobs } from './jobs/boss.ts';
import { forgetIdempotencyKeys } from './resources/checkout-sessions/idempotency.ts';
import { forgetDeliveryHistory } from './webhooks/retention.ts';
import { forgetExpiredNotices } from './auth/notices.ts';
import { forgetExpiredSessions } from './auth/sessions.ts';
import { forgetOldProcessorNotices } from './resources/processor-notices/retention.ts';
import { forgetOAuthLeftovers } from './agents/retention.ts';
import { expireDuePayments, oldestUnexpiredDueAt } from './resources/payments/expire.ts';
import { requeueOverdue, runDeliveryJob } from './webhooks/deliveries.ts';
import { deliveryBacklog } from './webhooks/backlog.ts';
import { Metrics } from './core/metrics.ts';
import { runReplayJob } from './webhooks/replays/run.ts';
import { forgetOldMail } from './mail/outbox.ts';
import { refreshFxRates } from './resources/fx-rates/refresh.ts';
import { ratesInEffect } from './resources/fx-rates/rates.ts';
import { forgetStaleWalletChanges } from './resources/businesses/wallet-change.ts';
import { sendOutboxMail } from './mail/send.ts';
import { SmtpMailer } from './mail/smtp.ts';
import { OutboundClient } from './net/outbound-client.ts';
import { OwnPorts } from './net/own-ports.ts';
import { resolveHost } from './net/resolve.ts';
import { AccessTokens } from './auth/access-tokens.ts';
import { SigningKeys } from './auth/signing-keys.ts';
import type { Clock as BossClock } from 'pg-boss';

// What the server, the CLI, the tests and the benchmarks share: the database (embedded unless
// DATABASE_URL is set), migrations, and the application context.

export interface Runtime extends AppHandle {
  databaseUrl: string;
  /** The embedded PostgreSQL in use, when DATABASE_URL is unset: its folder, and whether this process started it. */
  embedded: { clusterDir: string; port: number; startedHere: boolean } | undefined;
}

/**
 * A secret kept under DATA_DIR when the environment does not set it (the embedded default):
 * made once, mode 0600. 'wx': when two processes start at once, the first one written wins.
 */
async function dataSecret(config: Pick<Config, 'dataDir'>, file: string, make: () => string): Promise<string> {
  const target = path.join(config.dataDir, file);
  if (!existsSync(target)) {
    await ensureDataDir(config.dataDir);
    await writeFile(target, `${make()}\n`, { mode: 0o600, flag: 'wx' }).catch(() => undefined);
  }
  return (await readFile(target, 'utf8')).trim();
}

const KEY_FILE = 'secret-encryption.key';

/**
 * The deposit wallet's public key: from the environment, else DATA_DIR. Without a processor's key
 * the embedded default makes its own HD wallet; the seed stays in DATA_DIR so whoever runs it can
 * sweep what test deposits arrive, and the service reads its xpub.
 */
export async function depositXpubOf(config: Config, options: { readsSeed?: boolean } = {}): Promise<string> {
  return config.depositXpub ?? embeddedDepositXpub(config.dataDir, { readsSeed: options.readsSeed ?? false });
}

export interface Secrets {
  encryptionKey: Buffer;
  depositXpub: string;
  processorSecret: string;
}

/**
 * The process's secrets: from the environment, else from DATA_DIR. `readsSeed`: the role may read
 * the deposit seed (the all-in-one, the processor) to write a missing xpub beside it.
 */
export async function loadSecrets(config: Config, options: { readsSeed?: boolean } = {}): Promise<Secrets> {
  const encryptionKey = config.secretEncryptionKey
    ?? Buffer.from(await dataSecret(config, KEY_FILE, () => randomBytes(32).toString('base64')), 'base64');
  const depositXpub = await depositXpubOf(config, options);
  const processorSecret = config.processorSecret ?? await dataSecret(config, 'processor.secret', () => randomBytes(32).toString('base64url'));
  return { encryptionKey, depositXpub, processorSecret };
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
export async function openAppContext(databaseUrl: string, config: Config, options: {
  clock?: Clock;
  bossClock?: BossClock;
  secrets: Secrets;
  /** Extra certificate authorities webhook sends trust (tests serving https on loopback). */
  webhookCa?: string;
}): Promise<AppHandle> {
  // Jobs queued inside our statements take their times from pg-boss's job_now(): on a test
  // clock, our sessions must read the clock pg-boss's own sessions read.
  const handle = openDatabase(databaseUrl, config.dbPoolSize, { prepare: true, ...(options.bossClock ? { settings: { [BOSS_TEST_CLOCK_SETTING]: 'on' } } : {}) });
  // One connection LISTENs for the whole process: credential changes and payment status changes.
  const paymentWaits = new RowWaits();
  const authChanges = listenForNotifications(databaseUrl, [AUTH_CHANGES, paymentWaits.channel(PAYMENT_CHANGED)]);
  const jobs = await startJobs(databaseUrl, { clock: options.bossClock, log: (error) => console.error(`[jobs] ${error.message}`) }).catch(async (error: unknown) => {
    await authChanges.close();
    await handle.close();
    throw error;
  });
  // What this process knows of the deployment's listeners on this machine (every role shares the
  // configuration); each listener adds the port it bound (PORT=0), app.ts.
  const ownPorts = new OwnPorts();
  for (const port of [config.port, config.metrics.port, config.embeddedPgPort]) ownPorts.add(port);
  for (const url of [databaseUrl, config.baseUrl, config.processorNoticesUrl]) ownPorts.addUrl(url);
  const outbound = new OutboundClient({
    resolveHost: (host) => context.resolveHost(host),
    timeoutMs: config.webhooks.timeoutMs,
    connectionsPerOrigin: config.webhooks.concurrency,
    testLoopback: config.webhooks.testLoopback,
    ownPorts,
    ca: options.webhookCa,
  });
  const clock = options.clock ?? systemClock;
  const secrets = new SecretBox(options.secrets.encryptionKey);
  const signingKeys = new SigningKeys(handle.db, secrets, clock);
  const { pool } = handle;
  const metrics = new Metrics({
    deliveryBacklog: () => deliveryBacklog(handle.db, clock.now()),
    oldestUnexpiredDueAt: () => oldestUnexpiredDueAt(handle.db, clock.now()),
    fxRates: async () => (await ratesInEffect(handle.db).where('f.currency', '<>', 'USD').execute())
      .map((rate) => ({ currency: rate.currency, source: rate.source, asOf: rate.as_of })),
    fxRateMaxAgeSeconds: config.fxRates.maxAgeHours * 3600,
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: config.dbPoolSize }),
    now: () => clock.now(),
  });
  const context: AppContext = {
    db: handle.db,
    clock,
    config,
    secrets,
    resolveHost,
    authChanges,
    jobs: jobs.sender,
    deposits: new DepositAddresses(options.secrets.depositXpub),
    processorSecret: options.secrets.processorSecret,
    outbound,
    ownPorts,
    signingKeys,
    accessTokens: new AccessTokens(signingKeys, config.oauthIssuer, clock),
    metrics,
    paymentWaits,
    paymentMails: { receipt: receiptMail, heldNotice: heldNoticeMail, heldForStaff: heldForStaffMail },
  };
  return {
    context,
    jobs,
    async close() {
      paymentWaits.close();
      await jobs.stop();
      await outbound.close();
      await authChanges.close();
      await handle.close();
    },
  };
}

/**
 * Refuses to start with an encryption key that does not open what the database already holds
 * sealed (a webhook endpoint's signing secret, an agent signing key), before any key is made: a
 * lost `DATA_DIR/secret-encryption.key` was otherwise replaced by a new one without a word, and
 * every webhook delivery and agent sign-in then failed while the service looked healthy.
 */
async function checkEncryptionKey(db: Db, config: Config): Promise<void> {
  const sealed = (await db.selectFrom('webhook_endpoints').select('secret_encrypted as sealed').where('secret_encrypted', 'is not', null).limit(1).executeTakeFirst())?.sealed
    ?? (await db.selectFrom('oauth_signing_keys').select('private_jwk_encrypted as sealed').limit(1).executeTakeFirst())?.sealed;
  if (sealed === undefined || sealed === null) return;
  const sealedWhat = '(webhook endpoints\' signing secrets, agents\' signing keys)';
  const file = path.join(config.dataDir, KEY_FILE);
  if (!config.secretEncryptionKey && !existsSync(file)) {
    throw new StartupError(`${file} is missing, and this database holds secrets sealed with a key ${sealedWhat}: put back the file kept with this database's backup, or set SECRET_ENCRYPTION_KEY to that key. A new key would open none of them, so none is made.`);
  }
  const key = config.secretEncryptionKey ?? Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  try {
    new SecretBox(key).open(sealed);
  } catch {
    const source = config.secretEncryptionKey ? 'SECRET_ENCRYPTION_KEY' : file;
    throw new StartupError(`The encryption key (${source}) does not open the secrets this database holds ${sealedWhat}: put back the key kept with this database's backup.`);
  }
}

/** `checksKey: false` for the processor, which opens nothing sealed (its host need not hold the key). */
export async function openRuntime(config: Config, options: { clock?: Clock; log?: (line: string) => void; readsSeed?: boolean; checksKey?: boolean } = {}): Promise<Runtime> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbedded({ dataDir: config.dataDir, port: config.embeddedPgPort, log: options.log });
  const databaseUrl = config.databaseUrl ?? embedded?.url ?? '';
  try {
    const migrator = openDatabase(databaseUrl, 1);
    let secrets: Secrets;
    try {
      await migrate(migrator.db);
      if (options.checksKey !== false) await checkEncryptionKey(migrator.db, config);
      secrets = await loadSecrets(config, { readsSeed: options.readsSeed });
    } finally {
      await migrator.close();
    }
    const app = await openAppContext(databaseUrl, config, { clock: options.clock, secrets });
    return {
      ...app,
      databaseUrl,
      embedded: embedded && { clusterDir: embedded.clusterDir, port: embedded.port, startedHere: embedded.owned },
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

/**
 * The hourly retention: everything kept only for a while, each kind in its own statements (in
 * batches), so one kind's backlog never holds up another. Returns how many rows went.
 */
export async function forgetExpired(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  let total = 0;
  for (const forget of [forgetIdempotencyKeys, forgetDeliveryHistory, forgetExpiredSessions, forgetExpiredNotices, forgetOAuthLeftovers, forgetOldMail, forgetStaleWalletChanges, forgetOldProcessorNotices]) total += await forget(ctx);
  return total;
}

/**
 * Starts this process's background work (role worker or all): payment expiry, retention,
 * webhook delivery and mail (over SMTP when SMTP_URL is set). A graceful stop waits for
 * deliveries in flight up to their time limit.
 */
export async function startWorkers(app: AppHandle, options: { deliveryIdlePollMs?: number } = {}): Promise<void> {
  const { context } = app;
  const { smtpUrl, from } = context.config.mail;
  const mailer = smtpUrl ? new SmtpMailer({ smtpUrl, from }) : undefined;
  await app.jobs.work({
    expirePayments: () => expireDuePayments(context),
    forgetExpired: () => forgetExpired(context),
    requeueOverdue: () => requeueOverdue(context),
    deliver: (job) => runDeliveryJob(context, job),
    replayDeliveries: (job) => runReplayJob(context, job),
    sendMail: (job) => sendOutboxMail({ ...context, mailer }, job),
    refreshFxRates: async () => void (await refreshFxRates(context)),
  }, {
    deliveryConcurrency: context.config.webhooks.concurrency,
    endpointConcurrency: context.config.webhooks.endpointConcurrency,
    ...options,
    stopTimeoutMs: context.config.webhooks.timeoutMs + 5_000,
  });
}
