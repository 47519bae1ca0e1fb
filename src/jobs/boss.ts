import { PgBoss, type Clock as BossClock } from 'pg-boss';
import { jobSender, QUEUES, type JobSender } from './queues.ts';

export const BOSS_SCHEMA = 'pgboss';

export interface JobWorkers {
  /** Expires due payments; returns how many. */
  expirePayments(): Promise<number>;
  /** Deletes what is kept only for a while; returns how many rows. */
  forgetExpired(): Promise<number>;
}

export interface Jobs {
  boss: PgBoss;
  sender: JobSender;
  /** Starts the workers and schedules of this process (role worker or all). */
  work(workers: JobWorkers): Promise<void>;
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
  // attempt its own job; pg-boss retries only a worker that crashed mid-attempt.
  if (!existing.has(QUEUES.delivery)) await boss.createQueue(QUEUES.delivery, { retryLimit: 2, retryDelay: 30, expireInSeconds: 60 });
  if (!existing.has(QUEUES.expiry)) await boss.createQueue(QUEUES.expiry, { retryLimit: 1, expireInSeconds: 120 });
  if (!existing.has(QUEUES.retention)) await boss.createQueue(QUEUES.retention, { retryLimit: 1, expireInSeconds: 600 });
}

export async function startJobs(connectionString: string, options: { clock?: BossClock; log?: (error: Error) => void } = {}): Promise<Jobs> {
  const boss = new PgBoss({
    connectionString,
    schema: BOSS_SCHEMA,
    max: 4,
    application_name: 'payment-service-jobs',
    ...(options.clock ? { clock: options.clock } : {}),
  });
  boss.on('error', (error: Error) => options.log?.(error));
  await boss.start();
  await createQueues(boss);
  return {
    boss,
    sender: jobSender(boss),
    async work(workers) {
      await boss.schedule(QUEUES.expiry, '* * * * *');
      await boss.work(QUEUES.expiry, async () => {
        await workers.expirePayments();
      });
      await boss.schedule(QUEUES.retention, '17 * * * *');
      await boss.work(QUEUES.retention, async () => {
        await workers.forgetExpired();
      });
    },
    stop: () => boss.stop({ graceful: true, timeout: 10_000 }),
  };
}
