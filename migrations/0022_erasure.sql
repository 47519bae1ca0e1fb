-- Erasing a customer (spec 2.3 rule 7) finds the payments made with its email, also on orders
-- that later moved to another buyer: by index, not by walking every payment of the business.
CREATE INDEX payments_customer_email ON payments (business_id, livemode, customer_email) WHERE customer_email IS NOT NULL;

-- How many erasures rewrote a delivery's event body: an attempt that sent the body loaded
-- before one does not keep what the endpoint answered (it may echo the details), and the
-- recording waits on this row for the erasure to commit, so neither misses the other.
ALTER TABLE webhook_deliveries ADD COLUMN erasures integer NOT NULL DEFAULT 0;
