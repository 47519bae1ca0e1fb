import { ApiError } from '../../core/errors.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { getTarget, recordManual, sendTarget, type DeliveryTarget } from '../deliveries.ts';
import type { ManualSendResult } from './schemas.ts';

/**
 * A person's send of an existing delivery, once, now (retry now and resend): logged like any
 * attempt, never counted among the automatic ones. `sendable` says why a delivery in its state
 * cannot be sent this way, or nothing when it can.
 */
export async function sendManually(ctx: OperationContext, deliveryId: string, trigger: 'retry_now' | 'resend', sendable: (target: DeliveryTarget) => string | undefined): Promise<ManualSendResult> {
  const target = await getTarget(ctx.db, ctx.principal, deliveryId);
  if (target.deleted_at !== null) throw new ApiError('invalid_state', `The endpoint of ${deliveryId} was removed; nothing more is sent to it.`);
  const refusal = sendable(target);
  if (refusal) throw new ApiError('invalid_state', refusal);
  const deps = ctx;
  const { outcome, sentAt } = await sendTarget(deps, target);
  await recordManual(deps, target, trigger, outcome, sentAt);
  return { delivery_id: target.id, event_id: target.event_id, outcome };
}
