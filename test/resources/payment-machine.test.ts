import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRow, PaymentStatus } from '../../src/db/schema.ts';
import { applyMove, MOVES, movedRow, moveWithEvent, type Move } from '../../src/resources/payments/machine.ts';
import { typesOf } from '../flows/support.ts';
import { account, expectCreated } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The payment state machine (resources/payments/machine.ts): each move applies only from its
// source states, and only to the row version asked for; a move that does not apply changes
// nothing and writes no event.

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  ({ key } = await account(t));
});
afterAll(async () => { await t?.close(); });

const STATUSES: PaymentStatus[] = ['open', 'pending', 'paid', 'held', 'failed', 'expired'];

/** A new checkout session's payment, put in `status` directly. */
async function paymentIn(status: PaymentStatus): Promise<PaymentRow> {
  const session = expectCreated(await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '40.00', currency: 'USD' } }));
  return t.db.updateTable('payments').set({ status }).where('id', '=', session.payment_id).returningAll().executeTakeFirstOrThrow();
}

const read = (id: string) => t.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const versionOf = async (id: string) => (await sql<{ version: string }>`SELECT xmin::text AS version FROM payments WHERE id = ${id}`.execute(t.db)).rows[0]!.version;

/** An open payment changed after its row version was read: the payment as it is now, and the stale version. */
async function changedSinceRead(): Promise<{ before: PaymentRow; stale: string }> {
  const payment = await paymentIn('open');
  const stale = await versionOf(payment.id);
  await t.db.updateTable('payments').set({ memo: 'changed in between' }).where('id', '=', payment.id).execute();
  return { before: await read(payment.id), stale };
}

/** A move that did not apply: the payment as it was, and no event. */
async function expectUntouched(before: PaymentRow): Promise<void> {
  expect(await read(before.id)).toEqual(before);
  expect(await typesOf(t, before.id)).toEqual([]);
}

const CASES = (Object.keys(MOVES) as Move[]).flatMap((move) =>
  STATUSES.map((status) => [move, status, (MOVES[move].from as readonly PaymentStatus[]).includes(status)] as const));

describe('every move, from every state', () => {
  it.each(CASES)('%s from %s applies: %s', async (move, status, applies) => {
    const before = await paymentIn(status);
    const row = await t.db.transaction().execute((trx) => applyMove(trx, t.context, before.id, move, { notDue: true }));
    const { to, event } = MOVES[move];
    if (!applies) {
      expect(row).toBeNull();
      await expectUntouched(before);
      return;
    }
    const after = await read(before.id);
    expect(row).toEqual(after);
    expect(after.status).toBe(to);
    expect(await typesOf(t, before.id)).toEqual(event === null ? [] : [event]);
  });

  it('settles a paid payment once, and never an accepted hold', async () => {
    const settled = await paymentIn('paid');
    await t.db.updateTable('payments').set({ txid_out: '0xout' }).where('id', '=', settled.id).execute();
    const accepted = await paymentIn('paid');
    await t.db.updateTable('payments').set({ hold_reason: 'amount_mismatch' }).where('id', '=', accepted.id).execute();
    for (const payment of [settled, accepted]) {
      const before = await read(payment.id);
      expect(await t.db.transaction().execute((trx) => applyMove(trx, t.context, payment.id, 'settle', { set: { merchant_received: '39.600000' } }))).toBeNull();
      await expectUntouched(before);
    }
  });
});

describe('the row-version check', () => {
  it('applyMove refuses a stale version and applies the current one', async () => {
    const { before, stale } = await changedSinceRead();
    const fail = (version: string) => t.db.transaction().execute((trx) => applyMove(trx, t.context, before.id, 'fail', { version, notDue: true }));
    expect(await fail(stale)).toBeNull();
    await expectUntouched(before);
    expect(await fail(await versionOf(before.id))).toMatchObject({ status: 'failed' });
    expect(await typesOf(t, before.id)).toEqual(['payment.failed']);
  });

  it('moveWithEvent writes the move and its event in one statement, only from a source state and the version read', async () => {
    const now = t.clock.now();
    const events = { baseUrl: t.config.baseUrl, jobs: t.context.jobs, now };
    const set = { customer_email: 'ann@buyer.example', started_at: now };
    const started = async (payment: PaymentRow, version?: string) => {
      const moved = movedRow(payment, 'start', set, now);
      const order = await t.db.selectFrom('orders').selectAll().where('id', '=', payment.order_id!).executeTakeFirstOrThrow();
      return moveWithEvent(t.db, events, 'start', { payment: moved, order, payments: [moved], customer: null }, { set, version });
    };

    const { before, stale } = await changedSinceRead();
    expect(await started(before, stale)).toBe(false);
    await expectUntouched(before);

    expect(await started(before, await versionOf(before.id))).toBe(true);
    expect(await read(before.id)).toEqual(movedRow(before, 'start', set, now));
    expect(await typesOf(t, before.id)).toEqual(['payment.started']);

    const paid = await paymentIn('paid');
    expect(await started(paid)).toBe(false);
    await expectUntouched(paid);
  });
});
