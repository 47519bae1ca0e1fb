import { listDeliveryReplays } from './list.ts';
import { replayFailedDeliveries } from './request.ts';

// Replaying an endpoint's failed deliveries at once, in the background, and how far it got.
export const webhookReplayActions = [replayFailedDeliveries, listDeliveryReplays];
