import { z } from 'zod';

/** A JSON Schema object, as the OpenAPI document and the MCP tools publish them. */
export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

type Override = NonNullable<NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override']>;

/**
 * A zod schema as JSON Schema, as the caller sends it (`input`) or receives it (`output`);
 * override: zod's hook on each converted sub-schema (the OpenAPI document names some).
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output', override?: Override): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', ...(override ? { override } : {}) }) as JsonSchema;
  return rest;
}

// What an MCP tool advertises is read by every client's own converter (some map it onto a
// single-`type` dialect, as Gemini's function declarations do), so a tool's schema keeps to the
// spellings all of them accept, which the MCP Inspector's portability check (--strict) asks for:
//   - "may be null" as `anyOf` of single types, never a `type` array. (zod writes
//     `type: ["string", "null"]` for a nullable field and offers no switch to keep `anyOf`.)
//   - every schema says what it accepts: one with no keyword (z.unknown(), or what zod cannot
//     represent) becomes "any JSON value" spelled out as its six types.
// The OpenAPI document keeps `jsonSchema` as it is: `type` arrays are right for OpenAPI 3.1.

/** Any JSON value, each type a branch of its own. */
const anyJsonValue = (): JsonSchema[] => ['string', 'number', 'boolean', 'null', 'object', 'array'].map((type) => ({ type }));

/** Keywords that constrain a value (the rest only annotate it: description, default, examples, …). */
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength',
  'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema', 'maxItems', 'minItems', 'uniqueItems', 'maxContains',
  'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items',
  'prefixItems', 'contains', 'additionalItems', 'unevaluatedItems', 'properties', 'patternProperties', 'additionalProperties',
  'unevaluatedProperties', 'propertyNames', 'dependentSchemas', '$ref', '$dynamicRef',
]);

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE_SCHEMA = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems', 'contentSchema'];
const SCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];

/** One schema in the portable spelling (a copy; `schema` is left as it was). */
function portable(schema: unknown, keyword?: string): unknown {
  // A boolean where a schema is expected: only `additionalProperties: false` and its kind are kept.
  if (typeof schema === 'boolean') {
    if (keyword === 'additionalProperties' || keyword === 'unevaluatedProperties' || keyword === 'additionalItems' || keyword === 'unevaluatedItems') return schema;
    return schema ? { anyOf: anyJsonValue() } : { not: {} };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const node: JsonSchema = { ...schema as JsonSchema };
  for (const key of ONE_SCHEMA) if (key in node) node[key] = portable(node[key], key);
  for (const key of SCHEMA_LIST) if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map((item) => portable(item, key));
  for (const key of SCHEMA_MAP) {
    const map = node[key];
    if (typeof map === 'object' && map !== null) node[key] = Object.fromEntries(Object.entries(map).map(([name, item]) => [name, portable(item, key)]));
  }
  if (Array.isArray(node.type)) {
    const branches = node.type.map((type) => ({ type }));
    delete node.type;
    // Type-specific keywords beside it (maxLength, …) still apply only to values of their type.
    if (node.anyOf === undefined) node.anyOf = branches;
    else node.allOf = [...(node.allOf as unknown[] | undefined ?? []), { anyOf: branches }];
  }
  const constrains = Object.keys(node).some((key) => CONSTRAINING.has(key)) || ('if' in node && ('then' in node || 'else' in node));
  if (keyword !== 'not' && !constrains) node.anyOf = anyJsonValue();
  return node;
}

/** A zod schema as an MCP tool advertises it: `jsonSchema`, spelled so every client can read it. */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return portable(jsonSchema(schema, io)) as JsonSchema;
}
