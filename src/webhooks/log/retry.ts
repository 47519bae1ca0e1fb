import { defineAction } from '../../verbs/action.ts';
import { DeliveryIdInput } from './list-attempts.ts';
import { sendManually } from './manual-send.ts';

/** Retry now (spec 6.3): sends a still-retrying delivery at once; its automatic retries stay as they were. */
export const retryWebhookDelivery = defineAction({
  name: 'retry_webhook_delivery',
  title: 'Retry a delivery now',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: DeliveryIdInput,
  run: (ctx, input) => sendManually(ctx, input.id, 'retry_now', (target) =>
    target.kind !== 'event' || target.status !== 'pending' ? `Delivery ${target.id} is ${target.status}, not retrying; resend it instead.` : undefined),
});
