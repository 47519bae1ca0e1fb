import type { OperationContext } from '../../verbs/context.ts';
import { defineAction } from '../../verbs/action.ts';
import { getTarget } from '../deliveries.ts';
import { attemptsOf, DeliveryIdInput } from './list-attempts.ts';
import { deliveryEntries } from './list-deliveries.ts';
import { toDeliveryLogEntry, type AttemptEntry, type DeliveryLogEntry } from './schemas.ts';

export interface DeliveryDetail {
  /** The endpoint it is for, as it is now. */
  endpoint: { id: string; url: string; removed: boolean };
  delivery: DeliveryLogEntry;
  attempts: AttemptEntry[];
}

/** One delivery of the caller's business and mode (through its endpoint) as the log shows it, with every attempt made for it. */
export async function deliveryDetail(ctx: OperationContext, id: string): Promise<DeliveryDetail> {
  const target = await getTarget(ctx.db, ctx.principal, id);
  const [entry, attempts] = await Promise.all([deliveryEntries(ctx.db).where('d.id', '=', target.id).executeTakeFirstOrThrow(), attemptsOf(ctx.db, target.id)]);
  return { endpoint: { id: target.endpoint_id, url: target.url, removed: target.deleted_at !== null }, delivery: toDeliveryLogEntry(entry), attempts };
}

/** One delivery as the log shows it, with every attempt made for it (spec 6.3 rule 4): for the dashboard (the API's retrieve_webhook_delivery reads the same). */
export const readWebhookDelivery = defineAction({
  name: 'read_webhook_delivery',
  title: 'Read a delivery and its attempts',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: DeliveryIdInput,
  run: (ctx, input) => deliveryDetail(ctx, input.id),
});
