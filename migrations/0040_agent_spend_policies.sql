-- Issue 24, must haves 1 and 2: what a connected agent may do with money, and a person's yes
-- for what goes beyond it.

-- Whether the agent's Live creates and changes each wait for a person's approval. Connections
-- made before policies existed keep working within the default limits below, and need approval
-- in Live (the safe default the approval page shows).
ALTER TABLE agent_connections ADD COLUMN live_needs_approval boolean NOT NULL DEFAULT true;

-- The currencies an agent may create amounts in (one row each), with the most per created payment
-- link, checkout or checkout session and the most created per UTC day. A currency without a row is
-- not allowed.
CREATE TABLE agent_spend_limits (
  connection_id text NOT NULL REFERENCES agent_connections (id) ON DELETE CASCADE,
  currency text NOT NULL CHECK (currency IN ('USD', 'EUR', 'GBP', 'CAD', 'AUD')),
  per_object_minor bigint NOT NULL CHECK (per_object_minor > 0),
  per_day_minor bigint NOT NULL CHECK (per_day_minor > 0),
  PRIMARY KEY (connection_id, currency)
);
INSERT INTO agent_spend_limits (connection_id, currency, per_object_minor, per_day_minor)
  SELECT c.id, currency, 50000, 200000 FROM agent_connections c CROSS JOIN unnest(ARRAY['USD', 'EUR', 'GBP', 'CAD', 'AUD']) AS currency;

-- What each agent created per UTC day and currency: counted in the database with a conditional
-- upsert, so that several API instances agree and two calls at the edge cannot both pass.
CREATE TABLE agent_spend_days (
  connection_id text NOT NULL REFERENCES agent_connections (id) ON DELETE CASCADE,
  day date NOT NULL,
  currency text NOT NULL,
  created_minor bigint NOT NULL CHECK (created_minor >= 0),
  PRIMARY KEY (connection_id, day, currency)
);

-- An operation an agent asked for beyond its policy: the exact arguments (as sent, for the person
-- to read; hashed as checked, to bind the approval), and its fate. `pending` until a person
-- decides; `approved` until the agent's retry uses it once (`used`) or it expires; `declined`.
CREATE TABLE agent_approvals (
  id text PRIMARY KEY,
  business_id text NOT NULL,
  livemode boolean NOT NULL,
  connection_id text NOT NULL REFERENCES agent_connections (id) ON DELETE CASCADE,
  operation text NOT NULL,
  arguments jsonb NOT NULL,
  arguments_hash bytea NOT NULL,
  reasons text[] NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'used')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  decided_by text,
  decided_at timestamptz,
  used_at timestamptz
);
CREATE INDEX agent_approvals_list ON agent_approvals (business_id, livemode, created_at DESC);
CREATE INDEX agent_approvals_match ON agent_approvals (connection_id, operation, arguments_hash) WHERE status IN ('pending', 'approved');
