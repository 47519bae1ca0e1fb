import { z } from 'zod';

/** A JSON Schema object, as the OpenAPI document and the MCP tools publish them. */
export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

/** A zod schema as JSON Schema, as the caller sends it (`input`) or receives it (`output`). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}
