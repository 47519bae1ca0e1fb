import { describe, expect, it } from 'vitest';
import { canonicalJson, requestHash } from '../../src/resources/checkout-sessions/idempotency.ts';

// The Idempotency-Key's request hash is stored for 24 hours: a change to its canonical form would
// make a retry sent across a deploy look like a different body (409 idempotency_conflict). These
// are the bytes the first implementation wrote; any rewrite must write them too.
const PINNED: Array<[unknown, string]> = [
  [{ amount: 4250, currency: 'USD', reference: 'bench', customer_email: 'b@x.example', order: { id: 'o-1', items: [{ name: 'Coffee', quantity: 1, unit_amount: 4250, amount: 4250 }], total: 4250 } },
    '{"amount":4250,"currency":"USD","customer_email":"b@x.example","order":{"id":"o-1","items":[{"amount":4250,"name":"Coffee","quantity":1,"unit_amount":4250}],"total":4250},"reference":"bench"}'],
  // Integer-like keys sort as strings ("10" before "9"), uppercase before lowercase, the empty key first.
  [{ metadata: { '10': 'a', '9': 'b', b: 'c', a: null, 'é': 'd', Z: 'e', '': 'f' }, amount: 100, skipped: undefined },
    '{"amount":100,"metadata":{"":"f","10":"a","9":"b","Z":"e","a":null,"b":"c","é":"d"}}'],
  [{ text: 'quote " backslash \\ newline \n tab \t unicode ☕ \u2028 emoji 😀', list: [1, 'two', null, undefined, { y: 1, x: [] }, []], nested: { deep: { deeper: { z: true, a: false } } } },
    '{"list":[1,"two",null,null,{"x":[],"y":1},[]],"nested":{"deep":{"deeper":{"a":false,"z":true}}},"text":"quote \\" backslash \\\\ newline \\n tab \\t unicode ☕ \u2028 emoji 😀"}'],
  [[], '[]'],
  [{}, '{}'],
  ['plain', '"plain"'],
  [12.5, '12.5'],
  [null, 'null'],
  [undefined, 'null'],
];

describe('the Idempotency-Key request hash', () => {
  it('writes the canonical form the stored hashes were made from', () => {
    for (const [value, text] of PINNED) expect(canonicalJson(value)).toBe(text);
  });

  it('does not depend on key order, at any depth', () => {
    const one = requestHash({ a: 1, b: { c: [1, { d: 2, e: 3 }], f: 'g' } });
    const other = requestHash({ b: { f: 'g', c: [1, { e: 3, d: 2 }] }, a: 1 });
    expect(one.equals(other)).toBe(true);
    expect(requestHash({ a: 1, b: 2 }).equals(requestHash({ a: 1, b: 3 }))).toBe(false);
    // Array order is the body's meaning: it counts.
    expect(requestHash({ a: [1, 2] }).equals(requestHash({ a: [2, 1] }))).toBe(false);
  });
});
