import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { actions } from '../src/actions.ts';
import { sinceSeconds } from '../src/cli/replays.ts';
import { DAY, MINUTE } from '../src/core/clock.ts';
import { listDeliveryReplays } from '../src/webhooks/replays/list.ts';
import { replayFailedDeliveries } from '../src/webhooks/replays/request.ts';
import { runCli } from './support/cli.ts';
import { signIn } from './support/dashboard.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { webhookBench } from './webhooks/support.ts';

// Replaying an endpoint's failed deliveries from the CLI (issue 14): deliveries that really
// failed (seven attempts on the retry schedule against a receiver that answers 503), the
// operator's command in its own process, the app's workers sending them again once the
// receiver is back, and the progress and result read through the CLI. The clock starts two
// days back, so the deliveries lie in the past of the CLI's (real) clock.

let t: TestApp;
let receiver: Receiver;
let dataDir: string;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true, clockStart: Date.now() - 2 * DAY });
  receiver = await startReceiver();
  dataDir = await mkdtemp(path.join(tmpdir(), 'cli-replay-'));
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const { merchant, respondPerPath, startPayment, at } = webhookBench(() => t, () => receiver);
const cli = (args: string[]) => runCli(t, args, { DATA_DIR: dataDir });

function json(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '');
}

const deliveriesOf = (endpointId: string) => t.db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id')
  .select(['d.id', 'd.status', 'd.attempts', 'd.created_at', 'e.body']).where('d.endpoint_id', '=', endpointId).orderBy('d.created_at').orderBy('d.seq').execute();

/** Moves the clocks along the retry schedule until no delivery of the endpoint is pending: each has failed its seventh attempt. */
async function failAll(endpointId: string) {
  await vi.waitFor(async () => {
    const pending = await t.db.selectFrom('webhook_deliveries').select('next_attempt_at').where('endpoint_id', '=', endpointId).where('status', '=', 'pending').execute();
    if (pending.length === 0) return;
    const due = Math.min(...pending.map((delivery) => delivery.next_attempt_at?.getTime() ?? Number.POSITIVE_INFINITY));
    if (Number.isFinite(due) && due > t.clock.now().getTime()) await t.jump(due - t.clock.now().getTime());
    await t.tick(1_000);
    throw new Error(`${pending.length} deliveries are still retrying`);
  }, { timeout: 30_000, interval: 20 });
}

/** Ticks the workers' clock until `promise` settles (the workers poll as their clock moves). */
async function ticksUntilSettled<T>(promise: Promise<T>): Promise<T> {
  let settled = false;
  void promise.finally(() => { settled = true; });
  for (let ticks = 0; !settled && ticks < 300; ticks += 1) {
    await t.tick(1_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return promise;
}

const isoSeconds = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

describe('webhooks replay', () => {
  it('resends every delivery that failed since the time given, in the background, its progress and result read through the CLI', async () => {
    respondPerPath({ '/outage': (response) => response.writeHead(503).end('down') });
    const m = await merchant('/outage', ['payment.started']);
    // One failed a day before the chosen time; two failed after it.
    await startPayment(m.key);
    await vi.waitFor(() => expect(at('/outage')).toHaveLength(1), { timeout: 5_000 });
    await failAll(m.endpointId);
    const chosen = t.clock.now().getTime() + 6 * 60 * MINUTE;
    await t.jump(chosen + MINUTE - t.clock.now().getTime());
    await startPayment(m.key);
    await startPayment(m.key);
    await vi.waitFor(() => expect(at('/outage')).toHaveLength(9), { timeout: 5_000 });
    await failAll(m.endpointId);
    const [before, ...after] = await deliveriesOf(m.endpointId);
    expect([before, ...after].map((delivery) => [delivery!.status, delivery!.attempts])).toEqual([['failed', 7], ['failed', 7], ['failed', 7]]);
    expect(at('/outage')).toHaveLength(21);

    // The receiver is back. The workers' clock meets the CLI's, so the job the CLI queues is due for them.
    respondPerPath({});
    await t.jump(Date.now() + MINUTE - t.clock.now().getTime());
    const waiting = cli(['webhooks', 'replay', m.endpointId, '--since', isoSeconds(chosen), '--wait', '--json']);
    const replay = await vi.waitFor(async () => t.db.selectFrom('webhook_replays').selectAll().where('endpoint_id', '=', m.endpointId).executeTakeFirstOrThrow(), { timeout: 20_000, interval: 100 });
    expect(replay).toMatchObject({ status: 'queued', total: 2, done: 0, requested_by: 'the operator', since: new Date(Math.floor(chosen / 1000) * 1000) });

    // While it waits: visible through the CLI, and one replay of an endpoint at a time.
    const queued = json((await cli(['webhooks', 'replays', m.endpointId, '--json'])).stdout);
    expect(queued.data).toEqual([expect.objectContaining({ id: replay.id, status: 'queued', total: 2, done: 0, requested_by: 'the operator' })]);
    expect((await cli(['webhooks', 'replays', m.endpointId])).stdout).toContain(`${replay.id}  since ${new Date(Math.floor(chosen / 1000) * 1000).toISOString()}`);
    const twice = await cli(['webhooks', 'replay', m.endpointId, '--since', '3d']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toBe('Refused (invalid_state): A replay of this endpoint is still running; wait for it to finish.\n');

    const waited = await ticksUntilSettled(waiting);
    expect(waited.code, waited.stderr).toBe(0);
    expect(json(waited.stdout)).toMatchObject({ id: replay.id, endpoint_id: m.endpointId, status: 'done', total: 2, done: 2, succeeded: 2, failed: 0, skipped: 0 });
    expect(waited.stderr).toContain(`Replay ${replay.id}: waiting to start, 0 of 2 sent: 0 delivered\n`);
    expect(waited.stderr).toContain(`Replay ${replay.id}: finished, 2 of 2 sent: 2 delivered\n`);

    // The receiver got each of the two again, oldest first, as they were; the one before the time stays failed.
    const resent = at('/outage').slice(21);
    expect(resent.map((request) => request.body)).toEqual(after.map((delivery) => delivery.body));
    expect((await deliveriesOf(m.endpointId)).map((delivery) => delivery.status)).toEqual(['failed', 'succeeded', 'succeeded']);
    const attempts = json((await cli(['webhooks', 'attempts', after[0]!.id, '--json'])).stdout);
    expect(attempts.data.map((attempt: { trigger: string }) => attempt.trigger)).toEqual([...Array(7).fill('automatic'), 'resend']);
    const listed = await cli(['webhooks', 'replays', m.endpointId]);
    expect(listed.stdout).toMatch(new RegExp(`^${replay.id}  since \\S+  asked \\S+ by the operator  2 of 2 sent: 2 delivered  finished \\S+\\n$`));

    // Nothing failed since then any more: said, not queued.
    const nothing = await cli(['webhooks', 'replay', m.endpointId, '--since', isoSeconds(chosen)]);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('Refused (invalid_state): No delivery to this endpoint has failed since then');

    // The dashboard's replay: one action of the registry, recorded as the operator's, shown on the endpoint's page.
    expect(actions).toContain(replayFailedDeliveries);
    expect(actions).toContain(listDeliveryReplays);
    const activity = await t.db.selectFrom('activity').selectAll().where('subject_id', '=', m.endpointId).where('action', '=', 'webhook_endpoint.replay_requested').execute();
    expect(activity).toEqual([expect.objectContaining({ actor: 'operator', details: { since: Math.floor(chosen / 1000), total: 2 } })]);
    const owner = await t.db.selectFrom('memberships as ms').innerJoin('people as p', 'p.id', 'ms.person_id').select('p.email')
      .where('ms.business_id', '=', m.biz.id).where('ms.role', '=', 'owner').executeTakeFirstOrThrow();
    const page = await (await signIn(t, owner.email)).request('GET', `/dashboard/businesses/${m.biz.id}/test/webhooks/${m.endpointId}`);
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/the operator<\/td>\s*<td[^>]*>2 of 2 sent: 2 delivered/);
  }, 120_000);

  it('refuses bad input: exit 2 with the usage for a malformed command, 1 with the reason for a refusal', async () => {
    const m = await merchant('/fine', ['payment.started']);
    const future = isoSeconds(Date.now() + DAY);
    const usage: Array<[string[], string]> = [
      [['webhooks', 'replay', m.endpointId], '--since is required.'],
      [['webhooks', 'replay', '--since', '1h'], 'Name the endpoint'],
      [['webhooks', 'replay', m.endpointId, '--since', 'yesterday'], '--since takes a time such as 2026-11-20T00:00:00Z'],
      [['webhooks', 'replay', m.endpointId, '--since', '2026-02-30'], '2026-02-30 is not a time that exists.'],
      [['webhooks', 'replay', m.endpointId, '--since', '2026-11-20T25:00:00Z'], 'is not a time that exists.'],
      [['webhooks', 'replay', m.endpointId, '--since', '1h', '--frobnicate'], 'Unknown option'],
    ];
    const refused: Array<[string[], string]> = [
      [['webhooks', 'replay', 'we_nope', '--since', '1h'], "Refused (not_found): No webhook endpoint with id 'we_nope' exists."],
      [['webhooks', 'replays', 'we_nope'], "Refused (not_found): No webhook endpoint with id 'we_nope' exists."],
      [['webhooks', 'replay', m.endpointId, '--since', future], 'Refused (invalid_value, since): since must be a time in the past.'],
      [['webhooks', 'replay', m.endpointId, '--since', '2d'], 'Refused (invalid_state): No delivery to this endpoint has failed since then: there is nothing to replay.'],
    ];
    await Promise.all([
      ...usage.map(async ([args, message]) => {
        const result = await cli(args);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr, args.join(' ')).toContain(message);
        expect(result.stderr, args.join(' ')).toContain('Usage: webhooks replay');
      }),
      ...refused.map(async ([args, message]) => {
        const result = await cli(args);
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stdout, args.join(' ')).toBe('');
        expect(result.stderr, args.join(' ')).toBe(`${message}\n`);
      }),
    ]);
    const asJson = await cli(['webhooks', 'replay', m.endpointId, '--since', future, '--json']);
    expect(json(asJson.stdout)).toEqual({ error: { code: 'invalid_value', message: 'since must be a time in the past.', field: 'since' } });
    expect(json((await cli(['webhooks', 'replay', m.endpointId, '--since', 'soon', '--json'])).stdout).error.code).toBe('usage');

    // A removed endpoint is not replayed (its history stays readable for 30 days).
    expect((await t.request('DELETE', `/v1/webhook_endpoints/${m.endpointId}`, { key: m.key })).status).toBe(200);
    const removed = await cli(['webhooks', 'replay', m.endpointId, '--since', '1h']);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain('Refused (not_found)');
    expect(json((await cli(['webhooks', 'replays', m.endpointId, '--json'])).stdout)).toEqual({ data: [] });
  }, 60_000);
});

describe('--since', () => {
  const now = new Date(Date.UTC(2026, 10, 24, 12, 0, 0));
  it('reads an ISO time (UTC unless it names its offset), a day, or a span back from now', () => {
    expect(sinceSeconds('2026-11-20T00:00:00Z', now)).toBe(Date.UTC(2026, 10, 20) / 1000);
    expect(sinceSeconds('2026-11-20T09:30:00+01:00', now)).toBe(Date.UTC(2026, 10, 20, 8, 30) / 1000);
    expect(sinceSeconds('2026-11-20T09:30-0530', now)).toBe(Date.UTC(2026, 10, 20, 15, 0) / 1000);
    expect(sinceSeconds('2026-11-20 09:30', now)).toBe(Date.UTC(2026, 10, 20, 9, 30) / 1000);
    expect(sinceSeconds('2026-11-20', now)).toBe(Date.UTC(2026, 10, 20) / 1000);
    expect(sinceSeconds('90m', now)).toBe(Date.UTC(2026, 10, 24, 10, 30) / 1000);
    expect(sinceSeconds('6h', now)).toBe(Date.UTC(2026, 10, 24, 6) / 1000);
    expect(sinceSeconds('2d', now)).toBe(Date.UTC(2026, 10, 22, 12) / 1000);
  });

  it('refuses what is not a time, or a date that does not exist', () => {
    for (const text of ['', 'yesterday', '2026-11-20T00:00:00.5Z', '2026-13-01', '2026-02-29', '2026-11-20T24:00', '2026-11-20T10:00+15:00', '1w', '-1h', '2026-11-20Z']) {
      expect(() => sinceSeconds(text, now), text).toThrow(/--since takes a time|is not a time that exists/);
    }
  });
});
