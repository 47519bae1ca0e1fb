import type { OperationContext } from '../../verbs/context.ts';
import { defineAction } from '../../verbs/action.ts';
import { DeliveryIdInput } from './list-attempts.ts';
import { sendManually } from './manual-send.ts';
import type { ManualSendResult } from './schemas.ts';

/**
 * Retry now (spec 6.3): sends a still-retrying delivery at once; its automatic retries stay as
 * they were. The one rule for the dashboard and the API (retry_delivery).
 */
export function retryDelivery(ctx: OperationContext, id: string): Promise<ManualSendResult> {
  return sendManually(ctx, id, 'retry_now', (target) =>
    target.kind !== 'event' || target.status !== 'pending' ? `Delivery ${target.id} is ${target.status}, not retrying; resend it instead.` : undefined);
}

export const retryWebhookDelivery = defineAction({
  name: 'retry_webhook_delivery',
  title: 'Retry a delivery now',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: DeliveryIdInput,
  run: (ctx, input) => retryDelivery(ctx, input.id),
});
