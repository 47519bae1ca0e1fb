import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/core/clock.ts';
import { BUYER_MAIL_PER_HOUR, mailPaymentOutcome } from '../../src/resources/payments/mail.ts';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { Browser } from '../support/browser.ts';
import { signIn } from '../support/dashboard.ts';
import { paymentMailKit } from '../support/payment-mail.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Issue 31, must have 2: mail no one can aim. Anyone can open a Test payment page, type any
// address and press the Test "paid" button; that receipt (and a held notice) reaches no stranger,
// only the business's own people, and the dashboard says why it was not sent. A Live buyer's
// address gets at most BUYER_MAIL_PER_HOUR receipts and notices an hour, across all businesses.
// The stranger's case failed on the code before: the receipt was queued to the victim and sent.

const kit = paymentMailKit();

/** A stranger, with no key: opens the Test link's page, starts with `email`, and presses a Test outcome button. */
async function strangerPays(url: string, email: string, outcome: 'paid' | 'underpaid'): Promise<string> {
  const browser = new Browser(kit.t);
  const start = `${new URL(url).pathname}/start`;
  const opened = await browser.request('GET', url);
  const started = await browser.request('POST', start, { [CSRF_FIELD]: Browser.form(opened.html, start)[CSRF_FIELD]!, email });
  expect(started.status, started.html).toBe(303);
  const page = await browser.request('GET', started.location!);
  const paymentId = new URL(started.location!, kit.t.url).pathname.split('/').pop()!;
  const action = `/pay/${paymentId}/test`;
  const pressed = await browser.request('POST', action, { [CSRF_FIELD]: Browser.form(page.html, action)[CSRF_FIELD]!, outcome });
  expect(pressed.status, pressed.html).toBe(303);
  return paymentId;
}

const outboxOf = (paymentId: string) => kit.t.db.selectFrom('outbox').select(['kind', 'recipient', 'status', 'held_because'])
  .where('payment_id', '=', paymentId).orderBy('kind').execute();

describe('in Test mode', () => {
  it('a stranger\'s Test payment with a foreign address mails nobody outside the business, and the payment page says so', async () => {
    const m = await kit.shop();
    const victim = `victim1-${m.biz.id}@example.net`.toLowerCase();
    const link = await kit.link(m.key, { description: 'Free text the merchant wrote' });
    const paid = await strangerPays(link.url, victim, 'paid');
    expect(paid).toBe(link.id);
    expect(await outboxOf(link.id)).toEqual([{ kind: 'payment_receipt', recipient: victim, status: 'held', held_because: 'test_mode' }]);

    const held = await kit.link(m.key, { description: 'Another' });
    await strangerPays(held.url, victim, 'underpaid');
    // The business's own people are told (once); the victim is not.
    await kit.until(() => expect(kit.mailsAbout(held.id).filter((mail) => mail.subject.includes('needs you'))).toHaveLength(2));
    expect((await outboxOf(held.id)).filter((row) => row.recipient === victim)).toEqual([{ kind: 'payment_held', recipient: victim, status: 'held', held_because: 'test_mode' }]);

    // Nothing reached the victim (the mail job runs in this app: the staff's mail above was sent by it).
    expect(kit.mailsTo(victim)).toEqual([]);

    const owner = await signIn(kit.t, m.ownerEmail);
    const page = await owner.request('GET', `${m.area('payments')}/${link.id}`);
    expect(page.status).toBe(200);
    const text = page.html.replace(/<[^>]+>/g, '').replaceAll('&#39;', '\'');
    expect(text).toContain(`Receipt to ${victim}, `);
    expect(text).toContain('Test mode: not sent. In Test mode, mail goes only to this business\'s own people.');
  });

  it('a Test payment of one of the business\'s own people mails them, as before', async () => {
    const m = await kit.shop();
    const link = await kit.link(m.key, { description: 'Team tasting' });
    await strangerPays(link.url, m.ownerEmail.toUpperCase(), 'paid');
    const receipt = await kit.arrived(link.id, `Your receipt from ${m.name}`);
    expect(receipt.to).toEqual([m.ownerEmail]);
  });
});

it('the business\'s people get one held mail per payment, however often its move is written', async () => {
  const m = await kit.shop();
  const link = await kit.link(m.key, { description: 'Held twice' });
  await strangerPays(link.url, m.ownerEmail, 'underpaid');
  const payment = await kit.t.db.selectFrom('payments').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow();
  await mailPaymentOutcome(kit.t.db, kit.t.context, { payment, order: null, payments: [payment], customer: null });
  const staff = (await outboxOf(link.id)).filter((row) => row.kind === 'payment_held_staff');
  expect(staff.map((row) => row.recipient).sort()).toEqual([m.ownerEmail, `dev-${m.biz.id}@shop.example`.toLowerCase()].sort());
});

describe('in Live mode', () => {
  it(`one address gets at most ${BUYER_MAIL_PER_HOUR} receipts an hour from all businesses together; the hour after, again`, async () => {
    const shops = [await kit.shop('First'), await kit.shop('Second')];
    const buyer = `busy-${shops[0]!.biz.id}@buyer.example`.toLowerCase();
    await reportProcessorStatus(kit.t);
    const payLive = async (index: number) => {
      const live = (await shops[index % 2]!.biz.key({ mode: 'live' })).secret;
      const session = await kit.t.request('POST', '/v1/checkout_sessions', { key: live, body: { amount: '10.00', currency: 'USD', description: `Order ${index}` } });
      const start = await kit.t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key: live, body: { email: buyer } });
      expect(start.status, JSON.stringify(start.body)).toBe(200);
      await kit.depositConfirmed(start.body.deposit_address, '10.000000');
      return session.body.id as string;
    };
    const paid: string[] = [];
    for (let index = 0; index <= BUYER_MAIL_PER_HOUR; index += 1) paid.push(await payLive(index));
    const fates = await Promise.all(paid.map(async (id) => (await outboxOf(id))[0]));
    expect(fates.slice(0, BUYER_MAIL_PER_HOUR).every((row) => row?.status !== 'held')).toBe(true);
    expect(fates[BUYER_MAIL_PER_HOUR]).toMatchObject({ status: 'held', held_because: 'address_limit' });
    await kit.until(() => expect(kit.mailsTo(buyer)).toHaveLength(BUYER_MAIL_PER_HOUR));

    await kit.t.jump(HOUR);
    await reportProcessorStatus(kit.t);
    const later = await payLive(7);
    expect((await outboxOf(later))[0]).toMatchObject({ status: 'queued' });
  });
});
