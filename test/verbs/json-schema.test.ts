import { Ajv } from 'ajv';
import { z } from 'zod';
import { expect, it } from 'vitest';
import { jsonSchema, toolJsonSchema } from '../../src/verbs/json-schema.ts';

// A tool's schemas in the spelling every MCP client reads: "may be null" as anyOf of single
// types, and no schema without a keyword; the OpenAPI document keeps zod's own spelling.

const Example = z.object({
  note: z.string().nullable().describe('A note or null.'),
  short: z.string().max(3).nullable(),
  anything: z.unknown(),
  tags: z.array(z.string().nullable()),
  map: z.record(z.string(), z.unknown()).nullable(),
});

it('writes "may be null" as anyOf branches of one type each, keeping what annotates or constrains the field', () => {
  const schema = toolJsonSchema(Example, 'output');
  expect(schema.properties!.note).toEqual({ description: 'A note or null.', anyOf: [{ type: 'string' }, { type: 'null' }] });
  expect(schema.properties!.short).toEqual({ anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] });
  expect(schema.properties!.tags).toEqual({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } });
  expect(JSON.stringify(schema)).not.toMatch(/"type":\[/);
  // The OpenAPI document's spelling is left as zod writes it (right for OpenAPI 3.1).
  expect(jsonSchema(Example, 'output').properties!.note).toEqual({ description: 'A note or null.', type: ['string', 'null'] });
});

it('gives a schema with no keyword the six JSON types, wherever it is', () => {
  const schema = toolJsonSchema(Example, 'input');
  const anyJson = { anyOf: ['string', 'number', 'boolean', 'null', 'object', 'array'].map((type) => ({ type })) };
  expect(schema.properties!.anything).toEqual(anyJson);
  expect((schema.properties!.map as { anyOf: Array<{ additionalProperties?: unknown }> }).anyOf[0]!.additionalProperties).toEqual(anyJson);
});

it('accepts and refuses exactly what the zod spelling does', () => {
  const ajv = new Ajv({ strict: false });
  const portable = ajv.compile(toolJsonSchema(Example, 'output'));
  const original = ajv.compile(jsonSchema(Example, 'output'));
  const values = [
    { note: null, short: 'abc', anything: [1], tags: ['a', null], map: { a: { b: 1 } } },
    { note: 'x', short: null, anything: null, tags: [], map: null },
    { note: 1, short: 'abc', anything: 1, tags: [], map: null },
    { note: 'x', short: 'abcd', anything: 1, tags: [], map: null },
    { note: 'x', short: null, anything: 1, tags: [2], map: null },
  ];
  for (const value of values) expect(portable(value), JSON.stringify(value)).toBe(original(value));
  expect(values.map((value) => portable(value))).toEqual([true, true, false, false, false]);
});
