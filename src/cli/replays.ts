import { setTimeout as sleep } from 'node:timers/promises';
import { DAY, HOUR, MINUTE, parseMoment } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import type { OperationContext } from '../verbs/context.ts';
import { listDeliveryReplays } from '../webhooks/replays/list.ts';
import { replayFailedDeliveries } from '../webhooks/replays/request.ts';
import { REPLAY_STATUS, replayProgress, type ReplayOut } from '../webhooks/replays/schemas.ts';
import { asOperatorOn, positional, required, UsageError, type Command } from './command.ts';

// Replaying an endpoint's failed deliveries (the dashboard's replay, the same action): the
// operator asks, the server's workers send them in the background, and the operator follows
// how far it got, here or on the endpoint's page.

const SINCE_FORMS = '--since takes a time such as 2026-11-20T00:00:00Z or 2026-11-20T09:30:00+01:00, a day such as 2026-11-20 (UTC), or how long ago: 30m, 6h, 2d.';
const AGO = /^(\d{1,6})(m|h|d)$/;
const UNITS = { m: MINUTE, h: HOUR, d: DAY } as const;
/** How often --wait reads the replay's progress. */
const POLL_MS = 1_000;
/** A replay still waiting this long has no worker to run it: --wait says so once. */
const NO_WORKER_MS = 30_000;

/**
 * --since as Unix seconds: an ISO 8601 time (UTC unless it names its offset), a day (its
 * midnight, UTC), or a span back from `now`. Anything else, or a date that does not exist
 * (2026-02-30), is a usage mistake. A time still to come is the action's to refuse.
 */
export function sinceSeconds(text: string, now: Date): number {
  const ago = AGO.exec(text.trim());
  if (ago) return Math.floor((now.getTime() - Number(ago[1]) * UNITS[ago[2] as keyof typeof UNITS]) / 1000);
  const moment = parseMoment(text.trim());
  if (moment === null) {
    throw new UsageError(/^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? `${text} is not a time that exists. ${SINCE_FORMS}` : SINCE_FORMS);
  }
  return moment / 1000;
}

const iso = (seconds: number | null) => (seconds === null ? '-' : new Date(seconds * 1000).toISOString());
const deliveries = (count: number) => `${count} ${count === 1 ? 'delivery' : 'deliveries'}`;

function described(replay: ReplayOut): string {
  return [`${replay.id}`, `since ${iso(replay.since)}`, `asked ${iso(replay.created)} by ${replay.requested_by}`, replayProgress(replay),
    replay.status === 'done' ? `finished ${iso(replay.finished)}` : REPLAY_STATUS[replay.status]].join('  ');
}

/** The replay as its endpoint's replays list it now. */
async function progressOf(ctx: OperationContext, replay: ReplayOut): Promise<ReplayOut> {
  const latest = (await listDeliveryReplays.run(ctx, { id: replay.endpoint_id })).find((each) => each.id === replay.id);
  if (!latest) throw new ApiError('not_found', `Replay ${replay.id} is no longer among the endpoint's latest replays; see webhooks replays ${replay.endpoint_id}.`);
  return latest;
}

/** Follows a replay until it is done, saying each change of its progress on stderr (stdout keeps the one result). */
async function follow(ctx: OperationContext, asked: ReplayOut, sayLine: (line: string) => void): Promise<ReplayOut> {
  const say = (line: string) => sayLine(`Replay ${asked.id}: ${line}`);
  const waitingSince = ctx.clock.now().getTime();
  let replay = asked;
  let said = '';
  let nudged = false;
  for (;;) {
    const line = `${REPLAY_STATUS[replay.status]}, ${replayProgress(replay)}`;
    if (line !== said) say(said = line);
    if (replay.status === 'done') return replay;
    if (!nudged && replay.status === 'queued' && ctx.clock.now().getTime() - waitingSince >= NO_WORKER_MS) {
      nudged = true;
      say('no worker has taken it yet: the server\'s workers (role worker or all) send replays, and it starts when one runs. Ctrl-C stops waiting, not the replay.');
    }
    await sleep(POLL_MS);
    replay = await progressOf(ctx, replay);
  }
}

export const replayCommands: Record<string, Command> = {
  'webhooks replay': {
    usage: 'webhooks replay ENDPOINT_ID --since TIME [--wait] [--json]   (send every delivery that failed since TIME again, in the background; --wait follows it to the end)',
    description: 'recover after an outage: every delivery to the endpoint that failed (all its attempts used) since `TIME` is sent once more, oldest first, by the server\'s workers in the background, as a resend (same event id and body). The dashboard\'s *Replay failed deliveries*, the same action: one replay of an endpoint at a time, recorded in the account activity. `TIME` is an ISO 8601 time (`2026-11-20T00:00:00Z`, `2026-11-20T09:30:00+01:00`; UTC when it names no offset), a day (`2026-11-20`, midnight UTC) or how long ago (`30m`, `6h`, `2d`) → the replay `{ "id", "endpoint_id", "since", "status": "queued", "total", … }`. With `--wait` it follows the replay, each change of progress on stderr, and prints it finished (`"status": "done"`, `succeeded`, `failed` again, `skipped`: no longer failed); Ctrl-C stops the waiting, not the replay. A malformed `TIME` exits 2; an unknown or removed endpoint, a time to come, nothing failed since then, or a replay still running exit 1',
    options: { since: { type: 'string' }, wait: { type: 'boolean' } },
    async run(context, flags, positionals, say) {
      const id = positional(positionals, 'endpoint', this.usage);
      const since = sinceSeconds(required(flags, 'since'), context.clock.now());
      const ctx = await asOperatorOn(context, 'webhook_endpoint', id);
      const asked = await replayFailedDeliveries.run(ctx, { id, since });
      if (flags.wait !== true) {
        return {
          json: asked,
          text: `Replay ${asked.id} of ${id}: ${deliveries(asked.total)} that failed since ${iso(asked.since)} will be sent again, oldest first, by the server's workers.\n`
            + `Follow it: npm run --silent cli -- webhooks replays ${id}`,
        };
      }
      const done = await follow(ctx, asked, say);
      return { json: done, text: `Replay ${done.id} of ${id} finished: ${replayProgress(done)}.` };
    },
  },
  'webhooks replays': {
    usage: 'webhooks replays ENDPOINT_ID [--json]   (the endpoint\'s latest replays and how far each got)',
    description: 'the endpoint\'s latest 5 replays and how far each got: since, asked when and by whom, `3 of 5 sent: 2 delivered, 1 failed again`, finished → `{ "data": [ … ] }`',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'endpoint', this.usage);
      const data = await listDeliveryReplays.run(await asOperatorOn(context, 'webhook_endpoint', id), { id });
      return { json: { data }, text: data.length ? data.map(described).join('\n') : 'No replays of this endpoint yet.' };
    },
  },
};
