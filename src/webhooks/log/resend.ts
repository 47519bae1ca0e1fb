import { defineAction } from '../../verbs/action.ts';
import { DeliveryIdInput } from './list-attempts.ts';
import { sendManually } from './manual-send.ts';

/** Resend (spec 6.3): sends a finished delivery once more, same event id and body; never retried. */
export const resendWebhookDelivery = defineAction({
  name: 'resend_webhook_delivery',
  title: 'Resend a delivery',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: DeliveryIdInput,
  run: (ctx, input) => sendManually(ctx, input.id, 'resend', (target) =>
    target.status !== 'succeeded' && target.status !== 'failed'
      ? `Delivery ${target.id} is ${target.status}; only a finished delivery (succeeded or failed) is resent.` : undefined),
});
