import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseCustomer } from '../../src/resources/customers/erase.ts';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { Browser } from '../support/browser.ts';
import { dashboardMerchant, signIn, type DashboardMerchant } from '../support/dashboard.ts';
import { freshRates } from '../support/fx-rates.ts';
import { LIVE_WALLET, startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from '../support/harness.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';
import { asOperatorOn, setMember } from '../support/operator.ts';
import { startSmtpPeer, untilTicked, type SmtpPeer } from '../support/smtp.ts';

// Issue 23: the buyer's receipt and held notice, and the held-payment mail to the business's
// owners and developers, through the outbox and the mail job to a real SMTP server on loopback.
// Payments are started on the payer page as a buyer does (its language kept) and moved by the
// Test simulation, the same applyMove the processor's Live notices go through.

let t: TestApp;
let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
  t = await startTestApp({ RATE_LIMITS: 'off', SMTP_URL: smtp.url }, { workers: true });
  await freshRates(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const until = <T>(check: () => T | Promise<T>) => untilTicked(t, check);

async function link(key: string, body: Record<string, unknown>) {
  const created = await t.request('POST', '/v1/payment_links', { key, body: { amount: '25.00', currency: 'USD', ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; url: string; tracking_url: string };
}

/** A buyer opens the link's page in `language` and starts paying with their email (and name). */
async function startOnPage(url: string, details: Record<string, string>, language = 'en-GB,en;q=0.8') {
  const browser = new Browser(t);
  const headers = { 'accept-language': language };
  const action = `${new URL(url).pathname}/start`;
  const opened = await browser.request('GET', url, undefined, headers);
  expect(opened.status).toBe(200);
  const started = await browser.request('POST', action, { [CSRF_FIELD]: Browser.form(opened.html, action)[CSRF_FIELD]!, ...details }, headers);
  expect(started.status, started.html).toBe(303);
}

async function simulate(key: string, id: string, outcome: string, more: Record<string, unknown> = {}) {
  const moved = await t.request('POST', `/v1/payments/${id}/simulate`, { key, body: { outcome, ...more } });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  return moved.body as { status: string };
}

const mailsTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));
const mailsAbout = (paymentId: string) => smtp.received.filter((mail) => mail.text.includes(paymentId));
/** The one mail about `paymentId` with a subject starting `subject`, once the job sent it. */
const arrived = (paymentId: string, subject: string) => until(() => {
  const found = mailsAbout(paymentId).filter((mail) => mail.subject.startsWith(subject));
  expect(found).toHaveLength(1);
  return found[0]!;
});

let shops = 0;
async function shop(named = 'Kestrel Coffee'): Promise<DashboardMerchant & { name: string }> {
  shops += 1;
  const name = `${named} ${shops}`;
  return { ...(await dashboardMerchant(t, name)), name };
}

describe('the receipt', () => {
  it('reaches each buyer of a Test link paid by simulation with the business, what, amount, time, reference and tracking link, and nothing of the other buyer', async () => {
    const m = await shop();
    const ann = { email: `ann-${m.biz.id}@buyer.example`.toLowerCase(), name: 'Ann Appleby' };
    const bob = { email: `bob-${m.biz.id}@buyer.example`.toLowerCase(), name: 'Bob Brennan' };
    const beans = await link(m.key, { description: 'Ethiopia Guji, 1 kg', collect: { name: true } });
    const mugs = await link(m.key, { description: 'Two stoneware mugs', amount: '42.50', collect: { name: true } });
    await startOnPage(beans.url, ann);
    await startOnPage(mugs.url, bob);
    await simulate(m.key, beans.id, 'paid');
    await simulate(m.key, mugs.id, 'paid');

    const forAnn = await arrived(beans.id, `Your receipt from ${m.name}`);
    const forBob = await arrived(mugs.id, `Your receipt from ${m.name}`);
    expect(forAnn.to).toEqual([ann.email]);
    expect(forBob.to).toEqual([bob.email]);
    expect(mailsTo(ann.email)).toHaveLength(1);
    const paidAt = (await t.db.selectFrom('payments').select('paid_at').where('id', '=', beans.id).executeTakeFirstOrThrow()).paid_at!;
    const shown = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(paidAt);
    for (const part of [forAnn.text, forAnn.html!]) {
      expect(part).toContain(m.name);
      expect(part).toContain('Ethiopia Guji, 1 kg');
      expect(part).toContain('$25.00');
      expect(part).toContain(shown);
      expect(part).toContain(beans.id);
      expect(part).toContain(beans.tracking_url);
      expect(part).toContain('Test mode — no money moved');
    }
    expect(forBob.text).toContain('$42.50');
    expect(forBob.text).toContain('Two stoneware mugs');
    // Multipart: the HTML alternative links the tracking page.
    expect(forAnn.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(forAnn.html).toContain(`<a href="${beans.tracking_url}">`);
    // Only this payment's buyer: nothing of the other's.
    for (const [mail, other, otherLink] of [[forAnn, bob, mugs], [forBob, ann, beans]] as const) {
      for (const part of [mail.text, mail.html!, JSON.stringify(mail.headers)]) {
        expect(part).not.toContain(other.email);
        expect(part).not.toContain(other.name);
        expect(part).not.toContain(otherLink.id);
      }
    }
    // Nothing to the merchant's people about a payment that was paid.
    expect(mailsTo(m.ownerEmail)).toEqual([]);
  });

  it('is in German for a buyer whose browser asked for German', async () => {
    const m = await shop('Rösterei');
    const buyer = `grete-${m.biz.id}@buyer.example`.toLowerCase();
    const beans = await link(m.key, { description: 'Hausmischung, 500 g', amount: '12.90', currency: 'EUR' });
    await startOnPage(beans.url, { email: buyer }, 'de-DE,de;q=0.9,en;q=0.5');
    expect((await t.db.selectFrom('payments').select('payer_language').where('id', '=', beans.id).executeTakeFirstOrThrow()).payer_language).toBe('de');
    await simulate(m.key, beans.id, 'paid');
    const mail = await arrived(beans.id, `Ihr Beleg von ${m.name}`);
    expect(mail.to).toEqual([buyer]);
    expect(mail.text).toContain('Vielen Dank für Ihre Zahlung');
    expect(mail.text).toContain(new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR' }).format(12.9)); // 12,90 €
    expect(mail.text).toContain('Zahlungsreferenz');
    expect(mail.text).toContain('Testmodus');
    expect(mail.html).toContain('lang="de"');
  });

  it('reaches the buyer of a checkout bought on its page, in the page\'s language, with no tracking link (only links have one)', async () => {
    const m = await shop('Rösterei');
    const created = await t.request('POST', '/v1/checkouts', { key: m.key, body: { name: 'Probierset', amount: '18.50', currency: 'EUR' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkout = created.body as { url: string; slug: string };
    const buyer = `hans-${m.biz.id}@buyer.example`.toLowerCase();
    const browser = new Browser(t);
    const headers = { 'accept-language': 'de' };
    const action = `/c/${checkout.slug}`;
    const opened = await browser.request('GET', checkout.url, undefined, headers);
    const bought = await browser.request('POST', action, { [CSRF_FIELD]: Browser.form(opened.html, action)[CSRF_FIELD]!, email: buyer }, headers);
    expect(bought.status, bought.html).toBe(303);
    const paymentId = new URL(bought.location!, t.url).pathname.split('/').pop()!;
    await simulate(m.key, paymentId, 'paid');
    const mail = await arrived(paymentId, `Ihr Beleg von ${m.name}`);
    expect(mail.to).toEqual([buyer]);
    expect(mail.text).toContain('Probierset');
    expect(mail.text).not.toContain('/track/');
  });
});

describe('a Live payment paid by the processor\'s notice', () => {
  it('sends the receipt too: in English for a session started by the API, with no Test line and no tracking link', async () => {
    const m = await shop();
    const live = (await m.biz.key({ mode: 'live' })).secret;
    const buyer = `ivo-${m.biz.id}@buyer.example`.toLowerCase();
    const session = await t.request('POST', '/v1/checkout_sessions', { key: live, body: { amount: '40.00', currency: 'USD', description: 'Espresso machine service' } });
    await reportProcessorStatus(t);
    const start = await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key: live, body: { email: buyer } });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    // The processor's signed notice (spec 6.4): the full amount, forwarded to the payout wallet.
    const raw = JSON.stringify({ id: `ntc_${randomBytes(8).toString('hex')}`, type: 'deposit.confirmed', deposit_address: start.body.deposit_address,
      coin: 'polygon_usdc', network: 'polygon', amount: '40.000000', txid: `0x${randomBytes(32).toString('hex')}`, forwarded_to: LIVE_WALLET });
    const at = Math.floor(t.clock.now().getTime() / 1000);
    const signature = `t=${at},v1=${createHmac('sha256', TEST_PROCESSOR_SECRET).update(`${at}.${raw}`, 'utf8').digest('hex')}`;
    const answer = await fetch(`${t.url}/processor/notices`, { method: 'POST', headers: { 'content-type': 'application/json', 'processor-signature': signature }, body: raw });
    expect(answer.status).toBe(200);
    const mail = await arrived(session.body.id, `Your receipt from ${m.name}`);
    expect(mail.to).toEqual([buyer]);
    expect(mail.text).toContain('Espresso machine service');
    expect(mail.text).toContain('$40.00');
    expect(mail.text).not.toContain('Test mode');
    expect(mail.text).not.toContain('/track/');
  });
});

describe('a held payment', () => {
  it('tells the buyer in plain words how much arrived, and mails the owner and developer, but not a developer who turned it off nor a viewer', async () => {
    const m = await shop();
    const quiet = `quiet-dev-${m.biz.id}@shop.example`.toLowerCase();
    await setMember(t.context, { businessId: m.biz.id, email: quiet, role: 'developer' });
    // The quiet developer turns their held-payment mail off on the Team page.
    const browser = await signIn(t, quiet);
    const team = await browser.request('GET', m.area('team'));
    expect(team.html).toContain('Your notifications');
    const action = `${m.area('team')}/notifications`;
    const off = await browser.request('POST', action, { ...Browser.form(team.html, action), held_payment_mail: 'off' });
    expect(off.status).toBe(303);
    expect((await browser.request('GET', m.area('team'))).html).toContain('Mail me about held payments');
    const viewer = (await t.db.selectFrom('memberships as ms').innerJoin('people as p', 'p.id', 'ms.person_id').select('p.email')
      .where('ms.business_id', '=', m.biz.id).where('ms.role', '=', 'viewer').executeTakeFirstOrThrow()).email;
    const developer = `dev-${m.biz.id}@shop.example`.toLowerCase();

    const buyer = `carla-${m.biz.id}@buyer.example`.toLowerCase();
    const order = await link(m.key, { description: 'Espresso grinder' });
    await startOnPage(order.url, { email: buyer });
    expect((await simulate(m.key, order.id, 'underpaid', { amount_received: '20.00' })).status).toBe('held');

    const notice = await arrived(order.id, `Your payment to ${m.name} needs attention`);
    expect(notice.to).toEqual([buyer]);
    expect(notice.text).toContain('$20.00 arrived of $25.00');
    expect(notice.text).toContain('has been told and will sort it out');
    expect(notice.text).toContain(order.id);
    // Plain words: not the service's reason, nor a code.
    expect(notice.text).not.toMatch(/Underpaid:|hold_reason|underpaid/);

    const staff = await until(() => {
      const found = mailsAbout(order.id).filter((mail) => mail.subject.includes('is held and needs you'));
      expect(found).toHaveLength(2);
      return found;
    });
    expect(staff.map((mail) => mail.to[0]).sort()).toEqual([developer, m.ownerEmail].sort());
    const paymentPage = `${t.config.baseUrl}/dashboard/businesses/${m.biz.id}/test/payments/${order.id}`;
    expect(staff[0]!.text).toContain(paymentPage);
    expect(staff[0]!.html).toContain(`<a href="${paymentPage}">`);
    expect(staff[0]!.text).toContain('Underpaid');
    expect(staff[0]!.text).not.toContain(buyer);
    const everyone = mailsAbout(order.id).flatMap((mail) => mail.to);
    expect(everyone).not.toContain(quiet);
    expect(everyone).not.toContain(viewer);
    // No receipt for a held payment; once the merchant accepts it as paid, the buyer gets one.
    expect(mailsAbout(order.id).filter((mail) => mail.subject.startsWith('Your receipt'))).toEqual([]);
    expect((await simulate(m.key, order.id, 'accepted')).status).toBe('paid');
    expect((await arrived(order.id, `Your receipt from ${m.name}`)).to).toEqual([buyer]);
  });

  it('the preference is per business: off in one business, still on in another the person belongs to', async () => {
    const a = await shop();
    const b = await shop();
    const person = `both-${a.biz.id}@shop.example`.toLowerCase();
    await setMember(t.context, { businessId: a.biz.id, email: person, role: 'owner' });
    await setMember(t.context, { businessId: b.biz.id, email: person, role: 'developer' });
    const browser = await signIn(t, person);
    const team = await browser.request('GET', a.area('team'));
    const action = `${a.area('team')}/notifications`;
    expect((await browser.request('POST', action, { ...Browser.form(team.html, action), held_payment_mail: 'off' })).status).toBe(303);
    // A forged choice is refused: neither on nor off.
    const forged = await browser.request('POST', action, { ...Browser.form(team.html, action), held_payment_mail: 'maybe' });
    expect(forged.status).toBe(400);

    const inA = await link(a.key, { description: 'Filter papers' });
    const inB = await link(b.key, { description: 'Cold brew kit' });
    await startOnPage(inA.url, { email: `x-${a.biz.id}@buyer.example`.toLowerCase() });
    await startOnPage(inB.url, { email: `y-${b.biz.id}@buyer.example`.toLowerCase() });
    await simulate(a.key, inA.id, 'underpaid');
    await simulate(b.key, inB.id, 'underpaid');
    await until(() => expect(mailsAbout(inA.id).filter((mail) => mail.subject.includes('needs you'))).toHaveLength(2));
    await until(() => expect(mailsAbout(inB.id).filter((mail) => mail.subject.includes('needs you'))).toHaveLength(3));
    expect(mailsAbout(inA.id).flatMap((mail) => mail.to)).not.toContain(person);
    expect(mailsAbout(inB.id).flatMap((mail) => mail.to)).toContain(person);
  });
});

describe('what the buyer gave, and what they did not', () => {
  it('sends the buyer nothing when the payment has no buyer email left (erased before the money arrived); the staff are still told', async () => {
    const m = await shop();
    const buyer = `dora-${m.biz.id}@buyer.example`.toLowerCase();
    const order = await link(m.key, { description: 'Gift card' });
    await startOnPage(order.url, { email: buyer });
    const { customer_id } = await t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.customer_id')
      .where('p.id', '=', order.id).executeTakeFirstOrThrow();
    await eraseCustomer.run(await asOperatorOn(t.context, 'customer', customer_id!), { id: customer_id! });
    await simulate(m.key, order.id, 'underpaid');
    await until(() => expect(mailsAbout(order.id).filter((mail) => mail.subject.includes('needs you'))).toHaveLength(2));
    const kinds = (await t.db.selectFrom('outbox').select('kind').where('payment_id', '=', order.id).execute()).map((row) => row.kind);
    expect(kinds.sort()).toEqual(['payment_held_staff', 'payment_held_staff']);
    expect(mailsTo(buyer)).toEqual([]);
  });

  it('erasing the buyer deletes the mail about their payment', async () => {
    const m = await shop();
    const order = await link(m.key, { description: 'Tasting flight' });
    await startOnPage(order.url, { email: `erin-${m.biz.id}@buyer.example`.toLowerCase() });
    await simulate(m.key, order.id, 'paid');
    await arrived(order.id, 'Your receipt');
    expect(await t.db.selectFrom('outbox').select('id').where('payment_id', '=', order.id).execute()).toHaveLength(1);
    const { customer_id } = await t.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select('o.customer_id')
      .where('p.id', '=', order.id).executeTakeFirstOrThrow();
    await eraseCustomer.run(await asOperatorOn(t.context, 'customer', customer_id!), { id: customer_id! });
    expect(await t.db.selectFrom('outbox').select('id').where('payment_id', '=', order.id).execute()).toEqual([]);
  });
});

describe('hostile input', () => {
  it('a business name with CR/LF forges no header, and the HTML escapes the business name and the description', async () => {
    const name = 'Evil <b>Shop</b>\r\nBcc: victim@evil.example\r\nX-Injected: yes';
    const biz = await t.business({ name });
    const key = (await biz.key()).secret;
    const buyer = `fay-${biz.id}@buyer.example`.toLowerCase();
    const description = '<script>alert(1)</script> & <img src=x onerror=alert(2)> "quoted"';
    const order = await link(key, { description });
    await startOnPage(order.url, { email: buyer });
    await simulate(key, order.id, 'paid');
    const mail = await until(() => {
      const found = mailsTo(buyer);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    expect(mail.to).toEqual([buyer]);
    expect(mail.headers.bcc).toBeUndefined();
    expect(mail.headers['x-injected']).toBeUndefined();
    expect(mail.subject).toBe('Your receipt from Evil <b>Shop</b> Bcc: victim@evil.example X-Injected: yes');
    expect(smtp.received.flatMap((received) => received.to)).not.toContain('victim@evil.example');
    const html = mail.html!;
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Shop</b>');
    expect(html).toContain('&lt;script>alert(1)&lt;/script> &amp; &lt;img src=x onerror=alert(2)> &quot;quoted&quot;');
    expect(html).toContain('Evil &lt;b>Shop&lt;/b>');
    // The text alternative says it as written.
    expect(mail.text).toContain(description);
  });
});
