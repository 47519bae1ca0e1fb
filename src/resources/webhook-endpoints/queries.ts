import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import { pageRows } from '../../core/pagination.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';
import type { WebhookEndpointRow } from '../../db/schema.ts';
import type { ListWebhookEndpointsInput } from './schemas.ts';

/** Endpoints of the caller's business and mode (with `id`, that one) that have not been removed. */
export function liveEndpoints(db: Db, principal: Principal, id?: string) {
  return scoped(db.selectFrom('webhook_endpoints').selectAll(), 'webhook_endpoints', principal, id).where('deleted_at', 'is', null);
}

export async function getWebhookEndpoint(db: Db, principal: Principal, id: string): Promise<WebhookEndpointRow> {
  const row = await liveEndpoints(db, principal, id).executeTakeFirst();
  if (!row) throw notFound('webhook endpoint', id);
  return row;
}

export async function listWebhookEndpointRows(db: Db, principal: Principal, input: ListWebhookEndpointsInput): Promise<WebhookEndpointRow[]> {
  const find = (id: string) => liveEndpoints(db, principal, id).executeTakeFirst();
  return pageRows(liveEndpoints(db, principal), input, find, 'a webhook endpoint');
}
