import type { OperationContext } from '../../verbs/context.ts';
import { defineAction } from '../../verbs/action.ts';
import { DeliveryIdInput } from './list-attempts.ts';
import { sendManually } from './manual-send.ts';
import type { ManualSendResult } from './schemas.ts';

/**
 * Resend (spec 6.3): sends a finished delivery once more, same event id and body; never
 * retried. The one rule for the dashboard and the API (resend_delivery).
 */
export function resendDelivery(ctx: OperationContext, id: string): Promise<ManualSendResult> {
  return sendManually(ctx, id, 'resend', (target) =>
    target.status !== 'succeeded' && target.status !== 'failed'
      ? `Delivery ${target.id} is ${target.status}; only a finished delivery (succeeded or failed) is resent.` : undefined);
}

export const resendWebhookDelivery = defineAction({
  name: 'resend_webhook_delivery',
  title: 'Resend a delivery',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: DeliveryIdInput,
  run: (ctx, input) => resendDelivery(ctx, input.id),
});
