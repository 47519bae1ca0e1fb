-- The payment-link list is the only reader of the (…, source, …) index: index the links alone,
-- so checkout sessions and purchases do not pay for it on every insert.
DROP INDEX payments_list;
CREATE INDEX payment_links_list ON payments (business_id, livemode, created_at DESC, id DESC) WHERE source = 'payment_link';
