-- Foundation: tenancy, secret keys, customers, orders, payments (payment links for now),
-- checkouts and webhook endpoints. Every merchant-owned row carries business_id and livemode,
-- and every list index starts with them, so a query can only be scoped by tenant and mode.

CREATE TABLE businesses (
  id                    text PRIMARY KEY,
  name                  text NOT NULL,
  status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'archived')),
  commerce              text NOT NULL DEFAULT 'active' CHECK (commerce IN ('active', 'paused')),
  disabled_integrations text[] NOT NULL DEFAULT '{}'
                        CHECK (disabled_integrations <@ ARRAY['api', 'payment_links', 'checkouts']),
  payout_wallet         text,
  crypto_enabled        boolean NOT NULL DEFAULT true,
  fee_bps               integer NOT NULL DEFAULT 100 CHECK (fee_bps BETWEEN 0 AND 10000),
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL
);

CREATE TABLE people (
  id         text PRIMARY KEY,
  email      text NOT NULL UNIQUE CHECK (email = lower(email)),
  name       text,
  created_at timestamptz NOT NULL
);

CREATE TABLE memberships (
  business_id text NOT NULL REFERENCES businesses (id),
  person_id   text NOT NULL REFERENCES people (id),
  role        text NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (business_id, person_id)
);
CREATE INDEX memberships_person ON memberships (person_id);

-- Secret keys: only the SHA-256 of the secret is stored. Scopes follow from kind and access.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  business_id  text NOT NULL REFERENCES businesses (id),
  livemode     boolean NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('api', 'plugin', 'legacy')),
  access       text NOT NULL CHECK (access IN ('full', 'read_only')),
  name         text,
  secret_hash  bytea NOT NULL UNIQUE,
  secret_hint  text NOT NULL,
  created_by   text REFERENCES people (id),
  created_at   timestamptz NOT NULL,
  revoked_at   timestamptz,
  last_used_at timestamptz,
  CHECK (kind <> 'plugin' OR access = 'full')
);
CREATE INDEX api_keys_business ON api_keys (business_id, livemode, created_at DESC);

CREATE TABLE customers (
  id               text PRIMARY KEY,
  business_id      text NOT NULL REFERENCES businesses (id),
  livemode         boolean NOT NULL,
  email            text CHECK (email = lower(email)),
  name             text,
  phone            text,
  shipping_address jsonb,
  billing_address  jsonb,
  store_accounts   jsonb NOT NULL DEFAULT '[]',
  erased           boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL,
  last_order_at    timestamptz
);
CREATE UNIQUE INDEX customers_email ON customers (business_id, livemode, email) WHERE email IS NOT NULL;
CREATE INDEX customers_list ON customers (business_id, livemode, created_at DESC, id DESC);

-- Order numbers count from 1001 per business and mode.
CREATE TABLE order_numbers (
  business_id text NOT NULL REFERENCES businesses (id),
  livemode    boolean NOT NULL,
  last_number integer NOT NULL,
  PRIMARY KEY (business_id, livemode)
);

CREATE TABLE orders (
  id              text PRIMARY KEY,
  business_id     text NOT NULL REFERENCES businesses (id),
  livemode        boolean NOT NULL,
  number          integer NOT NULL,
  customer_id     text REFERENCES customers (id),
  source          text NOT NULL CHECK (source IN ('api', 'checkout', 'payment_link')),
  checkout_id     text,
  store           jsonb,
  status          text NOT NULL DEFAULT 'open',
  fulfillment     text NOT NULL DEFAULT 'none' CHECK (fulfillment IN ('none', 'unfulfilled', 'fulfilled')),
  fulfilled_at    timestamptz,
  currency        text NOT NULL,
  subtotal_minor  bigint NOT NULL,
  discount_minor  bigint NOT NULL DEFAULT 0,
  discount_code   text,
  shipping_minor  bigint NOT NULL DEFAULT 0,
  shipping_method text,
  tax_minor       bigint NOT NULL DEFAULT 0,
  total_minor     bigint NOT NULL,
  customer_name   text,
  customer_phone  text,
  ship_to         jsonb,
  bill_to         jsonb,
  items           jsonb NOT NULL DEFAULT '[]',
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  paid_at         timestamptz,
  UNIQUE (business_id, livemode, number)
);
CREATE INDEX orders_list ON orders (business_id, livemode, created_at DESC, id DESC);
CREATE INDEX orders_customer ON orders (customer_id, created_at DESC);

-- Checkout sessions, payment links and checkout purchases are all payments (one state machine).
CREATE TABLE payments (
  id                  text PRIMARY KEY,
  business_id         text NOT NULL REFERENCES businesses (id),
  livemode            boolean NOT NULL,
  source              text NOT NULL CHECK (source IN ('api', 'checkout', 'payment_link')),
  order_id            text REFERENCES orders (id),
  checkout_id         text,
  status              text NOT NULL DEFAULT 'open'
                      CHECK (status IN ('open', 'pending', 'paid', 'held', 'failed', 'expired')),
  amount_minor        bigint NOT NULL,
  currency            text NOT NULL,
  description         text NOT NULL,
  reference           text,
  metadata            jsonb,
  customer_email      text,
  customer_name       text,
  memo                text,
  success_url         text,
  collect             jsonb,
  created_at          timestamptz NOT NULL,
  expires_at          timestamptz NOT NULL,
  started_at          timestamptz,
  provider_reached_at timestamptz,
  paid_at             timestamptz,
  canceled_at         timestamptz
);
CREATE INDEX payments_list ON payments (business_id, livemode, source, created_at DESC, id DESC);
CREATE INDEX payments_all ON payments (business_id, livemode, created_at DESC, id DESC);
CREATE INDEX payments_reference ON payments (business_id, livemode, reference) WHERE reference IS NOT NULL;
CREATE INDEX payments_order ON payments (order_id);

CREATE TABLE checkouts (
  id           text PRIMARY KEY,
  business_id  text NOT NULL REFERENCES businesses (id),
  livemode     boolean NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('page', 'pricing_table', 'widget')),
  slug         text NOT NULL UNIQUE,
  active       boolean NOT NULL DEFAULT true,
  name         text NOT NULL,
  description  text,
  amount_minor bigint NOT NULL,
  currency     text NOT NULL,
  success_url  text,
  theme        text NOT NULL CHECK (theme IN ('light', 'dark')),
  button_label text,
  crypto       boolean NOT NULL,
  routing      jsonb NOT NULL,
  collect      jsonb,
  options      jsonb,
  plans        jsonb NOT NULL DEFAULT '[]',
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE INDEX checkouts_list ON checkouts (business_id, livemode, created_at DESC, id DESC) WHERE active;

-- Signing secrets must be readable to sign, so they are encrypted (AES-256-GCM), not hashed.
CREATE TABLE webhook_endpoints (
  id                         text PRIMARY KEY,
  business_id                text NOT NULL REFERENCES businesses (id),
  livemode                   boolean NOT NULL,
  url                        text NOT NULL,
  description                text,
  events                     text[] NOT NULL,
  secret_encrypted           bytea,
  previous_secret_encrypted  bytea,
  previous_secret_expires_at timestamptz,
  added_via                  text NOT NULL CHECK (added_via IN ('api', 'dashboard')),
  api_key_id                 text REFERENCES api_keys (id),
  created_at                 timestamptz NOT NULL,
  deleted_at                 timestamptz
);
CREATE UNIQUE INDEX webhook_endpoints_url ON webhook_endpoints (business_id, livemode, url) WHERE deleted_at IS NULL;
CREATE INDEX webhook_endpoints_list ON webhook_endpoints (business_id, livemode, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX webhook_endpoints_key ON webhook_endpoints (api_key_id) WHERE deleted_at IS NULL;

-- Account activity: who did what, shown in the dashboard (e.g. "key key_… added endpoint we_…").
CREATE TABLE activity (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses (id),
  livemode    boolean NOT NULL,
  actor       text NOT NULL,
  action      text NOT NULL,
  subject_id  text,
  details     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL
);
CREATE INDEX activity_business ON activity (business_id, created_at DESC);
