import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { notFound } from '../core/errors.ts';
import { createdBounds, pageRows, type Position } from '../core/pagination.ts';
import type { Db } from './database.ts';

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

type Narrow<Q> = (query: Q) => Q;

/** The find, get and list every kind of row owned by a business in one mode has. */
export interface OwnedRows<Q, R> {
  /** The tenant's rows, by the list indexes, or with `id` the one row, by its primary key. */
  query(db: Db, tenant: Tenant, id?: string): Q;
  /** The tenant's row with this id (narrowed further by `narrow`), or undefined. */
  find(db: Db, tenant: Tenant, id: string, narrow?: Narrow<Q>): Promise<R | undefined>;
  /** As find, or not_found naming `what` (the kind's own name unless given). */
  get(db: Db, tenant: Tenant, id: string, options?: { what?: string | undefined; narrow?: Narrow<Q> | undefined }): Promise<R>;
  /**
   * One page of the tenant's rows, newest first, narrowed by `filter` and the page's created
   * range; starting_after must be a row this kind's find finds.
   */
  list(db: Db, tenant: Tenant, page: PageInput & CreatedRange, filter?: Narrow<Q>): Promise<R[]>;
}

interface PageInput {
  limit: number;
  starting_after?: string | undefined;
}

interface CreatedRange {
  created_gte?: number | undefined;
  created_lte?: number | undefined;
}

/**
 * The lookups of one kind of owned row. `rows` is its query (table, joins, columns); `table` the
 * owning table's name or alias in it; `only` what every row of the kind meets besides its owner
 * (a payment link is a payment of source payment_link); `what` names one row in errors. `cursor`
 * finds a page's starting row more cheaply where `rows` computes much.
 */
export function ownedRows<DB, TB extends keyof DB, O extends Position>(kind: {
  what: string;
  table: string;
  rows: (db: Db) => SelectQueryBuilder<DB, TB, O>;
  only?: (eb: ExpressionBuilder<DB, TB>) => Expression<SqlBool>;
  cursor?: (db: Db, tenant: Tenant, id: string) => Promise<Position | undefined>;
}): OwnedRows<SelectQueryBuilder<DB, TB, O>, O> {
  const { what, table, only } = kind;
  const query = (db: Db, tenant: Tenant, id?: string) => {
    const rows = scoped(kind.rows(db), table, tenant, id);
    if (!only) return rows;
    // By id, a check on the row found, as the owner is: a plain condition could match a partial
    // index's predicate (webhook_endpoints_key: deleted_at IS NULL) and walk that index instead.
    return rows.where((eb) => (id === undefined ? only(eb) : sql<boolean>`(${only(eb)}) IS TRUE`));
  };
  const find = async (db: Db, tenant: Tenant, id: string, narrow?: Narrow<SelectQueryBuilder<DB, TB, O>>) => {
    const one = query(db, tenant, id);
    // (Kysely's row type is O written out, which TypeScript cannot see for a generic O.)
    return (narrow ? narrow(one) : one).executeTakeFirst() as Promise<O | undefined>;
  };
  const column = (name: string) => sql.ref(`${table}.${name}`);
  return {
    query,
    find,
    async get(db, tenant, id, options) {
      const row = await find(db, tenant, id, options?.narrow);
      if (!row) throw notFound(options?.what ?? what, id);
      return row;
    },
    async list(db, tenant, page, filter) {
      let rows = query(db, tenant);
      if (filter) rows = filter(rows);
      const { from, before } = createdBounds(page);
      if (from) rows = rows.where(sql<boolean>`${column('created_at')} >= ${from}`);
      if (before) rows = rows.where(sql<boolean>`${column('created_at')} < ${before}`);
      const findCursor = (id: string) => (kind.cursor ?? find)(db, tenant, id);
      return pageRows(rows, page, findCursor, `${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`, table);
    },
  };
}
