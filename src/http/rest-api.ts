import type { FastifyInstance } from 'fastify';
import type { Gate } from '../auth/gate.ts';
import type { AppContext } from '../verbs/context.ts';
import { API_PREFIX, type Operation } from '../verbs/operation.ts';
import { apiReference } from './docs.ts';
import { docsPages } from './docs-pages.ts';
import { openApiDocument } from './openapi.ts';
import { registerOperationRoutes } from './routes.ts';
import { registerWellKnown } from './well-known.ts';

/** The REST API under /v1 (one route per registry operation), its OpenAPI document, the reference page (/docs) and the discovery documents. */
export async function restApi(app: FastifyInstance, options: { context: AppContext; operations: readonly Operation[]; gate: Gate }): Promise<void> {
  const { context, operations, gate } = options;
  registerOperationRoutes(app, operations, context, gate);
  registerWellKnown(app, context.config.baseUrl, context.config.oauthIssuer);
  const openapi = openApiDocument(operations, context.config.baseUrl);
  app.get(`${API_PREFIX}/openapi.json`, async () => openapi);
  await apiReference(app);
  await docsPages(app);
}
