import { listDeliveryAttempts } from './list-attempts.ts';
import { listWebhookDeliveries } from './list-deliveries.ts';
import { readWebhookDelivery } from './read-delivery.ts';
import { resendWebhookDelivery } from './resend.ts';
import { retryWebhookDelivery } from './retry.ts';
import { sendTestWebhook } from './send-test.ts';

// The delivery log and what people do with it (spec 6.3): read, retry now, resend, test sends.
export const deliveryLogActions = [listWebhookDeliveries, readWebhookDelivery, listDeliveryAttempts, retryWebhookDelivery, resendWebhookDelivery, sendTestWebhook];
