import { sql, type RawBuilder } from 'kysely';

/** Whose rows: a business in one mode (a Principal is one). */
export interface Tenant {
  businessId: string;
  livemode: boolean;
}

/**
 * The caller's business and mode, as a check on the row a lookup by id found. Written so that
 * PostgreSQL never uses it to choose an index: as plain conditions, business and mode let the
 * planner pick a list index (business, mode, created_at, id) and walk every row of the business
 * for one id, a plan it makes while a table is young and then keeps for the prepared statement.
 * With this the primary key is the only index a lookup by id can use.
 */
export function ownedBy(table: string, principal: Tenant): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.business_id`)} = ${principal.businessId} AND ${sql.ref(`${table}.livemode`)} = ${principal.livemode}) IS TRUE`;
}

interface Filterable {
  where(expression: RawBuilder<boolean>): unknown;
}

/**
 * Rows of `table` (its name or alias in `query`) of the caller's business and mode: all of them,
 * by the list indexes, or with `id` the one row, by its primary key.
 */
export function scoped<Q extends Filterable>(query: Q, table: string, principal: Tenant, id?: string): Q {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  if (id !== undefined) return (query.where(sql<boolean>`${column('id')} = ${id}`) as Q).where(ownedBy(table, principal)) as Q;
  return (query.where(sql<boolean>`${column('business_id')} = ${principal.businessId}`) as Q)
    .where(sql<boolean>`${column('livemode')} = ${principal.livemode}`) as Q;
}
