import { describe, expect, it } from 'vitest';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { Browser } from '../support/browser.ts';
import { paymentMailKit } from '../support/payment-mail.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';

// Issue 23: the buyer's receipt, through the outbox and the mail job to a real SMTP server on
// loopback. Payments are started on the payer page as a buyer does (its language kept) and moved
// by the Test simulation or the processor's Live notice: the same applyMove writes the mail.

const kit = paymentMailKit();
/** The HTML without the places to break a long word that it offers a phone (<wbr>). */
const unbroken = (html: string) => html.replaceAll('<wbr/>', '');

describe('the receipt', () => {
  it('reaches each buyer of a Test link paid by simulation with the business, what, amount, time, reference and tracking link, and nothing of the other buyer', async () => {
    const m = await kit.shop();
    const ann = { email: `ann-${m.biz.id}@buyer.example`.toLowerCase(), name: 'Ann Appleby' };
    const bob = { email: `bob-${m.biz.id}@buyer.example`.toLowerCase(), name: 'Bob Brennan' };
    const beans = await kit.link(m.key, { description: 'Ethiopia Guji, 1 kg', collect: { name: true } });
    const mugs = await kit.link(m.key, { description: 'Two stoneware mugs', amount: '42.50', collect: { name: true } });
    for (const buyer of [ann, bob]) await kit.teammate(m.biz.id, buyer.email);
    await kit.startOnPage(beans.url, ann);
    await kit.startOnPage(mugs.url, bob);
    await kit.simulate(m.key, beans.id, 'paid');
    await kit.simulate(m.key, mugs.id, 'paid');

    const forAnn = await kit.arrived(beans.id, `Your receipt from ${m.name}`);
    const forBob = await kit.arrived(mugs.id, `Your receipt from ${m.name}`);
    expect(forAnn.to).toEqual([ann.email]);
    expect(forBob.to).toEqual([bob.email]);
    expect(kit.mailsTo(ann.email)).toHaveLength(1);
    const paidAt = (await kit.t.db.selectFrom('payments').select('paid_at').where('id', '=', beans.id).executeTakeFirstOrThrow()).paid_at!;
    const shown = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(paidAt);
    for (const part of [forAnn.text, unbroken(forAnn.html!)]) {
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
      for (const part of [mail.text, unbroken(mail.html!), JSON.stringify(mail.headers)]) {
        expect(part).not.toContain(other.email);
        expect(part).not.toContain(other.name);
        expect(part).not.toContain(otherLink.id);
      }
    }
    // Nothing to the merchant's people about a payment that was paid.
    expect(kit.mailsTo(m.ownerEmail)).toEqual([]);
  });

  it('is in German for a buyer whose browser asked for German', async () => {
    const m = await kit.shop('Rösterei');
    const buyer = `grete-${m.biz.id}@buyer.example`.toLowerCase();
    await kit.teammate(m.biz.id, buyer);
    const beans = await kit.link(m.key, { description: 'Hausmischung, 500 g', amount: '12.90', currency: 'EUR' });
    await kit.startOnPage(beans.url, { email: buyer }, 'de-DE,de;q=0.9,en;q=0.5');
    expect((await kit.t.db.selectFrom('payments').select('payer_language').where('id', '=', beans.id).executeTakeFirstOrThrow()).payer_language).toBe('de');
    await kit.simulate(m.key, beans.id, 'paid');
    const mail = await kit.arrived(beans.id, `Ihr Beleg von ${m.name}`);
    expect(mail.to).toEqual([buyer]);
    expect(mail.text).toContain('Vielen Dank für Ihre Zahlung');
    expect(mail.text).toContain(new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR' }).format(12.9)); // 12,90 €
    expect(mail.text).toContain('Zahlungsreferenz');
    expect(mail.text).toContain('Testmodus');
    expect(mail.html).toContain('lang="de"');
  });

  it('reaches the buyer of a checkout bought on its page, in the page\'s language, with no tracking link (only links have one)', async () => {
    const m = await kit.shop('Rösterei');
    const created = await kit.t.request('POST', '/v1/checkouts', { key: m.key, body: { name: 'Probierset', amount: '18.50', currency: 'EUR' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkout = created.body as { url: string; slug: string };
    const buyer = `hans-${m.biz.id}@buyer.example`.toLowerCase();
    await kit.teammate(m.biz.id, buyer);
    const browser = new Browser(kit.t);
    const headers = { 'accept-language': 'de' };
    const action = `/c/${checkout.slug}`;
    const opened = await browser.request('GET', checkout.url, undefined, headers);
    const bought = await browser.request('POST', action, { [CSRF_FIELD]: Browser.form(opened.html, action)[CSRF_FIELD]!, email: buyer }, headers);
    expect(bought.status, bought.html).toBe(303);
    const paymentId = new URL(bought.location!, kit.t.url).pathname.split('/').pop()!;
    await kit.simulate(m.key, paymentId, 'paid');
    const mail = await kit.arrived(paymentId, `Ihr Beleg von ${m.name}`);
    expect(mail.to).toEqual([buyer]);
    expect(mail.text).toContain('Probierset');
    expect(mail.text).not.toContain('/track/');
  });
});

describe('a Live payment paid by the processor\'s notice', () => {
  it('sends the receipt too: in English for a session started by the API, with no Test line and no tracking link', async () => {
    const m = await kit.shop();
    const live = (await m.biz.key({ mode: 'live' })).secret;
    const buyer = `ivo-${m.biz.id}@buyer.example`.toLowerCase();
    const session = await kit.t.request('POST', '/v1/checkout_sessions', { key: live, body: { amount: '40.00', currency: 'USD', description: 'Espresso machine service' } });
    await reportProcessorStatus(kit.t);
    const start = await kit.t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key: live, body: { email: buyer } });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    await kit.depositConfirmed(start.body.deposit_address, '40.000000');
    const mail = await kit.arrived(session.body.id, `Your receipt from ${m.name}`);
    expect(mail.to).toEqual([buyer]);
    expect(mail.text).toContain('Espresso machine service');
    expect(mail.text).toContain('$40.00');
    expect(mail.text).not.toContain('Test mode');
    expect(mail.text).not.toContain('/track/');
  });
});

describe('hostile input', () => {
  it('a business name with CR/LF forges no header, and the HTML escapes the business name and the description', async () => {
    const name = 'Evil <b>Shop</b>\r\nBcc: victim@evil.example\r\nX-Injected: yes';
    const biz = await kit.t.business({ name });
    const key = (await biz.key()).secret;
    const buyer = `fay-${biz.id}@buyer.example`.toLowerCase();
    await kit.teammate(biz.id, buyer);
    const description = '<script>alert(1)</script> & <img src=x onerror=alert(2)> "quoted"';
    const order = await kit.link(key, { description });
    await kit.startOnPage(order.url, { email: buyer });
    await kit.simulate(key, order.id, 'paid');
    const mail = await kit.until(() => {
      const found = kit.mailsTo(buyer);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    expect(mail.to).toEqual([buyer]);
    expect(mail.headers.bcc).toBeUndefined();
    expect(mail.headers['x-injected']).toBeUndefined();
    expect(mail.subject).toBe('Your receipt from Evil <b>Shop</b> Bcc: victim@evil.example X-Injected: yes');
    expect(kit.smtp.received.flatMap((received) => received.to)).not.toContain('victim@evil.example');
    const html = unbroken(mail.html!);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Shop</b>');
    expect(html).toContain('&lt;script>alert(1)&lt;/script> &amp; &lt;img src=x onerror=alert(2)> &quot;quoted&quot;');
    expect(html).toContain('Evil &lt;b>Shop&lt;/b>');
    // The text alternative says it as written.
    expect(mail.text).toContain(description);
  });
});
