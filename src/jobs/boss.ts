import { PgBoss, type Clock as BossClock } from 'pg-boss';
import { Dispatcher } from './dispatcher.ts';
import { DELIVERY_CHANNEL, jobSender, MAIL_RETRIES, QUEUES, type DeliveryJobData, type JobSender, type MailJobData, type ReplayJobData } from './queues.ts';

export const BOSS_SCHEMA = 'pgboss';
/**
 * How often an idle delivery worker looks for due jobs: retries coming due, and new deliveries
 * whose notification was lost (the listening connection down); new ones wake it at once.
 */
export const DELIVERY_IDLE_POLL_MS = 200;
/** The session setting that makes pg-boss's job_now() read an attached TestClock's time. */
export const BOSS_TEST_CLOCK_SETTING = 'pgboss.test_clock';

export interface JobWorkers {
  /** Expires due payments; returns how many. */
  expirePayments(): Promise<number>;
  /** Deletes what is kept only for a while; returns how many rows. */
  forgetExpired(): Promise<number>;
  /** Re-queues deliveries whose job was lost; returns how many. */
  requeueOverdue(): Promise<number>;
  /** Makes the delivery attempt a job asks for; throws only when it could not be recorded. */
  deliver(job: { id: string; data: Partial<DeliveryJobData> }): Promise<void>;
  /** Sends a batch of a replay's deliveries, and queues the next batch while any is left. */
  replayDeliveries(job: { id: string; data: Partial<ReplayJobData> }): Promise<void>;
  /** Sends one outbox mail; throws when it should be tried again (pg-boss retries with backoff). */
  sendMail(job: { id: string; data: Partial<MailJobData>; retryCount: number }): Promise<void>;
  /** Fetches the exchange rate feed and stores what passes its checks. */
  refreshFxRates(): Promise<void>;
}

export interface WorkOptions {
  /** Deliveries in flight at once in this process. */
  deliveryConcurrency: number;
  /** Deliveries to one endpoint in flight at once, across every worker process. */
  endpointConcurrency: number;
  /** How often an idle delivery worker polls (default DELIVERY_IDLE_POLL_MS). */
  deliveryIdlePollMs?: number;
  /** How long a graceful stop waits for deliveries in flight. */
  stopTimeoutMs: number;
}

export interface Jobs {
  boss: PgBoss;
  sender: JobSender;
  /** Starts the workers and schedules of this process (role worker or all). */
  work(workers: JobWorkers, options: WorkOptions): Promise<void>;
  stop(): Promise<void>;
}

/** Installs or upgrades pg-boss's schema (also done by start; used to prepare the test template). */
export async function installJobs(connectionString: string): Promise<void> {
  const boss = new PgBoss({ connectionString, schema: BOSS_SCHEMA, supervise: false, schedule: false, max: 1 });
  boss.on('error', () => undefined);
  await boss.start();
  await createQueues(boss);
  await boss.stop({ graceful: false });
}

async function createQueues(boss: PgBoss): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
  // Delivery attempts are retried by the webhook worker on the spec's own schedule, each
  // attempt its own job; pg-boss retries only a job whose worker died mid-attempt (it comes back
  // once it has been active past its expiry).
  // pg-boss's own NOTIFY is off (it goes to pg-boss's workers, not our dispatcher): the event
  // statement that queues first attempts notifies DELIVERY_CHANNEL itself (JobSender.wakeWorkersFor).
  const delivery = { retryLimit: 5, retryDelay: 30, expireInSeconds: 60, notify: false };
  if (existing.has(QUEUES.delivery)) await boss.updateQueue(QUEUES.delivery, delivery);
  else await boss.createQueue(QUEUES.delivery, delivery);
  if (!existing.has(QUEUES.expiry)) await boss.createQueue(QUEUES.expiry, { retryLimit: 1, expireInSeconds: 120 });
  if (!existing.has(QUEUES.retention)) await boss.createQueue(QUEUES.retention, { retryLimit: 1, expireInSeconds: 600 });
  if (!existing.has(QUEUES.sweep)) await boss.createQueue(QUEUES.sweep, { retryLimit: 1, expireInSeconds: 300 });
  // A replay's batch sends at most 20 deliveries (200 seconds at the time limit), well within its
  // expiry; one cut short comes back after it, and its deliveries already sent are not sent again.
  if (!existing.has(QUEUES.replay)) await boss.createQueue(QUEUES.replay, { retryLimit: 5, retryDelay: 30, expireInSeconds: 300 });
  // An SMTP send that fails is retried by pg-boss with backoff; each send has its own time limits
  // (mail/smtp.ts). Mail jobs are inserted inside our statements, which send no NOTIFY: the
  // worker polls (every 2 seconds) instead of waiting for one.
  const mail = { ...MAIL_RETRIES, expireInSeconds: 180, notify: false };
  if (existing.has(QUEUES.mail)) await boss.updateQueue(QUEUES.mail, mail);
  else await boss.createQueue(QUEUES.mail, mail);
  // One rate fetch queued or running at a time (exclusive), however many workers start at once.
  if (!existing.has(QUEUES.fxRates)) await boss.createQueue(QUEUES.fxRates, { policy: 'exclusive', retryLimit: 2, retryDelay: 60, expireInSeconds: 60 });
}

export async function startJobs(connectionString: string, options: { clock?: BossClock; log?: (error: Error) => void } = {}): Promise<Jobs> {
  const boss = new PgBoss({
    connectionString,
    schema: BOSS_SCHEMA,
    max: 4,
    // No queue of ours has pg-boss's notify on; the delivery worker listens on its own channel.
    useListenNotify: false,
    application_name: 'payment-service-jobs',
    ...(options.clock ? { clock: options.clock } : {}),
  });
  boss.on('error', (error: Error) => options.log?.(error));
  await boss.start();
  await createQueues(boss);
  const [deliveryQueue, mailQueue] = [await boss.getQueue(QUEUES.delivery), await boss.getQueue(QUEUES.mail)];
  if (!deliveryQueue || !mailQueue) throw new Error(`pg-boss queue ${deliveryQueue ? QUEUES.mail : QUEUES.delivery} is missing.`);
  let stopTimeoutMs = 10_000;
  let dispatcher: Dispatcher<Partial<DeliveryJobData>> | undefined;
  let listening: { close(): Promise<void> } | undefined;
  const { log } = options;
  return {
    boss,
    sender: jobSender(boss, { delivery: deliveryQueue.table, mail: mailQueue.table }, BOSS_SCHEMA),
    async work(workers, options) {
      await boss.schedule(QUEUES.expiry, '* * * * *');
      await boss.work(QUEUES.expiry, async () => {
        await workers.expirePayments();
      });
      await boss.schedule(QUEUES.retention, '17 * * * *');
      await boss.work(QUEUES.retention, async () => {
        await workers.forgetExpired();
      });
      // The ECB publishes its rates once a working day, around 16:00 CET: an hourly fetch has
      // them within the hour; one fetch at start gives a fresh install its rates at once.
      await boss.schedule(QUEUES.fxRates, '5 * * * *');
      await boss.work(QUEUES.fxRates, async () => {
        await workers.refreshFxRates();
      });
      await boss.send(QUEUES.fxRates, {});
      await boss.schedule(QUEUES.sweep, '*/5 * * * *');
      await boss.work(QUEUES.sweep, async () => {
        await workers.requeueOverdue();
      });
      // One mail at a time per worker: mail is a few messages an hour, never a stream.
      await boss.work<MailJobData>(QUEUES.mail, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => {
        if (job) await workers.sendMail(job);
      });
      // A replay's batches one after another (each queues the next; a full fetch fetches again at once).
      await boss.work<ReplayJobData>(QUEUES.replay, { batchSize: 1, pollingIntervalSeconds: 5, burstWhenBatchFull: true }, async ([job]) => {
        if (job) await workers.replayDeliveries(job);
      });
      // Deliveries each on their own, up to the concurrency, and up to the endpoint's share (the
      // job's group is its endpoint): a slow endpoint holds up only its own.
      const deliveries = new Dispatcher<Partial<DeliveryJobData>>(boss, QUEUES.delivery, (job) => workers.deliver(job), {
        concurrency: options.deliveryConcurrency,
        groupConcurrency: options.endpointConcurrency,
        idlePollMs: options.deliveryIdlePollMs ?? DELIVERY_IDLE_POLL_MS,
        log: (error) => log?.(error),
      });
      dispatcher = deliveries;
      stopTimeoutMs = options.stopTimeoutMs;
      deliveries.start();
      // pg-boss's listener: its own connection, reconnected with backoff, checked by a heartbeat;
      // on each (re)connect the worker looks once for what it may have missed. Without it, polling.
      listening = await boss.getDb().listen?.(DELIVERY_CHANNEL, () => deliveries.wake(), () => deliveries.wake())
        .catch((error: unknown) => {
          log?.(new Error(`Listening for new deliveries failed; polling every ${options.deliveryIdlePollMs ?? DELIVERY_IDLE_POLL_MS} ms instead: ${(error as Error).message}`));
          return undefined;
        });
    },
    // A graceful stop lets the deliveries in flight finish; one cut short comes back after its expiry.
    async stop() {
      await listening?.close();
      await dispatcher?.stop(stopTimeoutMs);
      await boss.stop({ graceful: true, timeout: stopTimeoutMs });
    },
  };
}
