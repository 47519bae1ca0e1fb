import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import { DAY, type Clock } from '../../core/clock.ts';
import { ApiError } from '../../core/errors.ts';
import { BATCH, inBatches } from '../../db/batches.ts';
import type { Db } from '../../db/database.ts';

// Idempotency-Key for checkout-session creation (spec 4.6). The claim is an insert on the
// key's primary key inside the creating transaction: a concurrent request with the same key
// waits on it, then finds the committed session and answers 200 with it.

export const IDEMPOTENCY_WINDOW_MS = DAY;

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every depth, so metadata key order
 * is irrelevant; undefined members left out, as JSON.stringify leaves them. Its bytes are what the
 * stored request hashes were made from: test/resources/idempotency-hash.test.ts pins them. Written
 * as loops (no entry arrays or closures): it runs on every session create with a key.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) text += (index === 0 ? '' : ',') + canonicalJson(value[index]);
    return `${text}]`;
  }
  const object = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(object).sort()) {
    const member = object[key];
    if (member === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

export function requestHash(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}

export type Claim = { kind: 'new' } | { kind: 'replay'; paymentId: string };

/**
 * Claims `key` for a new session `paymentId`, or finds the session an earlier request with the
 * same key and body created. A key older than 24 hours is claimed afresh.
 */
export async function claimIdempotencyKey(db: Db, principal: Principal, key: string, hash: Buffer, paymentId: string, now: Date): Promise<Claim> {
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({ business_id: principal.businessId, livemode: principal.livemode, key, request_hash: hash, payment_id: paymentId, created_at: now })
    .onConflict((conflict) => conflict
      .columns(['business_id', 'livemode', 'key'])
      .doUpdateSet((eb) => ({
        request_hash: eb.ref('excluded.request_hash'),
        payment_id: eb.ref('excluded.payment_id'),
        created_at: eb.ref('excluded.created_at'),
      }))
      .where('idempotency_keys.created_at', '<=', new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)))
    .returning('payment_id')
    .executeTakeFirst();
  if (claimed) return { kind: 'new' };
  const existing = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'payment_id'])
    .where('business_id', '=', principal.businessId)
    .where('livemode', '=', principal.livemode)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!existing) {
    throw new ApiError('idempotency_conflict', {
      rest: 'A request with this Idempotency-Key is still being processed; retry shortly.',
      tool: 'A call with this idempotency_key is still being processed; call create_checkout_session again shortly with the same arguments.',
    });
  }
  if (!existing.request_hash.equals(hash)) {
    throw new ApiError('idempotency_conflict', {
      rest: 'This Idempotency-Key was already used with a different request body.',
      tool: 'This idempotency_key was already used with different arguments: send those arguments again for that session, or a new idempotency_key for a new attempt.',
    });
  }
  return { kind: 'replay', paymentId: existing.payment_id };
}

/** Whether a request with `key` and this body would be answered as a replay (its key is held, for the same body, within its 24 hours). */
export async function isReplay(db: Db, principal: Principal, key: string, hash: Buffer, now: Date): Promise<boolean> {
  const held = await db.selectFrom('idempotency_keys').select('payment_id')
    .where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode).where('key', '=', key)
    .where('request_hash', '=', hash).where('created_at', '>', new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)).executeTakeFirst();
  return held !== undefined;
}

/** Forgets Idempotency-Keys past their 24 hours (retention), in batches. */
export async function forgetIdempotencyKeys(ctx: { db: Db; clock: Clock }): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);
  return inBatches(async () => Number((await sql`
    DELETE FROM idempotency_keys WHERE (business_id, livemode, key) IN (
      SELECT business_id, livemode, key FROM idempotency_keys WHERE created_at <= ${cutoff} LIMIT ${BATCH})`.execute(ctx.db)).numAffectedRows ?? 0n));
}
