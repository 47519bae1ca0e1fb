import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from './database.ts';

// Kysely builds and compiles a query on every call, which on the hottest writes costs more than
// PostgreSQL takes to run the prepared statement. A template is built once per shape with a marker
// for each argument; afterwards a call only puts its arguments in the parameter list.

const MARK = '\u0000template-argument\u0000';
/** Between an argument's name and a field's (and a field's and its own field's), in a field's marker. */
const FIELD = '\u0001';

type Args = Record<string, unknown>;

interface Compiled {
  sql: string;
  /** Each parameter: the argument (and path of fields into it) it takes, or the constant the build put there. */
  slots: Array<{ argument: string; path: string[] } | { constant: unknown }>;
}

/** Whether a marker hides anywhere in a constant (an argument combined into something else). */
function holdsMarker(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(MARK);
  if (value === null || typeof value !== 'object' || value instanceof Date || Buffer.isBuffer(value)) return false;
  return Object.values(value).some(holdsMarker);
}

function compile<A extends Args, S>(db: Db, build: (db: Db, args: A, shape: S) => Compilable<unknown>, shape: S): Compiled {
  const asked = new Set<string>();
  const markers = new Proxy({}, {
    get: (_target, name) => {
      if (typeof name !== 'string') throw new Error('A template argument is named by a string.');
      asked.add(name);
      return `${MARK}${name}`;
    },
  }) as A;
  const { sql, parameters } = build(db, markers, shape).compile();
  if (sql.includes(MARK)) throw new Error('A template argument went into the SQL text; arguments must be values.');
  const sent = new Set<string>();
  const slots = parameters.map((value) => {
    if (typeof value === 'string' && value.startsWith(MARK) && value.lastIndexOf(MARK) === 0) {
      const [argument = '', ...path] = value.slice(MARK.length).split(FIELD);
      sent.add(argument);
      return { argument, path };
    }
    if (holdsMarker(value)) throw new Error('A template argument was combined into another value; arguments must be values of their own.');
    return { constant: value };
  });
  const unsent = [...asked].filter((name) => !sent.has(name));
  if (unsent.length > 0) throw new Error(`Template arguments read but not sent as parameters: ${unsent.join(', ')}.`);
  return { sql, slots };
}

/**
 * A query built once per shape. `build` gets markers for its arguments and must put each one in
 * the query as a value of its own (never look at it, combine it or write it into raw SQL); what
 * changes the query's text (which columns, which conditions) goes in `shape`, and `key` names the
 * shape. Misuse fails the first call of the shape, not silently.
 */
export function template<A extends Args, R, S = undefined>(
  build: (db: Db, args: A, shape: S) => Compilable<R>,
  key: (shape: S) => string = () => '',
): (db: Db, args: A, shape: S) => Promise<R[]> {
  const shapes = new Map<string, Compiled>();
  return async (db, args, shape) => {
    const name = key(shape);
    let compiled = shapes.get(name);
    if (compiled === undefined) {
      compiled = compile(db, build, shape);
      shapes.set(name, compiled);
    }
    const parameters = compiled.slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      let value: unknown = args[slot.argument];
      for (const field of slot.path) value = (value as Record<string, unknown> | undefined)?.[field];
      // Kysely leaves an undefined value out of the query; a template cannot, so it is a mistake.
      if (value === undefined) throw new Error(`Template argument ${[slot.argument, ...slot.path].join('.')} is undefined.`);
      // Nor can it take an expression where it expects a value.
      if (typeof value === 'function' || (typeof value === 'object' && value !== null && 'toOperationNode' in value)) {
        throw new Error(`Template argument ${[slot.argument, ...slot.path].join('.')} is an expression, not a value.`);
      }
      return value;
    });
    return (await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters))).rows;
  };
}

/**
 * The columns of a row that have a value: the ones Kysely would write (it leaves undefined
 * ones to their defaults), for a template's shape.
 */
export function valuedColumns(row: object): string[] {
  const names: string[] = [];
  for (const [column, value] of Object.entries(row)) if (value !== undefined) names.push(column);
  return names;
}

/**
 * The columns of a new row worth sending: those with a value other than null. A column left out
 * takes its default, and every nullable column of the tables written this way defaults to NULL
 * (test/db/template.test.ts keeps that true), so the row is the same with fewer parameters to
 * encode: a payment's dozens of empty columns cost the driver more than PostgreSQL's insert.
 */
export function insertedColumns(row: object): string[] {
  return valuedColumns(row).filter((column) => (row as Record<string, unknown>)[column] !== null);
}

/** The tables rows are inserted into with insertedColumns: each nullable column defaults to NULL. */
export const NULL_DEFAULT_TABLES = ['payments', 'orders', 'customers'] as const;

/**
 * In a template's build: the fields `names` of an object argument (or of an object field of one),
 * each a value of its own (a row to insert, the columns to set). The call passes the object; its
 * fields become the parameters.
 */
export function fieldsOf(argument: unknown, names: readonly string[]): Record<string, unknown> {
  if (typeof argument !== 'string' || !argument.startsWith(MARK)) throw new Error('fieldsOf takes a template argument.');
  return Object.fromEntries(names.map((name) => [name, `${argument}${FIELD}${name}`]));
}
