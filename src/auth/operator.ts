import { sql } from 'kysely';
import { ApiError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import { businessState } from '../tenancy/businesses.ts';
import { OPERATOR_SCOPES, type Principal } from './principal.ts';

// The operator (the CLI) may act in any business, but always as a caller of that business and
// mode: the verbs find rows through the same scoped lookups as for anyone else.

export async function operatorPrincipal(db: Db, businessId: string, livemode: boolean): Promise<Principal> {
  return { businessId, livemode, scopes: new Set(OPERATOR_SCOPES), actor: { kind: 'operator' }, business: await businessState(db, businessId) };
}

/** What the operator names by id alone, and the table (or join) that says whose it is. */
const OWNERS = {
  api_key: sql`SELECT business_id, livemode FROM api_keys WHERE id = `,
  agent_connection: sql`SELECT business_id, livemode FROM agent_connections WHERE id = `,
  webhook_endpoint: sql`SELECT business_id, livemode FROM webhook_endpoints WHERE id = `,
  webhook_delivery: sql`SELECT we.business_id, we.livemode FROM webhook_deliveries d JOIN webhook_endpoints we ON we.id = d.endpoint_id WHERE d.id = `,
  payment: sql`SELECT business_id, livemode FROM payments WHERE id = `,
  customer: sql`SELECT business_id, livemode FROM customers WHERE id = `,
} as const;

export type OwnedKind = keyof typeof OWNERS;

const NAMES: Record<OwnedKind, string> = {
  api_key: 'API key', agent_connection: 'agent connection', webhook_endpoint: 'webhook endpoint',
  webhook_delivery: 'webhook delivery', payment: 'payment', customer: 'customer',
};

/**
 * The operator's principal for the business and mode that `id` belongs to. This reads only whose
 * the object is; the verb then finds the object again through that business and mode, so the
 * operator never acts on a bare id.
 */
export async function operatorPrincipalFor(db: Db, kind: OwnedKind, id: string): Promise<Principal> {
  const { rows } = await sql<{ business_id: string; livemode: boolean }>`${OWNERS[kind]}${id}`.execute(db);
  const owner = rows[0];
  if (!owner) throw new ApiError('not_found', `No ${NAMES[kind]} with id '${id}' exists.`);
  return operatorPrincipal(db, owner.business_id, owner.livemode);
}
