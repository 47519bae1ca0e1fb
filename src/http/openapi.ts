import { ERROR_STATUS } from '../core/errors.ts';
import { API_PREFIX, pathParams, type Operation } from '../verbs/operation.ts';
import { jsonSchema } from '../verbs/json-schema.ts';

// The OpenAPI 3.1 document, generated from the operation registry (never written by hand).


function errorResponses(operation: Operation) {
  const statuses = new Set<number>([400, 401, 403, 404, 429]);
  if (operation.http.method === 'POST' || operation.http.method === 'PATCH') {
    statuses.add(409).add(413).add(415);
  }
  return Object.fromEntries([...statuses].map((status) => [String(status), { $ref: '#/components/responses/Error' }]));
}

function operationObject(operation: Operation) {
  const input = jsonSchema(operation.input, 'input');
  const inPath = new Set(pathParams(operation));
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const fromHeaders = new Map(Object.entries(operation.http.headers ?? {}).map(([header, field]) => [field, header]));
  const parameters = [...inPath].map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
  for (const [field, header] of fromHeaders) {
    parameters.push({ name: header, in: 'header', required: false, schema: properties[field] ?? { type: 'string' } });
  }
  let requestBody: unknown;
  if (operation.http.method === 'GET' || operation.http.method === 'DELETE') {
    for (const [name, schema] of Object.entries(properties)) {
      if (!inPath.has(name)) parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
  } else {
    const bodyProperties = Object.fromEntries(Object.entries(properties).filter(([name]) => !inPath.has(name) && !fromHeaders.has(name)));
    if (Object.keys(bodyProperties).length > 0) {
      const bodyRequired = [...required].filter((name) => !inPath.has(name) && !fromHeaders.has(name));
      requestBody = {
        required: bodyRequired.length > 0,
        content: { 'application/json': { schema: { type: 'object', properties: bodyProperties, ...(bodyRequired.length ? { required: bodyRequired } : {}) } } },
      };
    }
  }
  return {
    operationId: operation.name,
    summary: operation.title,
    description: operation.description,
    tags: [operation.tag],
    security: [{ bearer: [operation.scope] }],
    'x-required-scope': operation.scope,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [String(operation.http.status)]: {
        description: operation.title,
        content: { 'application/json': { schema: jsonSchema(operation.output, 'output') } },
      },
      ...errorResponses(operation),
    },
  };
}

export function openApiDocument(operations: readonly Operation[], baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const path = `${API_PREFIX}${operation.http.path}`.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][operation.http.method.toLowerCase()] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Service API',
      version: 'v1',
      description: 'Payment links, checkouts, customers, webhook endpoints, checkout sessions, payments and orders. ' +
        'Every request carries Authorization: Bearer <secret key or agent access token>; the credential decides account and mode.',
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A secret key (sk_test_… / sk_live_…) or an agent access token.' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string' },
                field: { type: 'string' },
              },
            },
          },
        },
      },
      responses: {
        Error: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  };
}
