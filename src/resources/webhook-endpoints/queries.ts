import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';

const rows = { what: 'webhook endpoint', table: 'webhook_endpoints', rows: (db: Db) => db.selectFrom('webhook_endpoints').selectAll() };
const endpoints = ownedRows({ ...rows, only: (eb) => eb('deleted_at', 'is', null) });
/** Removed endpoints too: their delivery history stays readable for 30 days (spec 4.4). */
const withRemoved = ownedRows(rows);

/** Endpoints of the caller's business and mode (with `id`, that one) that have not been removed. */
export const liveEndpoints = endpoints.query;

export const getWebhookEndpoint = endpoints.get;

export const listWebhookEndpointRows = endpoints.list;

/** An endpoint of the caller's business and mode, removed or not. */
export const getWebhookEndpointWithHistory = withRemoved.get;
