import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { SECOND } from '../../core/clock.ts';
import { coded } from '../../core/validation.ts';
import { notFound } from '../../core/errors.ts';
import { perTurnByKey } from '../../core/per-turn.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { PAYMENT_STATUSES, readStatus } from '../shared/payment-status.ts';
import { findPayment } from './queries.ts';
import { PaymentIdInput, toPaymentOut, type PaymentOut, type PaymentWithCustomer } from './schemas.ts';

// Waiting for a payment (issue 24): answers as soon as the payment's status differs from the one
// the caller knows, or after the bound with the payment as it is then. Woken by NOTIFY
// payment_changed (migrations/0030) through the process's one listening connection: while it
// waits it holds no connection of the pool, only a waiter in memory, freed when the caller goes.

/** The NOTIFY channel of payment status changes (migrations/0030). */
export const PAYMENT_CHANGED = 'payment_changed';

/** The longest wait, in seconds: below the usual 30 s idle limits of proxies between a client and us. */
export const MAX_WAIT_SECONDS = 25;

const timeoutError = coded('invalid_value', `timeout must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}.`);

export const WaitForPaymentInput = PaymentIdInput.extend({
  status: z.enum(PAYMENT_STATUSES, coded('invalid_status', `status must be one of ${PAYMENT_STATUSES.join(', ')}: the status you last saw.`))
    .describe('The status you last saw (from retrieve_payment, a list, an earlier wait or a webhook). The answer comes as soon as the payment is in any other status.'),
  timeout: z.coerce.number(timeoutError).int(timeoutError).min(0, timeoutError).max(MAX_WAIT_SECONDS, timeoutError).default(MAX_WAIT_SECONDS)
    .describe(`How long to wait at most, in seconds, 0 to ${MAX_WAIT_SECONDS} (default ${MAX_WAIT_SECONDS}); then the payment is answered as it is.`),
});
export type WaitForPaymentInput = z.output<typeof WaitForPaymentInput>;

/**
 * The payment as it is now, read once per turn for all who ask in it: a change wakes every waiter
 * of the payment in one turn, and a thousand waiters then cost one query, not a thousand. (Two
 * callers of one business and mode see the same row.)
 */
const readPayment = perTurnByKey(async (db: Db, asks: ReadonlyArray<{ principal: Principal; id: string }>) => {
  const reads = new Map<string, Promise<PaymentWithCustomer | undefined>>();
  const keyOf = (ask: { principal: Principal; id: string }) => `${ask.principal.businessId}|${ask.principal.livemode}|${ask.id}`;
  for (const ask of asks) if (!reads.has(keyOf(ask))) reads.set(keyOf(ask), findPayment(db, ask.principal, ask.id));
  return Promise.all(asks.map((ask) => reads.get(keyOf(ask))!));
});

async function getPayment(db: Db, principal: Principal, id: string): Promise<PaymentWithCustomer> {
  const row = await readPayment(db, { principal, id });
  if (!row) throw notFound('payment', id);
  return row;
}

/** How long until an unpaid payment reads as expired (spec 3 rule 1), in ms; Infinity when it never will by time alone. */
function untilExpiry(row: PaymentWithCustomer, now: Date): number {
  return row.status === 'open' || row.status === 'pending' ? row.expires_at.getTime() - now.getTime() : Infinity;
}

export async function waitForPayment(ctx: OperationContext, input: WaitForPaymentInput): Promise<PaymentOut> {
  // The bound is real time: it limits how long a request is held, as the delivery timeout does.
  const deadline = performance.now() + input.timeout * SECOND;
  const answer = (row: PaymentWithCustomer) => toPaymentOut(row, ctx.config.baseUrl, ctx.clock.now());
  for (;;) {
    // Registered before the read: a change committed between the read and the wait still wakes it.
    const waiter = ctx.paymentWaits.subscribe(input.id, deadline - performance.now(), ctx.signal);
    let row: PaymentWithCustomer;
    try {
      row = await getPayment(ctx.db, ctx.principal, input.id);
    } catch (error) {
      waiter.cancel();
      throw error;
    }
    const now = ctx.clock.now();
    if (readStatus(row, now) !== input.status || performance.now() >= deadline || ctx.signal?.aborted) {
      waiter.cancel();
      return answer(row);
    }
    // An unpaid payment reads as expired at expires_at, before the expiry job writes it: look again then.
    const expiry = untilExpiry(row, now);
    const expiring = expiry < deadline - performance.now() ? new AbortController() : undefined;
    const reason = await (expiring
      ? Promise.race([waiter.woken, sleep(Math.max(0, expiry), 'timeout' as const, { signal: expiring.signal }).catch(() => 'aborted' as const)])
      : waiter.woken);
    expiring?.abort();
    waiter.cancel();
    // The caller is gone: nobody reads an answer, so none is looked up.
    if (reason === 'aborted') return answer(row);
    if (reason === 'closed') return answer(await getPayment(ctx.db, ctx.principal, input.id));
  }
}
