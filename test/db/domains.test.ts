import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The write path's value rules live in domains (migration 0012): every column keeps refusing
// what its CHECK constraint refused, and the tables have no CHECK left to compile on each write.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const RULES: Array<[table: string, column: string, allowed: string, refused: string]> = [
  ['payments', 'source', 'payment_link', 'invoice'],
  ['payments', 'status', 'held', 'refunded'],
  ['payments', 'method', 'crypto', 'cash'],
  ['payments', 'txid_in', '0xab', '0xAB'],
  ['payments', 'txid_out', '0xab', '0xAB'],
  ['payments', 'deposit_index', '0', '-1'],
  ['orders', 'source', 'checkout', 'invoice'],
  ['orders', 'fulfillment', 'unfulfilled', 'shipped'],
  ['customers', 'email', 'ann@buyer.example', 'Ann@Buyer.example'],
  ['webhook_deliveries', 'status', 'canceled', 'lost'],
  ['webhook_deliveries', 'kind', 'test', 'ping'],
  ['webhook_delivery_attempts', 'trigger', 'resend', 'manual'],
  ['outbox', 'status', 'held', 'pending'],
  ['outbox', 'kind', 'payment_receipt', 'newsletter'],
  ['outbox', 'held_because', 'test_mode', 'spam'],
  ['payments', 'payer_language', 'de', 'DE'],
  ['outbox', 'recipient', 'ann@buyer.example', 'Ann@Buyer.example'],
];

describe('value rules of the write path', () => {
  it.each(RULES)('%s.%s takes %s and refuses %s', async (table, column, allowed, refused) => {
    // The column's own type, cast to: what an INSERT or UPDATE of the column would store.
    const type = (await sql<{ type: string }>`SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
      WHERE attrelid = ${table}::regclass AND attname = ${column}`.execute(t.db)).rows[0]?.type ?? '';
    await expect(sql`SELECT ${allowed}::text::${sql.raw(type)}`.execute(t.db)).resolves.toBeDefined();
    await expect(sql`SELECT ${refused}::text::${sql.raw(type)}`.execute(t.db)).rejects.toMatchObject({ code: '23514' });
  });

  it('leaves no CHECK constraint on the tables every payment writes', async () => {
    const { rows } = await sql<{ name: string }>`SELECT conname AS name FROM pg_constraint WHERE contype = 'c'
      AND conrelid IN ('payments'::regclass, 'orders'::regclass, 'customers'::regclass, 'webhook_deliveries'::regclass, 'webhook_delivery_attempts'::regclass, 'outbox'::regclass)`.execute(t.db);
    expect(rows).toEqual([]);
  });
});
