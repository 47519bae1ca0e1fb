import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { TestApp } from './harness.ts';

// An MCP client's OAuth side as the SDK expects it, kept in memory: what a desktop client stores
// between runs (its registration, tokens and PKCE verifier), and where it would open a browser.

export class MemoryOAuthProvider implements OAuthClientProvider {
  clientInfo: any;
  savedTokens: any;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly #name: string;

  constructor(name: string) {
    this.#name = name;
  }

  get redirectUrl() { return 'http://127.0.0.1:33418/callback'; }
  get clientMetadata() {
    return { client_name: this.#name, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.clientInfo; }
  saveClientInformation(info: unknown) { this.clientInfo = info; }
  tokens() { return this.savedTokens; }
  saveTokens(tokens: unknown) { this.savedTokens = tokens; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

/** fetch for the SDK: the service's public origin (BASE_URL) goes to the test server. */
export function localFetch(t: TestApp) {
  return (input: string | URL | Request, init?: RequestInit) => fetch(String(input instanceof Request ? input.url : input).replace(t.config.baseUrl, t.url), init);
}
