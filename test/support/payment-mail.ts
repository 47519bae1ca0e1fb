import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { CSRF_FIELD } from '../../src/ui/index.ts';
import { Browser } from './browser.ts';
import { dashboardMerchant, type DashboardMerchant } from './dashboard.ts';
import { freshRates } from './fx-rates.ts';
import { LIVE_WALLET, startTestApp, TEST_PROCESSOR_SECRET, type TestApp } from './harness.ts';
import { setMember } from './operator.ts';
import { startSmtpPeer, untilTicked, type SmtpPeer } from './smtp.ts';

// What the payment mail tests share (issue 23): an app that mails to a real SMTP peer, payment
// links a buyer starts on the payer page in their language, Test simulations, and the mail that
// arrived about a payment. In Test mode buyer mail goes only to the business's own people (issue
// 31): a Test buyer who is to get mail is made one of them first (`teammate`).

export async function startPaymentMailApp() {
  const smtp: SmtpPeer = await startSmtpPeer();
  const t: TestApp = await startTestApp({ RATE_LIMITS: 'off', SMTP_URL: smtp.url }, { workers: true });
  await freshRates(t);
  const until = <T>(check: () => T | Promise<T>) => untilTicked(t, check);
  const mailsAbout = (paymentId: string) => smtp.received.filter((mail) => mail.text.includes(paymentId));
  let shops = 0;
  return {
    t,
    smtp,
    until,
    close: async () => { await t.close(); await smtp.close(); },
    async link(key: string, body: Record<string, unknown>) {
      const created = await t.request('POST', '/v1/payment_links', { key, body: { amount: '25.00', currency: 'USD', ...body } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body as { id: string; url: string; tracking_url: string };
    },
    /** A buyer opens the link's page in `language` and starts paying with their email (and name). */
    async startOnPage(url: string, details: Record<string, string>, language = 'en-GB,en;q=0.8') {
      const browser = new Browser(t);
      const headers = { 'accept-language': language };
      const action = `${new URL(url).pathname}/start`;
      const opened = await browser.request('GET', url, undefined, headers);
      expect(opened.status).toBe(200);
      const started = await browser.request('POST', action, { [CSRF_FIELD]: Browser.form(opened.html, action)[CSRF_FIELD]!, ...details }, headers);
      expect(started.status, started.html).toBe(303);
    },
    async simulate(key: string, id: string, outcome: string, more: Record<string, unknown> = {}) {
      const moved = await t.request('POST', `/v1/payments/${id}/simulate`, { key, body: { outcome, ...more } });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      return moved.body as { status: string };
    },
    /** Makes `email` one of the business's people (a viewer), so its Test payments' buyer mail reaches it. */
    teammate: (businessId: string, email: string) => setMember(t.context, { businessId, email, role: 'viewer' }),
    /** The processor's signed notice (spec 6.4) that `amount` USDC arrived at a Live deposit address and went to the payout wallet. */
    async depositConfirmed(depositAddress: string, amount: string) {
      const raw = JSON.stringify({ id: `ntc_${randomBytes(8).toString('hex')}`, type: 'deposit.confirmed', deposit_address: depositAddress,
        coin: 'polygon_usdc', network: 'polygon', amount, txid: `0x${randomBytes(32).toString('hex')}`, forwarded_to: LIVE_WALLET });
      const at = Math.floor(t.clock.now().getTime() / 1000);
      const signature = `t=${at},v1=${createHmac('sha256', TEST_PROCESSOR_SECRET).update(`${at}.${raw}`, 'utf8').digest('hex')}`;
      const answer = await fetch(`${t.url}/processor/notices`, { method: 'POST', headers: { 'content-type': 'application/json', 'processor-signature': signature }, body: raw });
      expect(answer.status).toBe(200);
    },
    mailsTo: (address: string) => smtp.received.filter((mail) => mail.to.includes(address)),
    mailsAbout,
    /** The one mail about `paymentId` with a subject starting `subject`, once the job sent it. */
    arrived: (paymentId: string, subject: string) => until(() => {
      const found = mailsAbout(paymentId).filter((mail) => mail.subject.startsWith(subject));
      expect(found).toHaveLength(1);
      return found[0]!;
    }),
    /** A business with an owner, a developer and a viewer signed in, under a name of its own. */
    async shop(named = 'Kestrel Coffee'): Promise<DashboardMerchant & { name: string }> {
      shops += 1;
      const name = `${named} ${shops}`;
      return { ...(await dashboardMerchant(t, name)), name };
    },
  };
}

export type PaymentMailKit = Awaited<ReturnType<typeof startPaymentMailApp>>;

/** The kit of a test file: started before its tests, closed after them. */
export function paymentMailKit(): PaymentMailKit {
  const kit = {} as PaymentMailKit;
  beforeAll(async () => { Object.assign(kit, await startPaymentMailApp()); });
  afterAll(async () => kit.close?.());
  return kit;
}
