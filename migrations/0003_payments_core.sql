-- Payments core: the payment's money facts, orders from stores, idempotency, events and their
-- queued deliveries, processor notices, and exchange rates for the locked USD value.

ALTER TABLE payments
  ADD COLUMN routing           jsonb,
  ADD COLUMN provider          text,
  ADD COLUMN provider_name     text,
  ADD COLUMN method            text NOT NULL DEFAULT 'card' CHECK (method IN ('card', 'crypto')),
  ADD COLUMN network           text,
  ADD COLUMN deposit_address   text,
  ADD COLUMN payout_wallet     text,
  ADD COLUMN fee_bps           integer,
  ADD COLUMN usd_value_minor   bigint,
  ADD COLUMN value_coin        numeric(30, 6),
  ADD COLUMN coin              text,
  ADD COLUMN merchant_received numeric(30, 6),
  ADD COLUMN received_minor    bigint,
  ADD COLUMN hold_reason       text,
  ADD COLUMN hold_acceptable   boolean NOT NULL DEFAULT false,
  ADD COLUMN txid_in           text,
  ADD COLUMN txid_out          text,
  ADD COLUMN plan_label        text,
  ADD COLUMN updated_at        timestamptz;
UPDATE payments SET updated_at = created_at;
ALTER TABLE payments ALTER COLUMN updated_at SET NOT NULL, ALTER COLUMN updated_at SET DEFAULT now();
-- A transaction pays one payment only; a deposit address belongs to one payment.
CREATE UNIQUE INDEX payments_txid_in ON payments (txid_in) WHERE txid_in IS NOT NULL;
CREATE UNIQUE INDEX payments_deposit_address ON payments (deposit_address) WHERE deposit_address IS NOT NULL;
-- The expiry sweep: unpaid payments by due time.
CREATE INDEX payments_due ON payments (expires_at) WHERE status IN ('open', 'pending');

ALTER TABLE orders
  ADD COLUMN store_order_key text,
  ADD COLUMN store_customer_id text;
CREATE UNIQUE INDEX orders_store_order ON orders (business_id, livemode, store_order_key) WHERE store_order_key IS NOT NULL;
CREATE INDEX orders_customer_list ON orders (customer_id, created_at DESC, id DESC) WHERE customer_id IS NOT NULL;
DROP INDEX orders_customer;

-- What the merchant reported on an order's timeline (cancellation, refund).
CREATE TABLE order_timeline (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id     text NOT NULL REFERENCES orders (id),
  type         text NOT NULL CHECK (type IN ('canceled', 'refunded')),
  amount_minor bigint,
  reason       text,
  actor        text NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE INDEX order_timeline_order ON order_timeline (order_id, id);

-- Idempotency-Key memory for checkout-session creation (spec 4.6): only a hash of the body.
CREATE TABLE idempotency_keys (
  business_id  text NOT NULL,
  livemode     boolean NOT NULL,
  key          text NOT NULL,
  request_hash bytea NOT NULL,
  payment_id   text NOT NULL,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (business_id, livemode, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Events as delivered: the exact JSON body, written in the transaction of the change.
CREATE TABLE events (
  id          text PRIMARY KEY,
  business_id text NOT NULL,
  livemode    boolean NOT NULL,
  type        text NOT NULL,
  payment_id  text,
  order_id    text,
  customer_id text,
  body        text NOT NULL,
  created_at  timestamptz NOT NULL,
  seq         bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX events_payment ON events (payment_id, seq);
CREATE INDEX events_customer ON events (customer_id) WHERE customer_id IS NOT NULL;

-- One delivery per event and subscribed endpoint; its attempts are pg-boss jobs.
CREATE TABLE webhook_deliveries (
  id              text PRIMARY KEY,
  event_id        text NOT NULL REFERENCES events (id),
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id),
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL,
  finished_at     timestamptz
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

ALTER TABLE webhook_endpoints ADD COLUMN events_edited_at timestamptz;

-- Signed notices from the payment processor, every one recorded, applied or not.
CREATE TABLE processor_notices (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  notice_id    text,
  kind         text,
  payment_id   text,
  outcome      text NOT NULL CHECK (outcome IN ('applied', 'duplicate', 'rejected')),
  reason       text,
  body         text NOT NULL,
  received_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX processor_notices_applied ON processor_notices (notice_id) WHERE outcome = 'applied';

-- USD per unit of each price currency, for the order value locked when a payment starts.
CREATE TABLE fx_rates (
  currency     text PRIMARY KEY,
  usd_per_unit numeric(18, 8) NOT NULL CHECK (usd_per_unit > 0),
  updated_at   timestamptz NOT NULL
);
INSERT INTO fx_rates (currency, usd_per_unit, updated_at) VALUES
  ('USD', 1, now()), ('EUR', 1.08, now()), ('GBP', 1.27, now()), ('CAD', 0.73, now()), ('AUD', 0.66, now());

-- Child index of each Live deposit address derived from the processor's extended public key.
CREATE SEQUENCE deposit_address_index START 0 MINVALUE 0;
