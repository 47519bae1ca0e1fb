import type { FastifyInstance } from 'fastify';
import { API_SCOPES } from '../auth/scopes.ts';
import { API_PREFIX } from '../verbs/operation.ts';

// OAuth 2.0 Protected Resource Metadata (RFC 9728) for the REST API (spec 5.7).
export function protectedResourceMetadata(baseUrl: string, authorizationServer: string) {
  return {
    resource: `${baseUrl}${API_PREFIX}`,
    resource_name: 'Payment Service API',
    authorization_servers: [authorizationServer],
    scopes_supported: [...API_SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${baseUrl}${API_PREFIX}/openapi.json`,
  };
}

/** Where clients of the REST API find how to get a credential (spec 5.7). */
export function resourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/v1`;
}

export const WELL_KNOWN_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v1', '/.well-known/oauth-protected-resource/mcp'];

export function registerWellKnown(app: FastifyInstance, baseUrl: string, issuer: string): void {
  const api = protectedResourceMetadata(baseUrl, issuer);
  // The MCP endpoint is a resource of its own: tokens are issued for it by name (RFC 8707).
  const mcp = { ...api, resource: `${baseUrl}/mcp`, resource_name: 'Payment Service MCP server' };
  for (const url of WELL_KNOWN_PATHS) {
    const document = url.endsWith('/mcp') ? mcp : api;
    // Public documents: browser-based clients (the MCP Inspector) read them too.
    app.get(url, async (_request, reply) => {
      reply.header('Access-Control-Allow-Origin', '*');
      return document;
    });
  }
}
