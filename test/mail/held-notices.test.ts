import { describe, expect, it } from 'vitest';
import { eraseCustomer } from '../../src/resources/customers/erase.ts';
import { Browser } from '../support/browser.ts';
import { signIn } from '../support/dashboard.ts';
import { asOperatorOn, setMember } from '../support/operator.ts';
import { paymentMailKit } from '../support/payment-mail.ts';

// Issue 23: a held payment's notice to the buyer, in plain words, and its mail to the business's
// owners and developers who did not turn it off (Team, Your notifications); no buyer mail without
// a buyer email; erasing the buyer deletes the mail. Through a real SMTP server on loopback.

const kit = paymentMailKit();

describe('a held payment', () => {
  it('tells the buyer in plain words how much arrived, and mails the owner and developer, but not a developer who turned it off nor a viewer', async () => {
    const m = await kit.shop();
    const quiet = `quiet-dev-${m.biz.id}@shop.example`.toLowerCase();
    await setMember(kit.t.context, { businessId: m.biz.id, email: quiet, role: 'developer' });
    // The quiet developer turns their held-payment mail off on the Team page.
    const browser = await signIn(kit.t, quiet);
    const team = await browser.request('GET', m.area('team'));
    expect(team.html).toContain('Your notifications');
    const action = `${m.area('team')}/notifications`;
    const off = await browser.request('POST', action, { ...Browser.form(team.html, action), held_payment_mail: 'off' });
    expect(off.status).toBe(303);
    expect((await browser.request('GET', m.area('team'))).html).toContain('Mail me about held payments');
    const viewer = (await kit.t.db.selectFrom('memberships as ms').innerJoin('people as p', 'p.id', 'ms.person_id').select('p.email')
      .where('ms.business_id', '=', m.biz.id).where('ms.role', '=', 'viewer').executeTakeFirstOrThrow()).email;
    const developer = `dev-${m.biz.id}@shop.example`.toLowerCase();

    const buyer = `carla-${m.biz.id}@buyer.example`.toLowerCase();
    await kit.teammate(m.biz.id, buyer);
    const order = await kit.link(m.key, { description: 'Espresso grinder' });
    await kit.startOnPage(order.url, { email: buyer });
    expect((await kit.simulate(m.key, order.id, 'underpaid', { amount_received: '20.00' })).status).toBe('held');

    const notice = await kit.arrived(order.id, `Your payment to ${m.name} needs attention`);
    expect(notice.to).toEqual([buyer]);
    expect(notice.text).toContain('$20.00 arrived of $25.00');
    expect(notice.text).toContain('has been told and will sort it out');
    expect(notice.text).toContain(order.id);
    // Plain words: not the service's reason, nor a code.
    expect(notice.text).not.toMatch(/Underpaid:|hold_reason|underpaid/);

    const staff = await kit.until(() => {
      const found = kit.mailsAbout(order.id).filter((mail) => mail.subject.includes('is held and needs you'));
      expect(found).toHaveLength(2);
      return found;
    });
    expect(staff.map((mail) => mail.to[0]).sort()).toEqual([developer, m.ownerEmail].sort());
    const paymentPage = `${kit.t.config.baseUrl}/dashboard/businesses/${m.biz.id}/test/payments/${order.id}`;
    expect(staff[0]!.text).toContain(paymentPage);
    expect(staff[0]!.html).toContain(`<a href="${paymentPage}">`);
    expect(staff[0]!.text).toContain('Underpaid');
    expect(staff[0]!.text).not.toContain(buyer);
    const everyone = kit.mailsAbout(order.id).flatMap((mail) => mail.to);
    expect(everyone).not.toContain(quiet);
    expect(everyone).not.toContain(viewer);
    // No receipt for a held payment; once the merchant accepts it as paid, the buyer gets one.
    expect(kit.mailsAbout(order.id).filter((mail) => mail.subject.startsWith('Your receipt'))).toEqual([]);
    expect((await kit.simulate(m.key, order.id, 'accepted')).status).toBe('paid');
    expect((await kit.arrived(order.id, `Your receipt from ${m.name}`)).to).toEqual([buyer]);
  });

  it('the preference is per business: off in one business, still on in another the person belongs to', async () => {
    const a = await kit.shop();
    const b = await kit.shop();
    const person = `both-${a.biz.id}@shop.example`.toLowerCase();
    await setMember(kit.t.context, { businessId: a.biz.id, email: person, role: 'owner' });
    await setMember(kit.t.context, { businessId: b.biz.id, email: person, role: 'developer' });
    const browser = await signIn(kit.t, person);
    const team = await browser.request('GET', a.area('team'));
    const action = `${a.area('team')}/notifications`;
    expect((await browser.request('POST', action, { ...Browser.form(team.html, action), held_payment_mail: 'off' })).status).toBe(303);
    // A forged choice is refused: neither on nor off.
    const forged = await browser.request('POST', action, { ...Browser.form(team.html, action), held_payment_mail: 'maybe' });
    expect(forged.status).toBe(400);

    const inA = await kit.link(a.key, { description: 'Filter papers' });
    const inB = await kit.link(b.key, { description: 'Cold brew kit' });
    await kit.startOnPage(inA.url, { email: `x-${a.biz.id}@buyer.example`.toLowerCase() });
    await kit.startOnPage(inB.url, { email: `y-${b.biz.id}@buyer.example`.toLowerCase() });
    await kit.simulate(a.key, inA.id, 'underpaid');
    await kit.simulate(b.key, inB.id, 'underpaid');
    await kit.until(() => expect(kit.mailsAbout(inA.id).filter((mail) => mail.subject.includes('needs you'))).toHaveLength(2));
    await kit.until(() => expect(kit.mailsAbout(inB.id).filter((mail) => mail.subject.includes('needs you'))).toHaveLength(3));
    expect(kit.mailsAbout(inA.id).flatMap((mail) => mail.to)).not.toContain(person);
    expect(kit.mailsAbout(inB.id).flatMap((mail) => mail.to)).toContain(person);
  });
});

describe('what the buyer gave, and what they did not', () => {
  it('sends the buyer nothing when the payment has no buyer email left (erased before the money arrived); the staff are still told', async () => {
    const m = await kit.shop();
    const buyer = `dora-${m.biz.id}@buyer.example`.toLowerCase();
    const order = await kit.link(m.key, { description: 'Gift card' });
    await kit.startOnPage(order.url, { email: buyer });
    const { customer_id } = await kit.t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.customer_id')
      .where('p.id', '=', order.id).executeTakeFirstOrThrow();
    await eraseCustomer.run(await asOperatorOn(kit.t.context, 'customer', customer_id!), { id: customer_id! });
    await kit.simulate(m.key, order.id, 'underpaid');
    await kit.until(() => expect(kit.mailsAbout(order.id).filter((mail) => mail.subject.includes('needs you'))).toHaveLength(2));
    const kinds = (await kit.t.db.selectFrom('outbox').select('kind').where('payment_id', '=', order.id).execute()).map((row) => row.kind);
    expect(kinds.sort()).toEqual(['payment_held_staff', 'payment_held_staff']);
    expect(kit.mailsTo(buyer)).toEqual([]);
  });

  it('erasing the buyer deletes the mail about their payment', async () => {
    const m = await kit.shop();
    const order = await kit.link(m.key, { description: 'Tasting flight' });
    const buyer = `erin-${m.biz.id}@buyer.example`.toLowerCase();
    await kit.teammate(m.biz.id, buyer);
    await kit.startOnPage(order.url, { email: buyer });
    await kit.simulate(m.key, order.id, 'paid');
    await kit.arrived(order.id, 'Your receipt');
    expect(await kit.t.db.selectFrom('outbox').select('id').where('payment_id', '=', order.id).execute()).toHaveLength(1);
    const { customer_id } = await kit.t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.customer_id')
      .where('p.id', '=', order.id).executeTakeFirstOrThrow();
    await eraseCustomer.run(await asOperatorOn(kit.t.context, 'customer', customer_id!), { id: customer_id! });
    expect(await kit.t.db.selectFrom('outbox').select('id').where('payment_id', '=', order.id).execute()).toEqual([]);
  });
});
