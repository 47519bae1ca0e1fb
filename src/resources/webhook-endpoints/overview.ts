import { z } from 'zod';
import { DAY, unixSeconds } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import { scoped, type Tenant } from '../../db/owned.ts';
import { defineAction } from '../../verbs/action.ts';
import { MAX_ENDPOINTS_PER_MODE } from './create.ts';
import { toWebhookEndpointOut, type WebhookEndpointOut } from './schemas.ts';

// The endpoints of a mode as the dashboard lists them: who added each (a secret key, named, or a
// person in the dashboard, where 410 Gone never removes it), and the ones removed lately, whose
// delivery history stays readable for 30 days (spec 4.4, 6.3).

/** Removed endpoints are listed as long as their history is kept (webhooks/retention.ts). */
const REMOVED_LISTED_MS = 30 * DAY;
const REMOVED_LISTED_MAX = 50;

export type EndpointAddedBy =
  | { via: 'dashboard' }
  /** `key` is null if the key is gone from the database (never, today: keys are revoked, not deleted). */
  | { via: 'api'; key: { id: string; name: string | null; hint: string } | null };

export interface EndpointSummary extends WebhookEndpointOut {
  added_by: EndpointAddedBy;
  /** When it was removed (Unix seconds), or null. */
  removed: number | null;
}

function endpointsWithKeys(db: Db, tenant: Tenant) {
  return scoped(db.selectFrom('webhook_endpoints as we').leftJoin('api_keys as k', 'k.id', 'we.api_key_id')
    .selectAll('we').select(['k.name as key_name', 'k.secret_hint as key_hint']), 'we', tenant);
}

function toSummary(row: Awaited<ReturnType<ReturnType<typeof endpointsWithKeys>['execute']>>[number]): EndpointSummary {
  const key = row.api_key_id === null || row.key_hint === null ? null : { id: row.api_key_id, name: row.key_name, hint: row.key_hint };
  return {
    ...toWebhookEndpointOut(row),
    added_by: row.added_via === 'dashboard' ? { via: 'dashboard' } : { via: 'api', key },
    removed: row.deleted_at === null ? null : unixSeconds(row.deleted_at),
  };
}

/** The mode's endpoints, newest first, and those removed in the last 30 days, latest removal first. */
export const readWebhookEndpoints = defineAction({
  name: 'read_webhook_endpoints',
  title: 'Read the webhook endpoints and who added them',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: z.object({}),
  async run(ctx): Promise<{ endpoints: EndpointSummary[]; removed: EndpointSummary[] }> {
    const { db, principal } = ctx;
    const removedSince = new Date(ctx.clock.now().getTime() - REMOVED_LISTED_MS);
    const [endpoints, removed] = await Promise.all([
      endpointsWithKeys(db, principal).where('we.deleted_at', 'is', null)
        .orderBy('we.created_at', 'desc').orderBy('we.id', 'desc').limit(MAX_ENDPOINTS_PER_MODE).execute(),
      endpointsWithKeys(db, principal).where('we.deleted_at', '>', removedSince)
        .orderBy('we.deleted_at', 'desc').orderBy('we.id', 'desc').limit(REMOVED_LISTED_MAX).execute(),
    ]);
    return { endpoints: endpoints.map(toSummary), removed: removed.map(toSummary) };
  },
});
