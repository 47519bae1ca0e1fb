import { ownedRows } from '../../db/owned.ts';

const endpoints = ownedRows({
  what: 'webhook endpoint',
  table: 'webhook_endpoints',
  rows: (db) => db.selectFrom('webhook_endpoints').selectAll(),
  only: (eb) => eb('deleted_at', 'is', null),
});

/** Endpoints of the caller's business and mode (with `id`, that one) that have not been removed. */
export const liveEndpoints = endpoints.query;

export const getWebhookEndpoint = endpoints.get;

export const listWebhookEndpointRows = endpoints.list;
