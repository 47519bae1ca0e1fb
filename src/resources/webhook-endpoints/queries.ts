import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import { pageRows } from '../../core/pagination.ts';
import type { Db } from '../../db/database.ts';
import type { WebhookEndpointRow } from '../../db/schema.ts';
import type { ListWebhookEndpointsInput } from './schemas.ts';

/** Endpoints of the caller's business and mode that have not been removed. */
export function liveEndpoints(db: Db, principal: Principal) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('business_id', '=', principal.businessId)
    .where('livemode', '=', principal.livemode)
    .where('deleted_at', 'is', null);
}

export async function getWebhookEndpoint(db: Db, principal: Principal, id: string): Promise<WebhookEndpointRow> {
  const row = await liveEndpoints(db, principal).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('webhook endpoint', id);
  return row;
}

export async function listWebhookEndpointRows(db: Db, principal: Principal, input: ListWebhookEndpointsInput): Promise<WebhookEndpointRow[]> {
  const find = (id: string) => liveEndpoints(db, principal).where('id', '=', id).executeTakeFirst();
  return pageRows(liveEndpoints(db, principal), input, find, 'a webhook endpoint');
}
