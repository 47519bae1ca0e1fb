import { sql, type Compilable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { scoped } from '../../src/db/owned.ts';
import { payments } from '../../src/resources/payments/queries.ts';
import { liveEndpoints } from '../../src/resources/webhook-endpoints/queries.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// A lookup by id within the caller's business and mode goes through the primary key, also in
// the generic plan a pooled connection makes for it while the tables are young and then keeps.
// With business and mode as index conditions, that plan can take a list index (business, mode,
// created_at, id) instead and walk every row of the business for one id.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const principal = { businessId: 'biz_lookups', livemode: false };
const ID = 'x_lookup';

/** The generic plan PostgreSQL makes for the query as a prepared statement, as text. */
async function genericPlan(query: Compilable): Promise<string> {
  const { sql: text, parameters } = query.compile();
  return t.db.connection().execute(async (db: Db) => {
    await sql`SET plan_cache_mode = force_generic_plan`.execute(db);
    await sql.raw(`PREPARE lookup AS ${text}`).execute(db);
    try {
      const args = sql.join(parameters.map((value) => sql.lit(value as string | boolean)));
      const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN EXECUTE lookup(${args})`.execute(db);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await sql`DEALLOCATE lookup`.execute(db);
      await sql`RESET plan_cache_mode`.execute(db);
    }
  });
}

const TABLES = ['payments', 'orders', 'customers', 'checkouts', 'webhook_endpoints'] as const;

describe('lookups by id', () => {
  it.each(TABLES)('%s: scoped to the business and mode, found by the primary key', async (table) => {
    const plan = await genericPlan(scoped(t.db.selectFrom(table).selectAll(), table, principal, ID));
    expect(plan).toContain(`${table}_pkey`);
    expect(plan).not.toMatch(/Index Cond: [^\n]*(business_id|livemode)/);
  });

  it('a payment with its order\'s customer (retrieve, start, simulate)', async () => {
    const plan = await genericPlan(payments(t.db, principal, ID));
    expect(plan).toContain('payments_pkey');
    expect(plan).not.toMatch(/Index Cond: [^\n]*(business_id|livemode)/);
  });

  it('a kind with conditions of its own (webhook endpoints not removed)', async () => {
    const plan = await genericPlan(liveEndpoints(t.db, principal, ID));
    expect(plan).toContain('webhook_endpoints_pkey');
    expect(plan).not.toMatch(/Index Cond: [^\n]*(business_id|livemode)/);
  });

  it('the plain conditions would let a young table\'s plan take the list index (what the lookups avoid)', async () => {
    const plain = t.db.selectFrom('payments').selectAll()
      .where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode).where('id', '=', ID);
    expect(await genericPlan(plain)).toMatch(/Index Cond: [^\n]*business_id/);
  });

  it('lists still use the list indexes', async () => {
    const plan = await genericPlan(scoped(t.db.selectFrom('payments').selectAll(), 'payments', principal).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(10));
    expect(plan).toMatch(/Index Cond: [^\n]*business_id/);
  });
});
