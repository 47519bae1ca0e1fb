import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { fieldsOf, insertedColumns, NULL_DEFAULT_TABLES, template } from '../../src/db/template.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Templates: a query built once per shape, then run with new parameters; a build that uses an
// argument as anything but a value of its own fails its first call instead of running wrong SQL.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

describe('template', () => {
  it('runs one build with each call\'s arguments, and builds each shape once', async () => {
    let builds = 0;
    const echo = template((db: Db, a: { text: string; number: number; when: Date }, upper: boolean) => {
      builds += 1;
      return db.selectNoFrom([
        (upper ? sql<string>`upper(${a.text}::text)` : sql<string>`${a.text}::text`).as('text'),
        sql<number>`${a.number}::int + 1`.as('next'),
        sql<string>`to_char(${a.when}::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      ]);
    }, (upper) => String(upper));
    const when = new Date('2026-11-21T12:00:00Z');
    expect(await echo(t.db, { text: 'ann', number: 1, when }, false)).toEqual([{ text: 'ann', next: 2, day: '2026-11-21' }]);
    expect(await echo(t.db, { text: 'bea', number: 41, when }, false)).toEqual([{ text: 'bea', next: 42, day: '2026-11-21' }]);
    expect(await echo(t.db, { text: 'cid', number: 0, when }, true)).toEqual([{ text: 'CID', next: 1, day: '2026-11-21' }]);
    expect(builds).toBe(2);
  });

  it('takes an object argument field by field (a row to write)', async () => {
    const row = template((db: Db, a: { row: { text: string; number: number } }, names: readonly string[]) =>
      db.selectNoFrom(sql<string>`${JSON.stringify(names)}::text`.as('names')).select(() => [
        sql<string>`${fieldsOf(a.row, names).text}::text`.as('text'),
        sql<number>`${fieldsOf(a.row, names).number}::int`.as('number'),
      ]), (names) => names.join(','));
    expect(await row(t.db, { row: { text: 'ann', number: 7 } }, ['text', 'number'])).toEqual([{ names: '["text","number"]', text: 'ann', number: 7 }]);
    expect(await row(t.db, { row: { text: 'bea', number: 8 } }, ['text', 'number'])).toEqual([{ names: '["text","number"]', text: 'bea', number: 8 }]);
    await expect(row(t.db, { row: { text: 'cid' } as never }, ['text', 'number'])).rejects.toThrow(/row\.number is undefined/);
  });

  it('takes the fields of an object field of an argument (a guard\'s columns to set)', async () => {
    const nested = template((db: Db, a: { guard: { id: string; set: { text: string } } }) => {
      const guard = fieldsOf(a.guard, ['id', 'set']);
      return db.selectNoFrom([sql<string>`${guard.id}::text`.as('id'), sql<string>`${fieldsOf(guard.set, ['text']).text}::text`.as('text')]);
    });
    expect(await nested(t.db, { guard: { id: 'pay_1', set: { text: 'ann' } } }, undefined)).toEqual([{ id: 'pay_1', text: 'ann' }]);
    await expect(nested(t.db, { guard: { id: 'pay_2', set: {} as never } }, undefined)).rejects.toThrow(/guard\.set\.text is undefined/);
  });

  it('runs inside a transaction', async () => {
    const count = template((db: Db, a: { id: string }) => db.selectFrom('businesses').select(sql<number>`count(*)::int`.as('n')).where('id', '=', a.id));
    const n = await t.db.transaction().execute(async (trx) => (await count(trx, { id: 'biz_none' }, undefined))[0]?.n);
    expect(n).toBe(0);
  });

  it('refuses an argument combined into another value', async () => {
    const bad = template((db: Db, a: { name: string }) => db.selectNoFrom(sql<string>`${`Dear ${a.name}`}::text`.as('greeting')));
    await expect(bad(t.db, { name: 'Ann' }, undefined)).rejects.toThrow(/combined into another value/);
  });

  it('refuses an argument written into the SQL text', async () => {
    const bad = template((db: Db, a: { column: string }) => db.selectNoFrom(sql.raw<string>(a.column).as('x')));
    await expect(bad(t.db, { column: 'now()' }, undefined)).rejects.toThrow(/into the SQL text/);
  });

  it('refuses an argument the build looked at instead of sending it', async () => {
    const bad = template((db: Db, a: { loud: boolean }) => db.selectNoFrom(sql<string>`${a.loud ? 'HI' : 'hi'}::text`.as('x')));
    await expect(bad(t.db, { loud: false }, undefined)).rejects.toThrow(/read but not sent as parameters: loud/);
  });

  it('refuses an undefined argument or an expression where a value goes', async () => {
    const echo = template((db: Db, a: { text: string | undefined }) => db.selectNoFrom(sql<string>`${a.text}::text`.as('text')));
    await expect(echo(t.db, { text: undefined }, undefined)).rejects.toThrow(/text is undefined/);
    await expect(echo(t.db, { text: sql<string>`now()` as unknown as string }, undefined)).rejects.toThrow(/an expression, not a value/);
  });
});

describe('insertedColumns', () => {
  it('sends the columns with a value, leaving null and undefined ones to their default', () => {
    expect(insertedColumns({ id: 'pay_1', reference: null, memo: undefined, amount_minor: 0, hold_acceptable: false, description: '' }))
      .toEqual(['id', 'amount_minor', 'hold_acceptable', 'description']);
  });

  // A column left out of an insert takes its default: the same row as a NULL sent only while
  // every nullable column of these tables defaults to NULL. A migration that gives one a default
  // other than NULL must take that column out of this rule (send it always) first.
  it.each(NULL_DEFAULT_TABLES)('%s: every nullable column defaults to NULL', async (table) => {
    const { rows } = await sql<{ column_name: string; column_default: string | null }>`
      SELECT column_name, column_default FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = ${table} AND is_nullable = 'YES' AND column_default IS NOT NULL
        AND column_default NOT ILIKE 'NULL%'`.execute(t.db);
    expect(rows).toEqual([]);
    const nullable = await sql<{ count: number }>`SELECT count(*)::int AS count FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = ${table} AND is_nullable = 'YES'`.execute(t.db);
    expect(nullable.rows[0]!.count).toBeGreaterThan(0);
  });
});
