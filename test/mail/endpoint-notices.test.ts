import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorPrincipal } from '../../src/auth/operator.ts';
import { personPrincipal } from '../../src/auth/people.ts';
import { MINUTE } from '../../src/core/clock.ts';
import { MAIL_RETRIES } from '../../src/jobs/queues.ts';
import { sendOutboxMail } from '../../src/mail/send.ts';
import { SmtpMailer } from '../../src/mail/smtp.ts';
import { createApiKey } from '../../src/resources/api-keys/create.ts';
import { createWebhookEndpoint } from '../../src/resources/webhook-endpoints/create.ts';
import { CreateWebhookEndpointInput } from '../../src/resources/webhook-endpoints/schemas.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { asOperator, setMember } from '../support/operator.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { startSmtpPeer, untilTicked, type SmtpPeer } from '../support/smtp.ts';

// Spec 4.4: a Live endpoint added by a secret key is mailed to the account's owners and
// developers, through the outbox and the mail job, to a real SMTP server on loopback; the test
// clock moves pg-boss's retries.

let t: TestApp;
let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
  t = await startTestApp({ RATE_LIMITS: 'off', SMTP_URL: smtp.url, SMTP_FROM: 'Kestrel Payments <payments@pay.example.test>' }, { workers: true });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const until = <T>(check: () => T | Promise<T>) => untilTicked(t, check);

let merchants = 0;
/** A business with a second owner, a developer and a viewer, and a named Live key. */
async function merchant(options: { team?: boolean } = {}) {
  merchants += 1;
  const biz = await t.business({ name: `Kestrel Coffee ${merchants}` });
  const owner = (await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
    .where('m.business_id', '=', biz.id).executeTakeFirstOrThrow()).email;
  const people = { owner, owner2: `owner2-${biz.id}@shop.example`.toLowerCase(), developer: `dev-${biz.id}@shop.example`.toLowerCase(), viewer: `viewer-${biz.id}@shop.example`.toLowerCase() };
  if (options.team !== false) {
    await setMember(t.context, { businessId: biz.id, email: people.owner2, role: 'owner' });
    await setMember(t.context, { businessId: biz.id, email: people.developer, role: 'developer' });
    await setMember(t.context, { businessId: biz.id, email: people.viewer, role: 'viewer' });
  }
  const key = await createApiKey.run(await asOperator(t.context, biz.id, true), { name: 'Zapier sync' });
  return { biz, key, people };
}

async function addEndpoint(key: string, url: string, more: Record<string, unknown> = {}) {
  const created = await t.request('POST', '/v1/webhook_endpoints', { key, body: { url, ...more } });
  expect(created.status).toBe(201);
  return created.body as { id: string; secret: string };
}

const outboxOf = (businessId: string) => t.db.selectFrom('outbox').selectAll().where('business_id', '=', businessId).orderBy('recipient').execute();
const mailsAbout = (url: string) => smtp.received.filter((mail) => mail.text.includes(url));

describe('a Live endpoint added by a secret key', () => {
  it('is mailed to each owner and developer of that business, one message each: which key, and where events go', async () => {
    const { biz, key, people } = await merchant();
    const bystander = await merchant();
    const url = `https://hooks.example.com/${biz.id}/orders`;
    const endpoint = await addEndpoint(key.secret, url, { description: 'Order sync', events: ['payment.paid', 'payment.held'] });

    // Written with the endpoint: one row per recipient.
    const rows = await outboxOf(biz.id);
    expect(rows.map((row) => row.recipient)).toEqual([people.developer, people.owner, people.owner2].sort());
    expect(rows.every((row) => row.kind === 'webhook_endpoint_added')).toBe(true);

    const mails = await until(() => {
      const found = mailsAbout(url);
      expect(found).toHaveLength(3);
      return found;
    });
    expect(mails.map((mail) => mail.to).sort()).toEqual([[people.developer], [people.owner], [people.owner2]].sort());
    const everyone = smtp.received.flatMap((mail) => mail.to);
    expect(everyone).not.toContain(people.viewer);
    expect(everyone.filter((address) => Object.values(bystander.people).includes(address))).toEqual([]);

    const mail = mails[0]!;
    expect(mail.from).toBe('payments@pay.example.test');
    expect(mail.headers.from).toBe('Kestrel Payments <payments@pay.example.test>');
    expect(mail.subject).toBe(`A Live webhook endpoint was added to ${(await t.db.selectFrom('businesses').select('name').where('id', '=', biz.id).executeTakeFirstOrThrow()).name}`);
    expect(mail.text).toContain(`"Zapier sync" (${key.secret.slice(0, 8)}…${key.secret.slice(-4)}), id ${key.id}`);
    expect(mail.text).toContain(`Sends to:  ${url}`);
    expect(mail.text).toContain('Label:     Order sync');
    expect(mail.text).toContain('Events:    payment.paid, payment.held');
    expect(mail.text).toContain(endpoint.id);
    expect(mail.text).toContain('revoke the key');
    // Never a secret: not the key's, not the endpoint's.
    for (const sent of mails) {
      expect(sent.text).not.toContain(key.secret);
      expect(sent.text).not.toContain(key.secret.slice(8, -4));
      expect(sent.text).not.toContain(endpoint.secret);
    }
    await until(async () => expect((await outboxOf(biz.id)).map((row) => [row.status, row.attempts, row.last_error])).toEqual(Array(3).fill(['sent', 1, null])));
  });

  it('Test-mode endpoints, and endpoints people add (the dashboard, the operator), send nothing', async () => {
    const { biz } = await merchant();
    const testKey = await biz.key({ mode: 'test' });
    await addEndpoint(testKey.secret, 'http://localhost:9/test-hooks');
    const input = CreateWebhookEndpointInput.parse({ url: `https://hooks.example.com/${biz.id}/by-people` });
    const owner = await t.db.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select(['p.id', 'p.email'])
      .where('m.business_id', '=', biz.id).where('m.role', '=', 'owner').executeTakeFirstOrThrow();
    const as = (principal: Principal) => ({ ...t.context, principal });
    await createWebhookEndpoint(as(await personPrincipal(t.db, { personId: owner.id, email: owner.email }, biz.id, true)), input);
    await createWebhookEndpoint(as(await operatorPrincipal(t.db, biz.id, true)), { ...input, url: `${input.url}/operator` });
    expect(await t.db.selectFrom('webhook_endpoints').select('added_via').where('business_id', '=', biz.id).execute()).toHaveLength(3);
    expect(await outboxOf(biz.id)).toEqual([]);
  });
});

describe('sending', () => {
  it('retries a failed send with backoff until it goes through; the SMTP password reaches no row, job or error', async () => {
    const { biz, key, people } = await merchant({ team: false });
    // A server that echoes the password in its refusal: the worst case for what the row keeps.
    smtp.refuseLogins(`Authentication failed for ${smtp.password}`);
    const url = `https://hooks.example.com/${biz.id}/retried`;
    await addEndpoint(key.secret, url);
    const first = await until(async () => {
      const [row] = await outboxOf(biz.id);
      expect(row?.attempts).toBe(1);
      return row!;
    });
    expect(first.status).toBe('queued');
    expect(first.last_error).toContain('535');
    expect(first.last_error).toContain('[redacted]');

    // The login works again, the next send is refused for now (451): a second retry, then delivered.
    smtp.refuseLogins(null);
    smtp.refuseNext(1, { code: 451, message: 'Try again later' });
    await t.jump(MINUTE);
    await until(async () => expect((await outboxOf(biz.id))[0]?.attempts).toBe(2));
    expect((await outboxOf(biz.id))[0]?.last_error).toContain('451');
    expect(mailsAbout(url)).toEqual([]);
    await t.jump(2 * MINUTE);
    const [mail] = await until(() => {
      const found = mailsAbout(url);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(mail!.to).toEqual([people.owner]);
    await until(async () => expect(await outboxOf(biz.id)).toMatchObject([{ status: 'sent', attempts: 3, last_error: null }]));

    const forms = [smtp.password, encodeURIComponent(smtp.password), Buffer.from(smtp.password).toString('base64')];
    const stored = JSON.stringify(await outboxOf(biz.id));
    const jobs = (await sql<{ text: string }>`SELECT coalesce(output::text, '') || data::text AS text FROM pgboss.job WHERE name = 'mail'`.execute(t.db)).rows.map((row) => row.text).join('\n');
    for (const form of forms) {
      expect(stored).not.toContain(form);
      expect(jobs).not.toContain(form);
      expect(first.last_error).not.toContain(form);
    }
    expect(String(t.config.mail.smtpUrl)).toBe('[redacted]');
    expect(JSON.stringify(t.config)).not.toContain(smtp.password);
  });

  it('a message refused for good fails at once, and the last attempt fails the mail; both record why', async () => {
    const { biz, key } = await merchant({ team: false });
    smtp.refuseNext(1, { code: 550, message: 'Mailbox unavailable' });
    const url = `https://hooks.example.com/${biz.id}/refused`;
    await addEndpoint(key.secret, url);
    const failed = await until(async () => {
      const [row] = await outboxOf(biz.id);
      expect(row?.status).toBe('failed');
      return row!;
    });
    expect(failed).toMatchObject({ attempts: 1, body_sealed: null });
    expect(failed.last_error).toContain('550 Mailbox unavailable');
    expect(failed.finished_at).toBeInstanceOf(Date);

    // The seventh run of a job (pg-boss's sixth retry) is the last: a transient refusal then fails it too.
    await t.db.updateTable('outbox').set({ status: 'queued', last_error: null, finished_at: null }).where('id', '=', failed.id).execute();
    smtp.refuseNext(1, { code: 421, message: 'Service not available' });
    const mailer = new SmtpMailer({ smtpUrl: t.config.mail.smtpUrl!, from: t.config.mail.from });
    await sendOutboxMail({ ...t.context, mailer }, { data: { mailId: failed.id }, retryCount: MAIL_RETRIES.retryLimit });
    expect(await outboxOf(biz.id)).toMatchObject([{ status: 'failed', attempts: 2, last_error: expect.stringContaining('421') }]);
    // A job that runs again sends nothing: only a queued mail is sent.
    await sendOutboxMail({ ...t.context, mailer }, { data: { mailId: failed.id }, retryCount: 0 });
    expect(mailsAbout(url)).toEqual([]);
    // A worker where SMTP_URL is unset keeps the mail, held.
    await t.db.updateTable('outbox').set({ status: 'queued' }).where('id', '=', failed.id).execute();
    await sendOutboxMail({ ...t.context, mailer: undefined }, { data: { mailId: failed.id }, retryCount: 0 });
    expect(await outboxOf(biz.id)).toMatchObject([{ status: 'held', last_error: 'SMTP_URL is not set where the worker runs.' }]);
  });
});
