import { fromKysely } from 'pg-boss';
import type { PgBoss } from 'pg-boss';
import type { Db } from '../db/database.ts';

// The pg-boss queues, and sending to them inside the caller's transaction, so a job exists
// exactly when the change that asked for it committed.
export const QUEUES = {
  /** One job per delivery attempt of a webhook event (sent by the webhook worker). */
  delivery: 'webhook-delivery',
  /** Every minute: expire unpaid payments whose time is up, with payment.expired. */
  expiry: 'expire-payments',
  /** Every hour: forget what is kept only for a while (Idempotency-Keys after 24 hours). */
  retention: 'retention',
  /** Every five minutes: re-queue deliveries whose job was lost. */
  sweep: 'webhook-sweep',
} as const;

/** A delivery job: which attempt (1 to 7) of which delivery it makes. */
export interface DeliveryJobData {
  deliveryId: string;
  attempt: number;
}

export interface JobSender {
  /** Queues the first attempt of each delivery, in the transaction `db` belongs to. */
  enqueueDeliveries(db: Db, deliveryIds: readonly string[]): Promise<void>;
  /** Queues a later attempt of a delivery, to start at `startAfter`, in the transaction `db` belongs to. */
  enqueueAttempt(db: Db, job: DeliveryJobData, startAfter: Date): Promise<void>;
}

export function jobSender(boss: PgBoss): JobSender {
  return {
    async enqueueDeliveries(db, deliveryIds) {
      if (deliveryIds.length === 0) return;
      const jobs = deliveryIds.map((deliveryId) => ({ data: { deliveryId, attempt: 1 } satisfies DeliveryJobData }));
      await boss.insert(QUEUES.delivery, jobs, { db: fromKysely(db) });
    },
    async enqueueAttempt(db, job, startAfter) {
      await boss.insert(QUEUES.delivery, [{ data: job, startAfter: startAfter.toISOString() }], { db: fromKysely(db) });
    },
  };
}
