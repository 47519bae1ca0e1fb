-- Erasing a customer (spec 2.3 rule 7) finds the payments made with its email, also on orders
-- that later moved to another buyer: by index, not by walking every payment of the business.
CREATE INDEX payments_customer_email ON payments (business_id, livemode, customer_email) WHERE customer_email IS NOT NULL;
