import { z } from 'zod';
import { recordActivity } from '../audit/activity.ts';
import { DAY, unixSeconds, unixSecondsOrNull } from '../core/clock.ts';
import type { AppContext } from '../verbs/context.ts';
import { RefusedError } from '../core/errors.ts';
import { newId, randomBase62 } from '../core/ids.ts';
import { parseOrThrow } from '../core/validation.ts';
import { isUniqueViolation } from '../db/database.ts';
import type { Db } from '../db/database.ts';
import type { WebhookEndpointRow } from '../db/schema.ts';
import { isPaymentEventType, PING, type PaymentEventType } from '../events/types.ts';
import { checkEndpointUrl, duplicateUrl } from '../resources/webhook-endpoints/create.ts';
import { CreateWebhookEndpointInput, toWebhookEndpointOut, type WebhookEndpointOut } from '../resources/webhook-endpoints/schemas.ts';
import { isGone, loadTarget, lockEndpoint, recordManual, removeGoneEndpoint, sendTarget, type DeliveryDeps, type DeliveryTarget } from './deliveries.ts';
import { sampleEventBody } from './samples.ts';
import type { SendOutcome } from '../net/outbound-client.ts';

// What the dashboard does with webhook endpoints beyond the API (spec 6.3): the delivery log,
// retry now, resend, test sends, secret rolls and edits. The CLI calls these now. Every call
// names the business it acts in (the dashboard's signed-in account); the operator's CLI may
// leave it out.

export class WebhookOpError extends RefusedError {}

export interface Scope {
  /** The business acted in; undefined only for the operator's CLI. */
  businessId?: string;
  /** Who acts, as the account activity names them (a person, or `operator`). */
  actor: string;
}

export type ManageDeps = DeliveryDeps & Pick<AppContext, 'config' | 'resolveHost'>;

/** The latest deliveries shown per endpoint (spec 6.3). */
export const DELIVERY_LOG_SIZE = 50;

async function findEndpoint(db: Db, scope: Scope, endpointId: string, options: { removed?: boolean } = {}): Promise<WebhookEndpointRow> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId);
  if (scope.businessId !== undefined) query = query.where('business_id', '=', scope.businessId);
  if (!options.removed) query = query.where('deleted_at', 'is', null);
  const endpoint = await query.executeTakeFirst();
  if (!endpoint) throw new WebhookOpError(`No webhook endpoint ${endpointId}${options.removed ? '' : ' (or it was removed)'}.`);
  return endpoint;
}

async function findDelivery(db: Db, scope: Scope, deliveryId: string): Promise<DeliveryTarget> {
  const target = await loadTarget(db, scope.businessId, deliveryId);
  if (!target) throw new WebhookOpError(`No delivery ${deliveryId}.`);
  if (target.deleted_at !== null) throw new WebhookOpError(`The endpoint of ${deliveryId} was removed; nothing more is sent to it.`);
  return target;
}

export interface DeliveryLogEntry {
  id: string;
  kind: 'event' | 'test';
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  created: number;
  /** When it was last sent (Unix seconds), or null before the first attempt. */
  sent: number | null;
  /** Automatic attempts made, 0 to 7. */
  attempts: number;
  /** Retry now, resend and test sends made. */
  manual_attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_retry: number | null;
  /** The exact body every attempt sends. */
  body: string;
}

/** The latest 50 deliveries of an endpoint (also of a removed one, for its 30 days), newest first. */
export async function deliveryLog(db: Db, scope: Scope, endpointId: string): Promise<{ endpoint: WebhookEndpointOut & { removed: boolean }; data: DeliveryLogEntry[] }> {
  const endpoint = await findEndpoint(db, scope, endpointId, { removed: true });
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.kind', 'd.event_id', 'd.status', 'd.created_at', 'd.last_attempt_at', 'd.attempts', 'd.manual_attempts', 'd.last_status', 'd.last_error', 'd.next_attempt_at'])
    .select((eb) => [eb.fn.coalesce('d.event_type', 'e.type').as('event_type'), eb.fn.coalesce('d.body', 'e.body').as('body')])
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.seq', (order) => order.desc().nullsLast())
    .limit(DELIVERY_LOG_SIZE)
    .execute();
  return {
    endpoint: { ...toWebhookEndpointOut(endpoint), removed: endpoint.deleted_at !== null },
    data: rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      event_id: row.event_id,
      event_type: row.event_type ?? '',
      status: row.status,
      created: unixSeconds(row.created_at),
      sent: unixSecondsOrNull(row.last_attempt_at),
      attempts: row.attempts,
      manual_attempts: row.manual_attempts,
      last_status: row.last_status,
      last_error: row.last_error,
      next_retry: unixSecondsOrNull(row.next_attempt_at),
      body: row.body ?? '',
    })),
  };
}

export interface AttemptEntry {
  trigger: 'automatic' | 'retry_now' | 'resend' | 'test';
  number: number | null;
  url: string;
  sent: number;
  duration_ms: number;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

/** Every request made for one delivery, oldest first. */
export async function deliveryAttempts(db: Db, scope: Scope, deliveryId: string): Promise<AttemptEntry[]> {
  const target = await loadTarget(db, scope.businessId, deliveryId);
  if (!target) throw new WebhookOpError(`No delivery ${deliveryId}.`);
  const rows = await db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
  return rows.map((row) => ({
    trigger: row.trigger,
    number: row.number,
    url: row.url,
    sent: unixSeconds(row.sent_at),
    duration_ms: row.duration_ms,
    succeeded: row.succeeded,
    status_code: row.status_code,
    error: row.error,
    response_excerpt: row.response_excerpt,
  }));
}

export interface ManualSendResult {
  delivery_id: string;
  event_id: string;
  outcome: SendOutcome;
}

/** Retry now: sends a still-retrying delivery at once; its automatic retries stay as they were. */
export async function retryNow(deps: ManageDeps, scope: Scope, deliveryId: string): Promise<ManualSendResult> {
  const target = await findDelivery(deps.db, scope, deliveryId);
  if (target.kind !== 'event' || target.status !== 'pending') {
    throw new WebhookOpError(`Delivery ${deliveryId} is ${target.status}, not retrying; resend it instead.`);
  }
  const { outcome, sentAt } = await sendTarget(deps, target);
  await recordManual(deps, target, 'retry_now', outcome, sentAt);
  return { delivery_id: target.id, event_id: target.event_id, outcome };
}

/** Resend: sends a finished delivery once more, same event id and body; never retried. */
export async function resend(deps: ManageDeps, scope: Scope, deliveryId: string): Promise<ManualSendResult> {
  const target = await findDelivery(deps.db, scope, deliveryId);
  if (target.status !== 'succeeded' && target.status !== 'failed') {
    throw new WebhookOpError(`Delivery ${deliveryId} is ${target.status}; only a finished delivery (succeeded or failed) is resent.`);
  }
  const { outcome, sentAt } = await sendTarget(deps, target);
  await recordManual(deps, target, 'resend', outcome, sentAt);
  return { delivery_id: target.id, event_id: target.event_id, outcome };
}

export type TestEventType = PaymentEventType | typeof PING;

export function isTestEventType(value: string): value is TestEventType {
  return value === PING || isPaymentEventType(value);
}

/**
 * Send test event: one signed event at once, never retried, kept in the log. A Test endpoint
 * takes a ping or a sample of any payment event; a Live endpoint a ping only.
 */
export async function sendTestEvent(deps: ManageDeps, scope: Scope, endpointId: string, type: TestEventType = PING): Promise<ManualSendResult> {
  const endpoint = await findEndpoint(deps.db, scope, endpointId);
  if (!isTestEventType(type)) throw new WebhookOpError(`${JSON.stringify(type)} is not an event type; send ping or a payment event.`);
  if (endpoint.livemode && type !== PING) throw new WebhookOpError('A Live endpoint can receive a ping only.');
  const now = deps.clock.now();
  const eventId = newId('evt');
  const target: DeliveryTarget = {
    id: newId('dlv'), kind: 'test', status: 'pending', attempts: 0, event_id: eventId, event_type: type,
    body: sampleEventBody(eventId, type, endpoint.livemode, now, deps.config.baseUrl),
    endpoint_id: endpoint.id, business_id: endpoint.business_id, livemode: endpoint.livemode, url: endpoint.url, added_via: endpoint.added_via,
    secret_encrypted: endpoint.secret_encrypted, previous_secret_encrypted: endpoint.previous_secret_encrypted,
    previous_secret_expires_at: endpoint.previous_secret_expires_at, deleted_at: null,
  };
  const { outcome, sentAt } = await sendTarget(deps, target);
  const finished = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_deliveries').values({
      id: target.id, event_id: eventId, endpoint_id: endpoint.id, kind: 'test', event_type: type, body: target.body,
      status: outcome.ok ? 'succeeded' : 'failed', attempts: 0, manual_attempts: 1, last_attempt_at: sentAt,
      last_status: outcome.statusCode, last_error: outcome.error, created_at: now, finished_at: finished,
    }).execute();
    await trx.insertInto('webhook_delivery_attempts').values({
      delivery_id: target.id, endpoint_id: endpoint.id, trigger: 'test', number: null, url: target.url, sent_at: sentAt,
      duration_ms: outcome.durationMs, succeeded: outcome.ok, status_code: outcome.statusCode, error: outcome.error, response_excerpt: outcome.excerpt,
    }).execute();
    if (!outcome.ok && isGone(target, outcome)) {
      await lockEndpoint(trx, target.endpoint_id);
      await removeGoneEndpoint(trx, target, finished);
    }
  });
  return { delivery_id: target.id, event_id: eventId, outcome };
}

/** The previous secret keeps signing this long after a roll that keeps it (spec 6.3). */
export const SECRET_OVERLAP_MS = DAY;

/**
 * Rolls the signing secret: at once (the old one signs nothing further), or keeping the previous
 * one for 24 hours, during which each request carries both signatures. Returns the new secret,
 * for the dashboard to show once; the API never returns it.
 */
export async function rollSecret(deps: ManageDeps, scope: Scope, endpointId: string, options: { keepPrevious: boolean }) {
  const endpoint = await findEndpoint(deps.db, scope, endpointId);
  const secret = `whsec_${randomBase62(32)}`;
  const now = deps.clock.now();
  const previousExpiresAt = options.keepPrevious ? new Date(now.getTime() + SECRET_OVERLAP_MS) : null;
  const updated = await deps.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhook_endpoints')
      .set((eb) => ({
        secret_encrypted: deps.secrets.seal(secret),
        // The secret as the row holds it now, not as read before: two rolls at once keep the right one.
        previous_secret_encrypted: options.keepPrevious ? eb.ref('secret_encrypted') : null,
        previous_secret_expires_at: previousExpiresAt,
      }))
      .where('id', '=', endpoint.id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new WebhookOpError(`Webhook endpoint ${endpointId} was removed meanwhile.`);
    await recordActivity(trx, { businessId: row.business_id, livemode: row.livemode, actor: scope.actor }, 'webhook_endpoint.secret_rolled', row.id, { keep_previous: options.keepPrevious }, now);
    return row;
  });
  return { endpoint: toWebhookEndpointOut(updated), secret };
}

const UpdateInput = z.object({
  url: CreateWebhookEndpointInput.shape.url.optional(),
  events: CreateWebhookEndpointInput.shape.events,
  description: CreateWebhookEndpointInput.shape.description,
});
export type UpdateWebhookEndpointInput = z.input<typeof UpdateInput>;

/**
 * Edits an endpoint's address, description or events. Pending retries go to the new address;
 * editing the events of an endpoint added before 26 September 2026 lifts its paid/failed-only rule.
 */
export async function updateWebhookEndpoint(deps: ManageDeps, scope: Scope, endpointId: string, changes: UpdateWebhookEndpointInput): Promise<WebhookEndpointOut> {
  const endpoint = await findEndpoint(deps.db, scope, endpointId);
  const input = parseOrThrow(UpdateInput, changes);
  const eventsGiven = changes.events !== undefined;
  const url = input.url === undefined ? undefined : await checkEndpointUrl(deps.resolveHost, endpoint.livemode, input.url, deps.config.webhooks.testLoopback);
  const now = deps.clock.now();
  const updated = await deps.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhook_endpoints')
      .set({
        ...(url === undefined ? {} : { url }),
        ...(changes.description === undefined ? {} : { description: input.description ?? null }),
        ...(eventsGiven ? { events: input.events, events_edited_at: now } : {}),
      })
      .where('id', '=', endpoint.id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst()
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'webhook_endpoints_url')) throw duplicateUrl();
        throw error;
      });
    if (!row) throw new WebhookOpError(`Webhook endpoint ${endpointId} was removed meanwhile.`);
    const details = { ...(url === undefined ? {} : { url }), ...(eventsGiven ? { events: input.events } : {}), ...(changes.description === undefined ? {} : { description: row.description }) };
    await recordActivity(trx, { businessId: row.business_id, livemode: row.livemode, actor: scope.actor }, 'webhook_endpoint.updated', row.id, details, now);
    return row;
  });
  return toWebhookEndpointOut(updated);
}
