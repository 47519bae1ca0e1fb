import { sql } from 'kysely';
import { recordActivity } from '../audit/activity.ts';
import { MINUTE, HOUR, unixSeconds } from '../core/clock.ts';
import { perTurnByKey } from '../core/per-turn.ts';
import type { AppContext } from '../verbs/context.ts';
import type { Db } from '../db/database.ts';
import { ownedBy, type Tenant } from '../db/owned.ts';
import { notFound } from '../core/errors.ts';
import type { AttemptTrigger, DeliveryStatus } from '../db/schema.ts';
import type { DeliveryJobData } from '../jobs/queues.ts';
import type { SendOutcome, OutboundClient } from '../net/outbound-client.ts';
import { cancelPendingDeliveries, removeEndpoints } from '../resources/webhook-endpoints/remove.ts';
import { signatureHeader } from './signature.ts';
import { recordSuccess } from './successes.ts';

// Delivering an event to an endpoint (spec 6.1, 6.3): each automatic attempt is its own pg-boss
// job; a failed attempt records itself and queues the next one on the schedule, in one
// transaction. Attempts are numbered, so a job that runs twice (a worker killed mid-delivery
// comes back after its expiry) never records or schedules twice.

/** Waits after failed attempts 1 to 6; the seventh attempt is the last. */
export const RETRY_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export type DeliveryDeps = Pick<AppContext, 'db' | 'clock' | 'secrets' | 'jobs' | 'outbound' | 'metrics'>;

/** A delivery with what sending it needs: its endpoint as it is now, and the exact body. */
export interface DeliveryTarget {
  id: string;
  kind: 'event' | 'test';
  status: DeliveryStatus;
  attempts: number;
  event_id: string;
  event_type: string;
  body: string;
  endpoint_id: string;
  business_id: string;
  livemode: boolean;
  url: string;
  added_via: 'api' | 'dashboard';
  secret_encrypted: Buffer | null;
  previous_secret_encrypted: Buffer | null;
  previous_secret_expires_at: Date | null;
  deleted_at: Date | null;
  /** When the delivery was written: its event's creation, in the same statement. */
  created_at: Date;
  /** How many erasures had rewritten the body when it was loaded: one more since, and the body sent had details. */
  erasures: number;
}

function targetQuery(db: Db) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as we', 'we.id', 'd.endpoint_id')
    .leftJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id', 'd.kind', 'd.status', 'd.attempts', 'd.event_id', 'we.id as endpoint_id', 'we.business_id', 'we.livemode', 'we.url',
      'we.added_via', 'we.secret_encrypted', 'we.previous_secret_encrypted', 'we.previous_secret_expires_at', 'we.deleted_at', 'd.created_at', 'd.erasures',
      sql<string>`coalesce(d.event_type, e.type)`.as('event_type'),
      sql<string>`coalesce(d.body, e.body)`.as('body'),
    ]);
}

export async function loadTargets(db: Db, deliveryIds: readonly string[]): Promise<Map<string, DeliveryTarget>> {
  if (deliveryIds.length === 0) return new Map();
  // One parameter for any number of ids: one statement text, one prepared plan.
  const rows = await targetQuery(db).where(sql<boolean>`d.id = ANY(${[...deliveryIds]}::text[])`).execute();
  return new Map(rows.map((row) => [row.id, row as DeliveryTarget]));
}

/** One delivery's target, loaded with the others asked for in this turn (a fetch's jobs start in one). */
const loadTarget: (db: Db, deliveryId: string) => Promise<DeliveryTarget | undefined> = perTurnByKey(async (db: Db, ids: readonly string[]) => {
  const targets = await loadTargets(db, ids);
  return ids.map((id) => targets.get(id));
});

/** One delivery of the caller's business and mode (through its endpoint), or not_found. */
export async function getTarget(db: Db, tenant: Tenant, deliveryId: string): Promise<DeliveryTarget> {
  const row = await targetQuery(db).where('d.id', '=', deliveryId).where(ownedBy('we', tenant)).executeTakeFirst();
  if (!row) throw notFound('webhook delivery', deliveryId);
  return row as DeliveryTarget;
}

/**
 * The Service-Signature header for a send now: the current secret, plus the previous one while
 * a roll keeps it (previous_secret_expires_at), each its own v1= entry.
 */
export function signFor(deps: Pick<DeliveryDeps, 'secrets'>, target: DeliveryTarget, now: Date): string {
  if (target.secret_encrypted === null) throw new Error(`Endpoint ${target.endpoint_id} has no signing secret.`);
  const secrets = [deps.secrets.open(target.secret_encrypted)];
  if (target.previous_secret_encrypted !== null && target.previous_secret_expires_at !== null && target.previous_secret_expires_at > now) {
    secrets.push(deps.secrets.open(target.previous_secret_encrypted));
  }
  return signatureHeader(secrets, unixSeconds(now), target.body);
}

/**
 * Signs and sends the delivery's body to its endpoint's current address. A secret that cannot be
 * read (a wrong SECRET_ENCRYPTION_KEY) is a failed attempt like any other, not a lost job.
 */
export async function sendTarget(deps: DeliveryDeps, target: DeliveryTarget): Promise<{ outcome: SendOutcome; sentAt: Date }> {
  const sentAt = deps.clock.now();
  let signature: string;
  try {
    signature = signFor(deps, target, sentAt);
  } catch {
    return { outcome: { ok: false, statusCode: null, error: 'the signing secret could not be read', excerpt: null, durationMs: 0 }, sentAt };
  }
  const outcome = await deps.outbound.post({ url: target.url, livemode: target.livemode, body: target.body, headers: { 'service-signature': signature } });
  return { outcome, sentAt };
}

/**
 * What the endpoint answered, unless an erasure rewrote the body after it was loaded for this
 * send (`erasures`: the delivery's count as the recording, which waits for an erasure holding the
 * row, finds it): an endpoint that echoes the request would keep the details (spec 2.3 rule 7).
 */
export function keptExcerpt(target: Pick<DeliveryTarget, 'erasures'>, outcome: SendOutcome, erasures: number): string | null {
  return erasures === target.erasures ? outcome.excerpt : null;
}

function attemptRow(target: DeliveryTarget, trigger: AttemptTrigger, number: number | null, outcome: SendOutcome, sentAt: Date, erasures: number) {
  return {
    delivery_id: target.id,
    endpoint_id: target.endpoint_id,
    trigger,
    number,
    url: target.url,
    sent_at: sentAt,
    duration_ms: outcome.durationMs,
    succeeded: outcome.ok,
    status_code: outcome.statusCode,
    error: outcome.error,
    response_excerpt: keptExcerpt(target, outcome, erasures),
  };
}

/** The delivery's erasures, once an erasure holding the row has committed (the endpoint's lock, when taken, comes first). */
async function lockedErasures(trx: Db, deliveryId: string): Promise<number> {
  const row = await trx.selectFrom('webhook_deliveries').select('erasures').where('id', '=', deliveryId).forUpdate().executeTakeFirst();
  return row?.erasures ?? 0;
}

/** Whether the endpoint asked to be removed: 410 Gone from an endpoint added through the API (spec 6.3). */
export function isGone(target: DeliveryTarget, outcome: SendOutcome): boolean {
  return outcome.statusCode === 410 && target.added_via === 'api';
}

/**
 * Locks the endpoint of a 410 first thing in the transaction: the endpoint before its
 * deliveries, the order DELETE takes them in, so the two never deadlock.
 */
export async function lockEndpoint(trx: Db, endpointId: string): Promise<void> {
  await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', endpointId).forUpdate().execute();
}

/**
 * Removes an endpoint that answered 410 Gone, as deleting it would, in the caller's transaction
 * (which locked it with lockEndpoint). Only if the 410 came from its current address: an
 * address edited meanwhile is not removed for what the old one said.
 */
export async function removeGoneEndpoint(trx: Db, target: DeliveryTarget, now: Date): Promise<void> {
  const removed = await removeEndpoints(trx, (eb) => eb.and([eb('id', '=', target.endpoint_id), eb('url', '=', target.url)]), now);
  if (removed.length === 0) return;
  await recordActivity(trx, { businessId: target.business_id, livemode: target.livemode, actor: 'service' }, 'webhook_endpoint.removed_gone', target.endpoint_id, { url: target.url }, now);
}

/**
 * Records automatic attempt `number` and what follows from it: success, the next attempt queued
 * on the schedule, or the delivery failed for good (after the seventh, or on 410 Gone from an
 * API endpoint, which also removes the endpoint). Applied only if this attempt was not
 * recorded already; the attempt itself is always logged, since it was sent.
 */
async function recordAutomatic(deps: DeliveryDeps, target: DeliveryTarget, number: number, outcome: SendOutcome, sentAt: Date): Promise<void> {
  const now = deps.clock.now();
  // The common case, a success, is one statement, shared with the other successes of this turn.
  if (outcome.ok) {
    await recordSuccess(deps.db, {
      delivery_id: target.id, endpoint_id: target.endpoint_id, number, url: target.url, sent_at: sentAt,
      duration_ms: outcome.durationMs, status_code: outcome.statusCode, response_excerpt: outcome.excerpt, finished_at: now, erasures: target.erasures,
    });
    return;
  }
  const gone = isGone(target, outcome);
  const last = gone || number >= MAX_ATTEMPTS;
  const nextAttemptAt = last ? null : new Date(now.getTime() + RETRY_DELAYS_MS[number - 1]!);
  // A failure may write more (the next attempt's job, a removal): a transaction.
  await deps.db.transaction().execute(async (trx) => {
    if (gone) await lockEndpoint(trx, target.endpoint_id);
    const applied = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: last ? 'failed' : 'pending',
        attempts: number,
        last_attempt_at: sentAt,
        last_status: outcome.statusCode,
        last_error: outcome.error,
        next_attempt_at: nextAttemptAt,
        finished_at: last ? now : null,
      })
      .where('id', '=', target.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', number - 1)
      .returning(['id', 'erasures'])
      .executeTakeFirst();
    const erasures = applied ? applied.erasures : await lockedErasures(trx, target.id);
    await trx.insertInto('webhook_delivery_attempts').values(attemptRow(target, 'automatic', number, outcome, sentAt, erasures)).execute();
    if (!applied) return;
    if (gone) await removeGoneEndpoint(trx, target, now);
    if (nextAttemptAt) await deps.jobs.enqueueAttempt(trx, { deliveryId: target.id, attempt: number + 1 }, target.endpoint_id, nextAttemptAt);
  });
}

/** Makes automatic attempt `attempt` of a delivery, unless it is already made or no longer due. */
export async function deliverAttempt(deps: DeliveryDeps, target: DeliveryTarget | undefined, attempt: number): Promise<void> {
  if (!target || target.kind !== 'event' || target.status !== 'pending' || target.attempts >= attempt) return;
  if (target.deleted_at !== null || target.secret_encrypted === null) {
    await cancelPendingDeliveries(deps.db, [target.endpoint_id], deps.clock.now());
    return;
  }
  const { outcome, sentAt } = await sendTarget(deps, target);
  await recordAutomatic(deps, target, attempt, outcome, sentAt);
  deps.metrics.deliveryAttempted(outcome.ok, attempt);
  if (attempt === 1) deps.metrics.firstDeliverySent((sentAt.getTime() - target.created_at.getTime()) / 1000);
}

/** The delivery worker's handler: one job, one attempt. Throws only when nothing could be recorded. */
export async function runDeliveryJob(deps: DeliveryDeps, job: { data: Partial<DeliveryJobData> }): Promise<void> {
  const deliveryId = job.data.deliveryId ?? '';
  const target = await loadTarget(deps.db, deliveryId);
  await deliverAttempt(deps, target, job.data.attempt ?? 1);
}

/** Deliveries pending this long past their due time have lost their job (a worker killed too often). */
export const OVERDUE_MS = 10 * MINUTE;

/**
 * Queues the next attempt of every delivery overdue by more than OVERDUE_MS, so no delivery
 * waits forever for a job that is gone; an attempt queued twice is made once (attempt numbers).
 */
export async function requeueOverdue(deps: Pick<DeliveryDeps, 'db' | 'clock' | 'jobs'>): Promise<number> {
  const now = deps.clock.now();
  const overdue = await deps.db.selectFrom('webhook_deliveries').select(['id', 'attempts', 'endpoint_id'])
    .where('status', '=', 'pending').where('kind', '=', 'event').where('next_attempt_at', '<', new Date(now.getTime() - OVERDUE_MS))
    .orderBy('next_attempt_at').limit(1_000).execute();
  for (const delivery of overdue) {
    await deps.db.transaction().execute(async (trx) => {
      await deps.jobs.enqueueAttempt(trx, { deliveryId: delivery.id, attempt: delivery.attempts + 1 }, delivery.endpoint_id, now);
      // Overdue again only if this job is lost too.
      await trx.updateTable('webhook_deliveries').set({ next_attempt_at: now }).where('id', '=', delivery.id).where('status', '=', 'pending').execute();
    });
  }
  return overdue.length;
}

/**
 * Records a manual send (retry now, resend): logged like any attempt, never counted among the
 * automatic ones; a success finishes the delivery, a failure leaves its schedule as it was.
 */
export async function recordManual(deps: DeliveryDeps, target: DeliveryTarget, trigger: 'retry_now' | 'resend', outcome: SendOutcome, sentAt: Date): Promise<void> {
  const now = deps.clock.now();
  const gone = !outcome.ok && isGone(target, outcome);
  await deps.db.transaction().execute(async (trx) => {
    if (gone) await lockEndpoint(trx, target.endpoint_id);
    const erasures = await lockedErasures(trx, target.id);
    await trx.insertInto('webhook_delivery_attempts').values(attemptRow(target, trigger, null, outcome, sentAt, erasures)).execute();
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        manual_attempts: eb('manual_attempts', '+', 1),
        last_attempt_at: sentAt,
        last_status: outcome.statusCode,
        last_error: outcome.error,
        ...(outcome.ok ? { status: 'succeeded' as const, next_attempt_at: null, finished_at: now } : {}),
      }))
      .where('id', '=', target.id)
      // A delivery canceled meanwhile (its endpoint removed) stays canceled.
      .where('status', 'in', trigger === 'retry_now' ? ['pending'] : ['succeeded', 'failed'])
      .execute();
    if (gone) await removeGoneEndpoint(trx, target, now);
  });
  deps.metrics.deliveryAttempted(outcome.ok, 'manual');
}
