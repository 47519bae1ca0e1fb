import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../src/core/clock.ts';
import { ApiError } from '../../src/core/errors.ts';
import { acceptHeldPayment } from '../../src/resources/payments/accept.ts';
import { askForRemainder, type RemainderOut } from '../../src/resources/payments/remainder.ts';
import { eventsOf, typesOf } from '../flows/support.ts';
import { account, expectCreated } from '../support/api.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { asOperator } from '../support/operator.ts';

// The rest of an underpayment (resources/payments/remainder.ts, docs/remainders.md): asked once
// per open remainder, paid like any payment, and then the order is paid with amount_paid its total.

let t: TestApp;
let key: string;
let businessId: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  const made = await account(t);
  key = made.key;
  businessId = made.biz.id;
});
afterAll(async () => { await t?.close(); });

const ask = async (id: string) => askForRemainder.run(await asOperator(t.context, businessId), { id }) as Promise<RemainderOut>;

async function refusedWith(run: Promise<unknown>, code: string): Promise<string> {
  const error = await run.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  return (error as ApiError).message;
}

/** A started session of `amount` USD with `outcome` simulated (underpaid: `received` arrived). */
async function session(amount: string, outcome: string | null, received?: string): Promise<{ id: string; order_id: string }> {
  const created = expectCreated(await t.request('POST', '/v1/checkout_sessions', { key, body: { amount, currency: 'USD', description: 'Tea chest', customer_email: 'ada@buyer.example' } }));
  expect((await t.request('POST', `/v1/checkout_sessions/${created.id}/start`, { key })).status).toBe(200);
  if (outcome) {
    const simulated = await t.request('POST', `/v1/payments/${created.id}/simulate`, { key, body: { outcome, ...(received ? { amount_received: received } : {}) } });
    expect(simulated.status, JSON.stringify(simulated.body)).toBe(200);
  }
  return { id: created.id, order_id: created.order_id };
}

describe('asking for the rest of a held underpayment', () => {
  it('makes one payment on the same order for the difference; once paid, the order is paid with amount_paid its total', async () => {
    const first = await session('9.00', 'underpaid', '4.50');
    const asked = await ask(first.id);
    expect(asked.created).toBe(true);
    expect(asked.remainder).toMatchObject({ status: 'open', amount: '4.50', currency: 'USD', order_id: first.order_id, customer_email: 'ada@buyer.example', description: 'Tea chest' });
    expect(asked.remainder.url).toBe(`${t.config.baseUrl}/pay/${asked.remainder.id}`);

    // Asking twice returns the open one.
    const again = await ask(first.id);
    expect(again).toMatchObject({ created: false, remainder: { id: asked.remainder.id } });
    expect(await t.db.selectFrom('payments').select('id').where('remainder_of', '=', first.id).execute()).toHaveLength(1);
    const activity = await t.db.selectFrom('activity').select(['action', 'details']).where('subject_id', '=', first.id).execute();
    expect(activity).toEqual([{ action: 'payment.remainder_requested', details: { remainder_id: asked.remainder.id, amount: '4.50', currency: 'USD' } }]);

    // While the rest is asked for, accepting the first as paid would count the money twice.
    expect(await refusedWith(acceptHeldPayment.run(await asOperator(t.context, businessId), { id: first.id }), 'invalid_state')).toContain(asked.remainder.id);

    expect((await t.request('POST', `/v1/checkout_sessions/${asked.remainder.id}/start`, { key })).status).toBe(200);
    expect((await t.request('POST', `/v1/payments/${asked.remainder.id}/simulate`, { key, body: { outcome: 'paid' } })).body.status).toBe('paid');

    const order = await t.request('GET', `/v1/orders/${first.order_id}`, { key });
    expect(order.body).toMatchObject({ status: 'paid', total: '9.00', amount_paid: '9.00' });
    expect(order.body.payment_ids).toEqual(expect.arrayContaining([first.id, asked.remainder.id]));
    const stored = await t.db.selectFrom('orders').select(['status', 'paid_at']).where('id', '=', first.order_id).executeTakeFirstOrThrow();
    expect(stored.status).toBe('paid');
    expect(stored.paid_at).not.toBeNull();
    // The first payment keeps what happened to it: held, with what arrived.
    expect((await t.request('GET', `/v1/payments/${first.id}`, { key })).body.status).toBe('held');

    expect(await typesOf(t, first.id)).toEqual(['payment.started', 'payment.held']);
    expect(await typesOf(t, asked.remainder.id)).toEqual(['payment.started', 'payment.paid']);
    const paid = (await eventsOf(t, asked.remainder.id)).at(-1)!;
    expect(paid.data.payment).toMatchObject({ id: asked.remainder.id, status: 'paid', amount: '4.50', orderId: first.order_id });
    expect(paid.data.order).toMatchObject({ id: first.order_id, status: 'paid', needsReview: false, total: '9.00', amountPaid: '9.00', paymentId: asked.remainder.id, attemptCount: 2 });

    // Paid: nothing more to ask, nor to accept.
    expect(await refusedWith(ask(first.id), 'invalid_state')).toContain('paid already');
    await refusedWith(acceptHeldPayment.run(await asOperator(t.context, businessId), { id: first.id }), 'invalid_state');
  });

  it('refuses a payment that is not a held underpayment', async () => {
    expect(await refusedWith(ask((await session('20.00', null)).id), 'invalid_state')).toContain('is open');
    expect(await refusedWith(ask((await session('20.00', 'paid')).id), 'invalid_state')).toContain('is paid');
    // Held because the money went elsewhere: all of it arrived, nothing is missing.
    expect(await refusedWith(ask((await session('20.00', 'held_elsewhere')).id), 'invalid_state')).toContain('not an underpayment');
    // An accepted underpayment is paid.
    const accepted = await session('20.00', 'underpaid');
    await acceptHeldPayment.run(await asOperator(t.context, businessId), { id: accepted.id });
    await refusedWith(ask(accepted.id), 'invalid_state');
  });

  it('refuses a rest below the smallest payment, and asks again once an earlier remainder expired', async () => {
    expect(await refusedWith(ask((await session('5.00', 'underpaid', '4.40')).id), 'invalid_state')).toContain('below the smallest payment');

    const first = await session('30.00', 'underpaid', '20.00');
    const asked = await ask(first.id);
    expect(asked.remainder.amount).toBe('10.00');
    await t.jump(DAY + 1000);
    const next = await ask(first.id);
    expect(next.created).toBe(true);
    expect(next.remainder.id).not.toBe(asked.remainder.id);
    expect(await typesOf(t, asked.remainder.id)).toEqual(['payment.expired']);
    // With no remainder counting any more, accepting as paid is the merchant's other way again.
    await t.jump(DAY + 1000);
    expect((await acceptHeldPayment.run(await asOperator(t.context, businessId), { id: first.id }) as { status: string }).status).toBe('paid');
  });
});
