import { MINUTE } from '../../core/clock.ts';
import type { ReplayOutcome } from '../../db/schema.ts';
import type { ReplayJobData } from '../../jobs/queues.ts';
import { loadTargets, recordManual, sendTarget, type DeliveryDeps } from '../deliveries.ts';

// The replay job: takes the replay's deliveries one at a time, in order, and sends each that is
// still failed once more (a resend: logged as such, a success finishes it). Each job sends a
// batch and queues the next, so no job runs long; a delivery is taken by one worker at a time,
// and its outcome is recorded, so a job that runs twice sends nothing twice.

/** Deliveries one job sends at most: at the 10-second time limit, well within the queue's 5-minute expiry. */
export const REPLAY_BATCH = 20;
/** A delivery taken this long ago belonged to a worker that stopped: it is taken again. */
const CLAIM_EXPIRES_MS = 2 * MINUTE;

type ReplayDeps = DeliveryDeps;

/** Takes the replay's next delivery nobody holds, or nothing when none is left. */
async function claimNext(deps: ReplayDeps, replayId: number): Promise<{ position: number; delivery_id: string } | undefined> {
  const now = deps.clock.now();
  const stale = new Date(now.getTime() - CLAIM_EXPIRES_MS);
  return deps.db.updateTable('webhook_replay_deliveries').set({ claimed_at: now })
    .where('replay_id', '=', replayId)
    .where('position', '=', (eb) => eb.selectFrom('webhook_replay_deliveries').select('position')
      .where('replay_id', '=', replayId).where('outcome', 'is', null)
      .where((open) => open.or([open('claimed_at', 'is', null), open('claimed_at', '<', stale)]))
      .orderBy('position').limit(1).forUpdate().skipLocked())
    .returning(['position', 'delivery_id'])
    .executeTakeFirst();
}

/** Sends the delivery once more if it is still failed and its endpoint still there. */
async function replayOne(deps: ReplayDeps, deliveryId: string): Promise<ReplayOutcome> {
  const target = (await loadTargets(deps.db, [deliveryId])).get(deliveryId);
  if (!target || target.status !== 'failed' || target.deleted_at !== null || target.secret_encrypted === null) return 'skipped';
  const { outcome, sentAt } = await sendTarget(deps, target);
  await recordManual(deps, target, 'resend', outcome, sentAt);
  return outcome.ok ? 'succeeded' : 'failed';
}

/** Records one delivery's outcome and counts it, once. */
async function record(deps: ReplayDeps, replayId: number, position: number, outcome: ReplayOutcome): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const marked = await trx.updateTable('webhook_replay_deliveries').set({ outcome })
      .where('replay_id', '=', replayId).where('position', '=', position).where('outcome', 'is', null).executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) return;
    await trx.updateTable('webhook_replays')
      .set((eb) => ({
        done: eb('done', '+', 1),
        ...(outcome === 'succeeded' ? { succeeded: eb('succeeded', '+', 1) } : {}),
        ...(outcome === 'skipped' ? { skipped: eb('skipped', '+', 1) } : {}),
      }))
      .where('id', '=', replayId).execute();
  });
}

/** Marks the replay done once every delivery of it has its outcome. */
async function finishIfDone(deps: ReplayDeps, replayId: number): Promise<void> {
  await deps.db.updateTable('webhook_replays').set({ status: 'done', finished_at: deps.clock.now() })
    .where('id', '=', replayId).where('status', '<>', 'done')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_replay_deliveries').select('position').where('replay_id', '=', replayId).where('outcome', 'is', null))))
    .execute();
}

/** The replay queue's handler: one batch of the replay, then the next batch queued while any is left. */
export async function runReplayJob(deps: ReplayDeps, job: { data: Partial<ReplayJobData> }): Promise<void> {
  const replayId = job.data.replayId;
  if (typeof replayId !== 'number') return;
  await deps.db.updateTable('webhook_replays').set({ status: 'running' }).where('id', '=', replayId).where('status', '=', 'queued').execute();
  for (let sent = 0; sent < REPLAY_BATCH; sent += 1) {
    const next = await claimNext(deps, replayId);
    if (!next) {
      await finishIfDone(deps, replayId);
      return;
    }
    await record(deps, replayId, next.position, await replayOne(deps, next.delivery_id));
  }
  await deps.jobs.enqueueReplay(deps.db, { replayId });
}
