import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY, HOUR, MINUTE, unixSeconds } from '../../src/core/clock.ts';
import { forgetDeliveryHistory } from '../../src/webhooks/retention.ts';
import { replayFailedDeliveries } from '../../src/webhooks/replays/request.ts';
import { runReplayJob } from '../../src/webhooks/replays/run.ts';
import { Browser } from '../support/browser.ts';
import { csrfOf, dashboardMerchant } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { asOperatorOn } from '../support/operator.ts';
import { signaturesOf, startReceiver, verifiesWith, type Receiver } from '../support/receiver.ts';

// The dashboard's webhooks area over HTTP as a browser uses it: endpoints added from a form (the
// secret shown once, through a one-time notice), edited, their secret rolled, test events,
// removed after a confirmation step; the delivery log with retry now and resend; replaying the
// failed deliveries since a time in the background. Roles are decided in the verb; Test and Live,
// and businesses, stay apart. The receiver is real, on loopback (allowed for Test endpoints).

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off', WEBHOOK_TIMEOUT_MS: '400' }, { workers: true });
  receiver = await startReceiver();
  answerPerPath({});
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Answers by path: a status per path, 200 for any other. */
function answerPerPath(statuses: Record<string, number>): void {
  receiver.respond((request, response: ServerResponse) => {
    response.writeHead(statuses[request.path] ?? 200, { 'content-type': 'text/plain' }).end(`answer to ${request.path}`);
  });
}
const at = (path: string) => receiver.received.filter((request) => request.path === path);

/** A merchant in the dashboard (test/support/dashboard.ts) and its webhooks area. */
async function merchant() {
  const m = await dashboardMerchant(t);
  const list = (mode: 'test' | 'live' = 'test') => m.area('webhooks', mode);
  /** Adds an endpoint from the form as the developer; returns its id, page and the secret its page showed once. */
  async function add(url: string, events: readonly string[] = ['payment.started', 'payment.paid'], mode: 'test' | 'live' = 'test') {
    const form = await m.developer.request('GET', `${list(mode)}/new`);
    const added = await m.developer.request('POST', list(mode), { ...Browser.form(form.html, list(mode)), url, description: 'Shop <orders>', ...Object.fromEntries(events.map((type) => [type, 'on'])) });
    expect(added.status, added.html).toBe(303);
    const page = await m.developer.request('GET', added.location!);
    const secret = /<code>(whsec_\w{32})<\/code>/.exec(page.html)?.[1];
    return { id: /\/webhooks\/(we_\w+)$/.exec(added.location!)![1]!, path: added.location!, page, secret };
  }
  /** The viewer's CSRF token, for forging forms the viewer is never offered. */
  const viewerCsrf = async () => csrfOf((await m.viewer.request('GET', list())).html);
  return { ...m, list, add, viewerCsrf };
}

async function startPayment(key: string): Promise<string> {
  const session = await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '12.00', currency: 'USD', customer_email: 'buyer@example.com' } });
  expect((await t.request('POST', `/v1/checkout_sessions/${session.body.id}/start`, { key, body: {} })).status).toBe(200);
  return session.body.id;
}

/** The endpoint's deliveries, newest first. */
const deliveriesOf = (endpointId: string) => t.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at', 'desc').orderBy('seq', 'desc').execute();

/** Waits for the endpoint's newest delivery to match (deliveries are sent by the worker). */
async function settles(endpointId: string, expected: Record<string, unknown>) {
  await vi.waitFor(async () => expect((await deliveriesOf(endpointId))[0]).toMatchObject(expected), { timeout: 5_000 });
}

const unescaped = (text: string) => text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&amp;', '&');

/** The body a delivery page gives exactly as sent (to copy), checking the one shown is it indented. */
function bodyOf(html: string): string {
  const exact = unescaped(/<textarea id="copy-body"[^>]*>(.*?)<\/textarea>/s.exec(html)?.[1] ?? '');
  const shown = unescaped(/<pre class="body"[^>]*><code>(.*?)<\/code><\/pre>/s.exec(html)?.[1] ?? '');
  expect(shown).toBe(JSON.stringify(JSON.parse(exact), null, 2));
  return exact;
}

/** The text of the rows of the table named `label`. */
function rowsOf(html: string, label: string): string[] {
  const start = html.indexOf(`<table aria-label="${label}">`);
  if (start < 0) return [];
  const table = html.slice(start, html.indexOf('</table>', start));
  return [...table.matchAll(/<tr>(.*?)<\/tr>/gs)].slice(1).map((row) => row[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
}

describe('endpoints', () => {
  it('adds an endpoint from the form: answered by a redirect, its secret shown once on its page, listed as added in the dashboard', async () => {
    const m = await merchant();
    const added = await m.add(`${receiver.url}/added`);
    expect(added.path).not.toContain('whsec_');
    expect(added.secret).toBeDefined();
    expect(added.page.html).toContain('shown this once');
    // Shown once: the page again, or a reload, has no secret.
    const again = await m.developer.request('GET', added.path);
    expect(again.html).not.toContain('whsec_');
    const api = (await t.request('GET', `/v1/webhook_endpoints/${added.id}`, { key: m.key })).body;
    expect(api).toMatchObject({ url: `${receiver.url}/added`, description: 'Shop <orders>', events: ['payment.started', 'payment.paid'], livemode: false });
    // The secret shown is the one it signs with.
    await startPayment(m.key);
    await vi.waitFor(() => expect(at('/added')).toHaveLength(1), { timeout: 5_000 });
    expect(verifiesWith(at('/added')[0]!.headers['service-signature'] as string, added.secret!, at('/added')[0]!.body, unixSeconds(t.clock.now()))).toBe(true);

    await t.jump(1_000);
    const byKey = await t.request('POST', '/v1/webhook_endpoints', { key: m.key, body: { url: 'https://hooks.shop.example/by-key' } });
    const hint = (await t.db.selectFrom('api_keys').select('secret_hint').where('business_id', '=', m.biz.id).executeTakeFirstOrThrow()).secret_hint;
    const rows = rowsOf((await m.viewer.request('GET', m.list())).html, 'Endpoints');
    expect(rows).toEqual([
      expect.stringContaining(`https://hooks.shop.example/by-key – Every payment event By the key ${hint}`),
      expect.stringContaining(`${receiver.url}/added Shop &lt;orders> payment.started, payment.paid In the dashboard`),
    ]);
    expect(byKey.status).toBe(201);
  });

  it('refuses what the API refuses, beside the field with what was typed kept; a viewer is offered nothing and a forged form is refused in the verb', async () => {
    const m = await merchant();
    const form = await m.developer.request('GET', `${m.list()}/new`);
    const fields = Browser.form(form.html, m.list());
    const badUrl = await m.developer.request('POST', m.list(), { ...fields, url: 'ftp://files.shop.example', description: 'Files', 'payment.paid': 'on' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.html).toContain('id="field-url-error"');
    expect(badUrl.html).toContain('value="ftp://files.shop.example"');
    expect(badUrl.html).toMatch(/<input type="checkbox" id="field-events-payment.paid" name="payment.paid" checked/);
    const noEvents = await m.developer.request('POST', m.list(), { ...fields, url: 'https://hooks.shop.example/a' });
    expect(noEvents.status).toBe(400);
    expect(noEvents.html).toContain('id="field-events-error"');
    await m.add('https://hooks.shop.example/taken');
    const duplicate = await m.developer.request('POST', m.list(), { ...fields, url: 'https://hooks.shop.example/taken', 'payment.paid': 'on' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.html).toContain('id="field-url-error"');

    const viewerList = await m.viewer.request('GET', m.list());
    expect(viewerList.html).not.toContain('Add an endpoint');
    expect((await m.viewer.request('GET', `${m.list()}/new`)).location).toBe(m.list());
    const forged = await m.viewer.request('POST', m.list(), { csrf: await m.viewerCsrf(), url: 'https://evil.example/hooks', 'payment.paid': 'on' });
    expect(forged.status).toBe(403);
    expect(forged.html).toContain('needs the developer role');
    expect((await t.request('GET', '/v1/webhook_endpoints', { key: m.key })).body.data.map((endpoint: { url: string }) => endpoint.url)).toEqual(['https://hooks.shop.example/taken']);
  });

  it('keeps retrying an endpoint added in the dashboard when it answers 410 Gone; one added by a key is removed', async () => {
    answerPerPath({ '/gone-dashboard': 410, '/gone-key': 410 });
    const m = await merchant();
    const added = await m.add(`${receiver.url}/gone-dashboard`, ['payment.started']);
    const byKey = (await t.request('POST', '/v1/webhook_endpoints', { key: m.key, body: { url: `${receiver.url}/gone-key`, events: ['payment.started'] } })).body;
    await startPayment(m.key);
    await settles(added.id, { status: 'pending', attempts: 1, last_status: 410 });
    await settles(byKey.id, { status: 'failed', attempts: 1, last_status: 410 });
    expect((await t.request('GET', `/v1/webhook_endpoints/${added.id}`, { key: m.key })).status).toBe(200);
    expect((await t.request('GET', `/v1/webhook_endpoints/${byKey.id}`, { key: m.key })).status).toBe(404);
    // The next automatic attempt still goes out.
    await t.jump(MINUTE);
    await vi.waitFor(async () => {
      await t.tick(1_000);
      expect(at('/gone-dashboard')).toHaveLength(2);
    }, { timeout: 10_000, interval: 50 });
    answerPerPath({});
  });

  it('edits the address, description and events: the waiting retry goes to the new address', async () => {
    answerPerPath({ '/broken': 503 });
    const m = await merchant();
    const added = await m.add(`${receiver.url}/broken`, ['payment.started']);
    await startPayment(m.key);
    await settles(added.id, { status: 'pending', attempts: 1, last_status: 503 });
    const edit = `${added.path}/edit`;
    const form = await m.developer.request('GET', edit);
    expect(form.html).toContain(`value="${receiver.url}/broken"`);
    const saved = await m.developer.request('POST', edit, { ...Browser.form(form.html, edit), url: `${receiver.url}/fixed`, description: '', 'payment.started': 'on', 'payment.failed': 'on' });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${added.path}?saved=1`);
    expect((await m.developer.request('GET', saved.location!)).html).toContain('Saved.');
    expect((await t.request('GET', `/v1/webhook_endpoints/${added.id}`, { key: m.key })).body).toMatchObject({ url: `${receiver.url}/fixed`, description: null, events: ['payment.started', 'payment.failed'] });
    await t.jump(MINUTE);
    await vi.waitFor(async () => {
      await t.tick(1_000);
      expect(at('/fixed')).toHaveLength(1);
    }, { timeout: 10_000, interval: 50 });
    await settles(added.id, { status: 'succeeded', attempts: 2 });
    // A refusal keeps what was typed.
    const refused = await m.developer.request('POST', edit, { ...Browser.form(form.html, edit), url: 'not an address', 'payment.paid': 'on' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('value="not an address"');
    answerPerPath({});
  });

  it('rolls the secret at once (the old one signs nothing further) or keeping the previous one 24 hours (both signatures)', async () => {
    const m = await merchant();
    const added = await m.add(`${receiver.url}/rolled`);
    const roll = `${added.path}/roll`;
    const form = await m.developer.request('GET', roll);
    expect(form.html).toContain('the old secret signs nothing further');
    const ping = async () => {
      const page = await m.developer.request('GET', added.path);
      const sent = await m.developer.request('POST', `${added.path}/test`, { ...Browser.form(page.html, `${added.path}/test`), type: 'ping' });
      expect(sent.status).toBe(303);
      return at('/rolled').at(-1)!;
    };

    const atOnce = await m.developer.request('POST', roll, { ...Browser.form(form.html, roll), keep_previous: 'no' });
    expect(atOnce.location).toBe(added.path);
    const atOncePage = await m.developer.request('GET', added.path);
    expect(atOncePage.html).toContain('the old secret signs nothing further');
    const first = /<code>(whsec_\w{32})<\/code>/.exec(atOncePage.html)![1]!;
    let request = await ping();
    expect(signaturesOf(request.headers['service-signature'] as string)).toHaveLength(1);
    expect(verifiesWith(request.headers['service-signature'] as string, first, request.body, unixSeconds(t.clock.now()))).toBe(true);
    expect(verifiesWith(request.headers['service-signature'] as string, added.secret!, request.body, unixSeconds(t.clock.now()))).toBe(false);

    expect((await m.developer.request('POST', roll, { ...Browser.form(form.html, roll), keep_previous: 'yes' })).status).toBe(303);
    const overlap = await m.developer.request('GET', added.path);
    expect(overlap.html).toContain('The previous secret also signs every request until');
    const second = /<code>(whsec_\w{32})<\/code>/.exec(overlap.html)![1]!;
    request = await ping();
    expect(signaturesOf(request.headers['service-signature'] as string)).toHaveLength(2);
    for (const secret of [first, second]) expect(verifiesWith(request.headers['service-signature'] as string, secret, request.body, unixSeconds(t.clock.now()))).toBe(true);
    expect(overlap.html).toContain('Previous secret signs until');
  });

  it('sends a test event: in Test a ping or a sample of any payment event, in Live a ping only', async () => {
    const m = await merchant();
    const added = await m.add(`${receiver.url}/samples`);
    const page = await m.developer.request('GET', added.path);
    expect(page.html).toContain('<option value="payment.held"');
    const sent = await m.developer.request('POST', `${added.path}/test`, { ...Browser.form(page.html, `${added.path}/test`), type: 'payment.held' });
    expect(sent.location).toMatch(new RegExp(`^${added.path}/deliveries/dlv_\\w+\\?sent=1$`));
    const delivery = await m.developer.request('GET', sent.location!);
    expect(delivery.html).toContain('Sent: the endpoint answered 200.');
    expect(JSON.parse(at('/samples').at(-1)!.body)).toMatchObject({ type: 'payment.held', data: { payment: { id: 'pay_sample', metadata: { sample: true } } } });
    expect(bodyOf(delivery.html)).toBe(at('/samples').at(-1)!.body);

    const live = await m.add('https://hooks.shop.example/live', ['payment.paid'], 'live');
    expect(live.page.html).not.toContain('name="type"');
    expect(live.page.html).toContain('Send a ping');
    const refused = await m.developer.request('POST', `${live.path}/test`, { ...Browser.form(live.page.html, `${live.path}/test`), type: 'payment.paid' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('A Live endpoint can receive a ping only.');
    const ping = await m.developer.request('POST', `${live.path}/test`, Browser.form(live.page.html, `${live.path}/test`));
    expect(ping.status).toBe(303);
    const [only] = await deliveriesOf(live.id);
    expect(only).toMatchObject({ kind: 'test', event_type: 'ping' });
  });

  it('removes an endpoint after a confirmation step; its history stays readable, read only, and it is listed as removed', async () => {
    const m = await merchant();
    const added = await m.add(`${receiver.url}/removed`);
    await startPayment(m.key);
    await settles(added.id, { status: 'succeeded' });
    const page = await m.developer.request('GET', added.path);
    expect(page.html).toContain(`href="${added.path}/remove"`);
    const confirm = await m.developer.request('GET', `${added.path}/remove`);
    expect(confirm.html).toContain('Remove this endpoint?');
    const removed = await m.developer.request('POST', `${added.path}/remove`, Browser.form(confirm.html, `${added.path}/remove`));
    expect(removed.status).toBe(303);
    expect((await t.request('GET', `/v1/webhook_endpoints/${added.id}`, { key: m.key })).status).toBe(404);
    const after = await m.developer.request('GET', removed.location!);
    expect(after.status).toBe(200);
    expect(after.html).toContain('Removed: nothing is sent to it any more.');
    expect(rowsOf(after.html, 'Delivery log')).toEqual([expect.stringContaining('payment.started')]);
    expect(after.html).not.toContain(`${added.path}/edit`);
    expect(after.html).not.toContain(`${added.path}/replay`);
    expect(rowsOf((await m.developer.request('GET', m.list())).html, 'Removed endpoints')).toEqual([expect.stringContaining(`${receiver.url}/removed`)]);
    // The edit form of a removed endpoint is not found; a second removal too.
    expect((await m.developer.request('GET', `${added.path}/edit`)).status).toBe(404);
    expect((await m.developer.request('POST', `${added.path}/remove`, Browser.form(confirm.html, `${added.path}/remove`))).status).toBe(404);
  });
});

describe('the delivery log', () => {
  it('shows each delivery with its attempts and exact body; retry now sends a retrying one, resend a finished one', async () => {
    answerPerPath({ '/flaky': 503 });
    const m = await merchant();
    const added = await m.add(`${receiver.url}/flaky`, ['payment.started']);
    const paymentId = await startPayment(m.key);
    await settles(added.id, { status: 'pending', attempts: 1, last_status: 503 });
    const [delivery] = await deliveriesOf(added.id);
    const event = await t.db.selectFrom('events').select(['id', 'body']).where('payment_id', '=', paymentId).executeTakeFirstOrThrow();
    const log = await m.viewer.request('GET', added.path);
    expect(rowsOf(log.html, 'Delivery log')).toEqual([expect.stringMatching(/^payment\.started .+ 1 of 7 Retrying the endpoint answered 503 .+UTC$/)]);
    const path = `${added.path}/deliveries/${delivery!.id}`;
    const detail = await m.viewer.request('GET', path);
    expect(detail.html).toContain(event.id);
    expect(bodyOf(detail.html)).toBe(event.body);
    expect(rowsOf(detail.html, 'Attempts')).toEqual([expect.stringContaining('automatic 1 of 7')]);
    expect(rowsOf(detail.html, 'Attempts')[0]).toContain('answer to /flaky');
    expect(detail.html).not.toContain(`${path}/retry`); // a viewer

    answerPerPath({});
    const page = await m.developer.request('GET', path);
    const retried = await m.developer.request('POST', `${path}/retry`, Browser.form(page.html, `${path}/retry`));
    expect(retried.location).toBe(`${path}?sent=1`);
    const after = await m.developer.request('GET', retried.location!);
    expect(after.html).toContain('Sent: the endpoint answered 200.');
    expect(rowsOf(after.html, 'Attempts').map((row) => row.split(' ').slice(0, 2).join(' '))).toEqual(['automatic 1', 'retry now']);
    expect((await deliveriesOf(added.id))[0]).toMatchObject({ status: 'succeeded', attempts: 1, manual_attempts: 1 });

    expect(after.html).toContain(`${path}/resend`);
    const resent = await m.developer.request('POST', `${path}/resend`, Browser.form(after.html, `${path}/resend`));
    expect(resent.status).toBe(303);
    expect(at('/flaky').map((request) => request.body)).toEqual([event.body, event.body, event.body]);
    expect(JSON.parse(at('/flaky')[2]!.body).id).toBe(event.id);
    // Retry now of a finished delivery is refused by the action.
    expect((await m.developer.request('POST', `${path}/retry`, Browser.form(after.html, `${path}/resend`))).status).toBe(409);
  });
});


describe('replaying failed deliveries', () => {
  /** Ticks pg-boss's clock (its replay worker polls as it moves) until `check` passes. */
  async function ticksUntil(check: () => unknown) {
    await vi.waitFor(async () => {
      try {
        await check();
      } catch (error) {
        await t.tick(1_000);
        throw error;
      }
    }, { timeout: 15_000, interval: 50 });
  }

  it('sends every delivery that failed since the chosen time once more, in the background, its progress on the page', async () => {
    answerPerPath({ '/outage': 503 });
    const m = await merchant();
    const added = await m.add(`${receiver.url}/outage`, ['payment.started']);
    const fail = async () => {
      await startPayment(m.key);
      await settles(added.id, { status: 'pending', attempts: 1 });
      // As after its seventh attempt.
      await t.db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null, finished_at: t.clock.now() }).where('endpoint_id', '=', added.id).where('status', '=', 'pending').execute();
    };
    await fail();
    await t.jump(3 * HOUR);
    const since = new Date(t.clock.now().getTime() - HOUR).toISOString().slice(0, 16).replace('T', ' ');
    await fail();
    await fail();
    answerPerPath({});
    const before = at('/outage').length;

    const page = await m.developer.request('GET', added.path);
    const replay = `${added.path}/replay`;
    const asked = await m.developer.request('POST', replay, { ...Browser.form(page.html, replay), since });
    expect(asked.status, asked.html).toBe(303);
    expect(asked.location).toBe(`${added.path}?replaying=1`);
    const progress = await m.developer.request('GET', asked.location!);
    expect(progress.html).toContain('The replay started');
    expect(rowsOf(progress.html, 'Replays')).toEqual([expect.stringContaining('0 of 2 sent')]);
    // One at a time per endpoint.
    const twice = await m.developer.request('POST', replay, { ...Browser.form(page.html, replay), since });
    expect(twice.status).toBe(409);
    expect(twice.html).toContain('still running');

    await ticksUntil(async () => expect(rowsOf((await m.viewer.request('GET', added.path)).html, 'Replays')[0]).toMatch(/2 of 2 sent: 2 delivered finished/));
    expect(at('/outage')).toHaveLength(before + 2);
    const statuses = (await deliveriesOf(added.id)).map((delivery) => delivery.status);
    expect(statuses).toEqual(['succeeded', 'succeeded', 'failed']); // the one before the chosen time stays failed
    const attempts = await t.db.selectFrom('webhook_delivery_attempts').select('trigger').where('endpoint_id', '=', added.id).where('trigger', '=', 'resend').execute();
    expect(attempts).toHaveLength(2);

    // Nothing failed since then: said beside the field, with what was typed.
    const nothing = await m.developer.request('POST', replay, { ...Browser.form(page.html, replay), since });
    expect(nothing.status).toBe(409);
    expect(nothing.html).toContain('id="field-since-error"');
    expect(nothing.html).toContain('nothing to replay');
    const notATime = await m.developer.request('POST', replay, { ...Browser.form(page.html, replay), since: '2026-02-30' });
    expect(notATime.status).toBe(400);
    expect(notATime.html).toContain(`value="2026-02-30"`);
    expect(notATime.html).toContain('Failed since must be a day');

    // Kept as long as the log it acted on.
    await t.jump(31 * DAY);
    await forgetDeliveryHistory(t.context);
    expect(await t.db.selectFrom('webhook_replays').select('id').where('endpoint_id', '=', added.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('webhook_replay_deliveries').select('replay_id').execute()).toEqual([]);
  });

  it('sends each delivery once however many jobs run the replay at once', async () => {
    answerPerPath({ '/twice': 503 });
    const m = await merchant();
    const added = await m.add(`${receiver.url}/twice`, ['payment.started']);
    for (let count = 1; count <= 3; count += 1) {
      await startPayment(m.key);
      await vi.waitFor(async () => expect(at('/twice')).toHaveLength(count), { timeout: 5_000 });
    }
    await vi.waitFor(async () => expect((await deliveriesOf(added.id)).map((delivery) => delivery.attempts)).toEqual([1, 1, 1]), { timeout: 5_000 });
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null, finished_at: t.clock.now() }).where('endpoint_id', '=', added.id).execute();
    answerPerPath({});
    const operator = await asOperatorOn(t.context, 'webhook_endpoint', added.id);
    const replay = await replayFailedDeliveries.run(operator, { id: added.id, since: unixSeconds(t.clock.now()) - 60 });
    await Promise.all([1, 2, 3].map(() => runReplayJob(t.context, { data: { replayId: replay.id } })));
    expect(at('/twice')).toHaveLength(6);
    expect(new Set(at('/twice').slice(3).map((request) => JSON.parse(request.body).id)).size).toBe(3);
    expect(await t.db.selectFrom('webhook_replays').selectAll().where('id', '=', replay.id).executeTakeFirstOrThrow()).toMatchObject({ status: 'done', total: 3, done: 3, succeeded: 3, skipped: 0 });
  });
});

describe('roles, modes and businesses', () => {
  it('refuses every form a viewer forges, in the verb, and changes nothing', async () => {
    answerPerPath({ '/viewer': 503 });
    const m = await merchant();
    const added = await m.add(`${receiver.url}/viewer`, ['payment.started']);
    await startPayment(m.key);
    await settles(added.id, { status: 'pending', attempts: 1 });
    const [delivery] = await deliveriesOf(added.id);
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null, finished_at: t.clock.now() }).where('id', '=', delivery!.id).execute();
    const page = await m.viewer.request('GET', added.path);
    for (const offered of ['/edit', '/roll', '/remove', '/test', '/replay']) expect(page.html, offered).not.toContain(`${added.path}${offered}`);
    for (const formPage of ['/edit', '/roll', '/remove']) expect((await m.viewer.request('GET', `${added.path}${formPage}`)).location, formPage).toBe(added.path);
    const csrf = await m.viewerCsrf();
    const deliveryPath = `${added.path}/deliveries/${delivery!.id}`;
    const before = { requests: receiver.received.length, attempts: await t.db.selectFrom('webhook_delivery_attempts').select('id').execute() };
    for (const [path, fields] of [
      [`${added.path}/edit`, { url: 'https://evil.example/hooks', 'payment.paid': 'on' }],
      [`${added.path}/roll`, { keep_previous: 'no' }],
      [`${added.path}/test`, { type: 'ping' }],
      [`${added.path}/remove`, {}],
      [`${added.path}/replay`, { since: '2020-01-01' }],
      [`${deliveryPath}/resend`, {}],
      [`${deliveryPath}/retry`, {}],
    ] as const) {
      const forged = await m.viewer.request('POST', path, { csrf, ...fields });
      expect(forged.status, path).toBe(403);
      expect(forged.html, path).toContain('you are a viewer');
    }
    expect(receiver.received).toHaveLength(before.requests);
    expect(await t.db.selectFrom('webhook_delivery_attempts').select('id').execute()).toEqual(before.attempts);
    expect(await t.db.selectFrom('webhook_replays').select('id').where('endpoint_id', '=', added.id).execute()).toEqual([]);
    const endpoint = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', added.id).executeTakeFirstOrThrow();
    expect(endpoint).toMatchObject({ url: `${receiver.url}/viewer`, deleted_at: null, previous_secret_encrypted: null });
    expect(t.context.secrets.open(endpoint.secret_encrypted!)).toBe(added.secret);
    answerPerPath({});
  });

  it('keeps Test and Live apart; another business\'s endpoint and delivery are not found', async () => {
    const m = await merchant();
    const other = await merchant();
    const mine = await m.add('https://hooks.shop.example/test-only');
    const theirs = await other.add(`${receiver.url}/theirs`);
    const sent = await other.developer.request('POST', `${theirs.path}/test`, { ...Browser.form(theirs.page.html, `${theirs.path}/test`), type: 'ping' });
    const theirDelivery = sent.location!.replace(/\?sent=1$/, '');

    expect((await m.developer.request('GET', m.list('live'))).html).not.toContain('test-only');
    expect((await m.developer.request('GET', m.list('live'))).html).toContain('No Live endpoints yet.');
    expect((await m.developer.request('GET', `${m.list('live')}/${mine.id}`)).status).toBe(404);
    expect((await m.developer.request('GET', `${m.list('live')}/${mine.id}/edit`)).status).toBe(404);

    const ownPage = await m.developer.request('GET', mine.path);
    const csrf = csrfOf(ownPage.html);
    const inMine = (path: string) => path.replace(`/businesses/${other.biz.id}/`, `/businesses/${m.biz.id}/`);
    // Their endpoint, at its own address (not my business) and under mine (not mine to act on).
    expect((await m.developer.request('GET', theirs.path)).status).toBe(404);
    expect((await m.developer.request('GET', inMine(theirs.path))).status).toBe(404);
    expect((await m.developer.request('GET', inMine(theirDelivery))).status).toBe(404);
    for (const path of [`${theirs.path}/test`, `${inMine(theirs.path)}/test`, `${inMine(theirs.path)}/edit`, `${inMine(theirs.path)}/remove`, `${inMine(theirDelivery)}/resend`]) {
      const refused = await m.developer.request('POST', path, { csrf, type: 'ping', url: 'https://evil.example', 'payment.paid': 'on' });
      expect(refused.status, path).toBe(404);
    }
    expect((await t.request('GET', `/v1/webhook_endpoints/${theirs.id}`, { key: other.key })).body.url).toBe(`${receiver.url}/theirs`);
    // A delivery is found under its own endpoint only.
    expect((await m.developer.request('GET', `${mine.path}/deliveries/${theirDelivery.split('/').at(-1)}`)).status).toBe(404);
  });
});
