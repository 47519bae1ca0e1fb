-- Agent access (spec 5): the OAuth 2.1 authorization server for AI agents, the connections people
-- approve, and the dashboard's sign-in.

-- Keys that sign access tokens. The private half is encrypted like webhook secrets; a retired key
-- stays in the JWKS until every token it signed has expired.
CREATE TABLE oauth_signing_keys (
  kid                   text PRIMARY KEY,
  alg                   text NOT NULL,
  public_jwk            jsonb NOT NULL,
  private_jwk_encrypted bytea NOT NULL,
  created_at            timestamptz NOT NULL,
  retired_at            timestamptz
);

-- Clients: registered dynamically (RFC 7591) or known by their metadata document's URL.
CREATE TABLE oauth_clients (
  client_id                  text PRIMARY KEY,
  kind                       text NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
  client_name                text,
  client_uri                 text,
  logo_uri                   text,
  redirect_uris              text[] NOT NULL,
  application_type           text NOT NULL CHECK (application_type IN ('web', 'native')),
  grant_types                text[] NOT NULL,
  response_types             text[] NOT NULL,
  token_endpoint_auth_method text NOT NULL,
  scope                      text,
  software_id                text,
  software_version           text,
  created_at                 timestamptz NOT NULL,
  last_used_at               timestamptz NOT NULL,
  fetched_at                 timestamptz
);
CREATE INDEX oauth_clients_unused ON oauth_clients (last_used_at) WHERE kind = 'registered';

-- An authorization request validated in full, waiting for a person to approve or deny it.
CREATE TABLE oauth_requests (
  id             text PRIMARY KEY,
  client_id      text NOT NULL,
  redirect_uri   text NOT NULL,
  state          text,
  code_challenge text NOT NULL,
  resource       text NOT NULL,
  scopes         text[] NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL,
  decided_at     timestamptz
);

-- A connected agent: what a person approved, for one business and mode.
CREATE TABLE agent_connections (
  id                text PRIMARY KEY,
  business_id       text NOT NULL REFERENCES businesses (id),
  livemode          boolean NOT NULL,
  client_id         text NOT NULL,
  client_name       text,
  approved_by       text NOT NULL REFERENCES people (id),
  access            text NOT NULL CHECK (access IN ('full', 'read_only')),
  scopes            text[] NOT NULL,
  resource          text NOT NULL,
  created_at        timestamptz NOT NULL,
  last_used_at      timestamptz,
  disconnected_at   timestamptz,
  disconnected_why  text
);
CREATE INDEX agent_connections_business ON agent_connections (business_id, livemode, created_at DESC);

-- Only changes that matter to a credential: last_used_at moves every minute and must not clear
-- every server's cache.
CREATE TRIGGER agent_connections_auth_changed
  AFTER UPDATE OF disconnected_at, scopes, access, approved_by, business_id, livemode, client_id OR DELETE ON agent_connections
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();

-- Authorization codes and refresh tokens: hashes only.
CREATE TABLE oauth_codes (
  code_hash      bytea PRIMARY KEY,
  connection_id  text NOT NULL REFERENCES agent_connections (id),
  client_id      text NOT NULL,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,
  resource       text NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz
);

CREATE TABLE oauth_refresh_tokens (
  token_hash    bytea PRIMARY KEY,
  connection_id text NOT NULL REFERENCES agent_connections (id),
  client_id     text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  rotated_at    timestamptz
);
CREATE INDEX oauth_refresh_tokens_connection ON oauth_refresh_tokens (connection_id);

-- The dashboard: people's sessions and the CLI's single-use sign-in links.
CREATE TABLE dashboard_sessions (
  id_hash      bytea PRIMARY KEY,
  person_id    text NOT NULL REFERENCES people (id),
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL
);

CREATE TABLE sign_in_links (
  token_hash bytea PRIMARY KEY,
  person_id  text NOT NULL REFERENCES people (id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
